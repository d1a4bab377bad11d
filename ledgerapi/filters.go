package ledgerapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger/apiread"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/damlid"
)

// Event formats: which parties' events, of which templates, with which
// parts (create arguments, blobs, interface views). The JSON shapes are
// EventFormat / TransactionFilter / Filters of the spec.

type filtersJSON struct {
	Cumulative []struct {
		IdentifierFilter map[string]json.RawMessage `json:"identifierFilter"`
	} `json:"cumulative"`
}

type eventFormatJSON struct {
	FiltersByParty     map[string]filtersJSON `json:"filtersByParty"`
	FiltersForAnyParty *filtersJSON           `json:"filtersForAnyParty"`
	Verbose            bool                   `json:"verbose"`
}

// maxFilterParties and maxFilterEntries bound a filter.
const (
	maxFilterParties = 100
	maxFilterEntries = 100
)

// ifaceOpts are an interface filter's flags.
type ifaceOpts struct{ view, blob bool }

// partyFilter is one party's filters, merged (a union; flags OR-ed).
type partyFilter struct {
	wildcard, wildcardBlob bool
	templates              map[string]bool // template -> includeCreatedEventBlob
	interfaces             map[string]ifaceOpts
}

// eventFormat is a parsed EventFormat.
type eventFormat struct {
	byParty map[coin.PartyID]*partyFilter
	// ledgerEffects is TRANSACTION_SHAPE_LEDGER_EFFECTS: archives show as
	// consuming exercises.
	ledgerEffects bool
}

func parseFilters(field string, f filtersJSON) (*partyFilter, error) {
	pf := &partyFilter{templates: map[string]bool{}, interfaces: map[string]ifaceOpts{}}
	if len(f.Cumulative) > maxFilterEntries {
		return nil, canton.InvalidArgument("%s.cumulative: at most %d filters, got %d", field, maxFilterEntries, len(f.Cumulative))
	}
	empty := true
	for i, c := range f.Cumulative {
		at := fmt.Sprintf("%s.cumulative[%d].identifierFilter", field, i)
		if len(c.IdentifierFilter) != 1 {
			return nil, canton.InvalidArgument("%s: give exactly one of WildcardFilter, TemplateFilter, InterfaceFilter, Empty", at)
		}
		for kind, raw := range c.IdentifierFilter {
			var v struct {
				Value struct {
					TemplateID              string `json:"templateId"`
					InterfaceID             string `json:"interfaceId"`
					IncludeCreatedEventBlob bool   `json:"includeCreatedEventBlob"`
					IncludeInterfaceView    bool   `json:"includeInterfaceView"`
				} `json:"value"`
			}
			if kind != "Empty" {
				if err := jsonv1.Unmarshal(raw, &v); err != nil {
					return nil, &canton.DecodeError{Status: 400, Msg: at + "." + kind + ": " + err.Error()}
				}
			}
			switch kind {
			case "Empty":
				continue
			case "WildcardFilter":
				pf.wildcard = true
				pf.wildcardBlob = pf.wildcardBlob || v.Value.IncludeCreatedEventBlob
			case "TemplateFilter":
				t, err := damlid.Resolve(at+".TemplateFilter.value.templateId", v.Value.TemplateID, damlid.Template)
				if err != nil {
					return nil, err
				}
				pf.templates[t] = pf.templates[t] || v.Value.IncludeCreatedEventBlob
			case "InterfaceFilter":
				id, err := damlid.Resolve(at+".InterfaceFilter.value.interfaceId", v.Value.InterfaceID, damlid.Interface)
				if err != nil {
					return nil, err
				}
				o := pf.interfaces[id]
				pf.interfaces[id] = ifaceOpts{view: o.view || v.Value.IncludeInterfaceView, blob: o.blob || v.Value.IncludeCreatedEventBlob}
			default:
				return nil, canton.InvalidArgument("%s: unknown filter %s; want WildcardFilter, TemplateFilter, InterfaceFilter or Empty", at, kind)
			}
			empty = false
		}
	}
	if empty {
		pf.wildcard = true // no filter, or only Empty ones: every template
	}
	return pf, nil
}

// parseEventFormat checks an event format (or legacy filter) and the
// caller's right to read as each of its parties.
func parseEventFormat(field string, f *eventFormatJSON, c *canton.Caller) (*eventFormat, error) {
	if f == nil {
		return nil, canton.Err(canton.CodeMissingField, "%s: the event format (or filter) is required", field)
	}
	if f.FiltersForAnyParty != nil && c.ReadAny {
		return nil, canton.Err(canton.CodeUnsupported, "%s.filtersForAnyParty is not supported by this participant; filter by party", field)
	}
	if f.FiltersForAnyParty != nil {
		return nil, canton.PermissionDenied("%s.filtersForAnyParty needs the CanReadAsAnyParty right, which user %q lacks; filter by party", field, c.User.Name)
	}
	if len(f.FiltersByParty) == 0 {
		return nil, canton.InvalidArgument("%s.filtersByParty: give the parties to read as", field)
	}
	if len(f.FiltersByParty) > maxFilterParties {
		return nil, canton.InvalidArgument("%s.filtersByParty: at most %d parties, got %d", field, maxFilterParties, len(f.FiltersByParty))
	}
	ef := &eventFormat{byParty: map[coin.PartyID]*partyFilter{}}
	for _, ps := range slices.Sorted(maps.Keys(f.FiltersByParty)) {
		p, err := canton.ParseParty(field+".filtersByParty", ps)
		if err != nil {
			return nil, err
		}
		if err := c.RequireRead(p); err != nil {
			return nil, err
		}
		pf, err := parseFilters(field+".filtersByParty["+ps+"]", f.FiltersByParty[ps])
		if err != nil {
			return nil, err
		}
		ef.byParty[p] = pf
	}
	return ef, nil
}

// wildcardFormat is a template-wildcard filter for parties.
func wildcardFormat(parties []coin.PartyID) *eventFormat {
	ef := &eventFormat{byParty: map[coin.PartyID]*partyFilter{}}
	for _, p := range parties {
		ef.byParty[p] = &partyFilter{wildcard: true}
	}
	return ef
}

// ledgerFilter is what the ledger should select for ef: its parties and
// the union of its templates (nil when any party takes every template).
func (ef *eventFormat) ledgerFilter() apiread.ContractFilter {
	f := apiread.ContractFilter{Parties: []coin.PartyID{}, Templates: []string{}}
	all := false
	for p, pf := range ef.byParty {
		f.Parties = append(f.Parties, p)
		all = all || pf.wildcard
		for t := range pf.templates {
			f.Templates = append(f.Templates, t)
		}
		for i := range pf.interfaces {
			f.Templates = append(f.Templates, apiread.Implementers(i)...)
		}
	}
	sort.Slice(f.Parties, func(i, j int) bool { return f.Parties[i] < f.Parties[j] })
	if all {
		f.Templates = nil
	} else {
		slices.Sort(f.Templates)
		f.Templates = slices.Compact(f.Templates)
	}
	return f
}

// match is how ef sees a contract: the witnesses (filter parties among its
// stakeholders whose filters select it), whether to show the create
// argument and the blob, and which interface views.
type match struct {
	witnesses []coin.PartyID
	argument  bool
	blob      bool
	views     []string
}

func (ef *eventFormat) match(c apiread.LedgerContract) (match, bool) {
	return ef.matchAs(c, c.Stakeholders())
}

// matchAs is match with parties as the contract's witnesses (the
// informees of an exercise it descends from).
func (ef *eventFormat) matchAs(c apiread.LedgerContract, parties []coin.PartyID) (match, bool) {
	var m match
	views := map[string]bool{}
	for _, p := range parties {
		pf, ok := ef.byParty[p]
		if !ok || slices.Contains(m.witnesses, p) {
			continue
		}
		seen := false
		if pf.wildcard {
			seen, m.argument, m.blob = true, true, m.blob || pf.wildcardBlob
		}
		if blob, ok := pf.templates[c.TemplateID]; ok {
			seen, m.argument, m.blob = true, true, m.blob || blob
		}
		for i, o := range pf.interfaces {
			if apiread.Implements(c.TemplateID, i) {
				seen, m.blob = true, m.blob || o.blob
				if o.view {
					views[i] = true
				}
			}
		}
		if seen {
			m.witnesses = append(m.witnesses, p)
		}
	}
	m.views = slices.Sorted(maps.Keys(views))
	slices.Sort(m.witnesses)
	return m, len(m.witnesses) > 0
}
