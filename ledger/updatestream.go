package ledger

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// UpdateEvent is one committed update as a developer watches it: the
// log's row with the parties it concerns and the templates of the
// contracts (and holdings) it created or archived.
type UpdateEvent struct {
	Offset    int64
	UpdateID  string
	Kind      string
	Submitter string
	Round     coin.Round
	Time      time.Time
	// ActedBy is the admin who made it acting as another party on a
	// development network (impersonate.go), "" otherwise.
	ActedBy string
	// Parties are the stakeholders: the parties of its history rows, the
	// stakeholders of its contracts, the owners of its holdings and the
	// submitter; sorted.
	Parties []coin.PartyID
	// Templates are the template IDs it created or archived; sorted.
	Templates []string
}

// MaxUpdateEvents bounds one read of the update stream.
const MaxUpdateEvents = 500

// UpdatesAfter returns the updates committed after offset after, oldest
// first, at most limit (bounded by MaxUpdateEvents).
func (l *Ledger) UpdatesAfter(ctx context.Context, after int64, limit int) ([]UpdateEvent, error) {
	if limit <= 0 || limit > MaxUpdateEvents {
		limit = MaxUpdateEvents
	}
	us, err := store.UpdatesAfter(ctx, l.db, after, limit)
	if err != nil || len(us) == 0 {
		return nil, err
	}
	ts, err := store.UpdateTouches(ctx, l.db, us[0].OffsetID, us[len(us)-1].OffsetID)
	if err != nil {
		return nil, err
	}
	parties := map[int64]map[coin.PartyID]bool{}
	templates := map[int64]map[string]bool{}
	add := func(m map[int64]map[string]bool, o int64, v string) {
		if m[o] == nil {
			m[o] = map[string]bool{}
		}
		m[o][v] = true
	}
	for _, t := range ts {
		for _, p := range strings.Fields(t.Parties) {
			if parties[t.Offset] == nil {
				parties[t.Offset] = map[coin.PartyID]bool{}
			}
			parties[t.Offset][coin.PartyID(p)] = true
		}
		switch {
		case t.Holding == 1:
			add(templates, t.Offset, TemplateAmulet)
		case t.Template != "":
			add(templates, t.Offset, t.Template)
		}
	}
	out := make([]UpdateEvent, 0, len(us))
	for _, u := range us {
		e := UpdateEvent{Offset: u.OffsetID, UpdateID: u.UpdateID, Kind: u.Kind, Submitter: u.Submitter, Round: u.Round, Time: u.RecordTime,
			ActedBy: u.ActedBy, Parties: []coin.PartyID{}, Templates: []string{}}
		ps := parties[u.OffsetID]
		if u.Submitter != "" {
			if ps == nil {
				ps = map[coin.PartyID]bool{}
			}
			ps[coin.PartyID(u.Submitter)] = true
		}
		for p := range ps {
			e.Parties = append(e.Parties, p)
		}
		for t := range templates[u.OffsetID] {
			e.Templates = append(e.Templates, t)
		}
		slices.Sort(e.Parties)
		slices.Sort(e.Templates)
		out = append(out, e)
	}
	return out, nil
}

// Matches is the update stream's filter: party, if not empty, is a
// stakeholder (Concerns) and template, if not empty, one it created or
// archived (HasTemplate).
func (e *UpdateEvent) Matches(party coin.PartyID, template string) bool {
	return (party == "" || e.Concerns(party)) && (template == "" || e.HasTemplate(template))
}

// Concerns says whether party is a stakeholder of the update.
func (e *UpdateEvent) Concerns(party coin.PartyID) bool {
	_, ok := slices.BinarySearch(e.Parties, party)
	return ok
}

// HasTemplate says whether the update created or archived a contract of
// template t: its full ID ("#splice-amulet:Splice.Amulet:Amulet") or a
// tail after a colon ("Splice.Amulet:Amulet", "Amulet").
func (e *UpdateEvent) HasTemplate(t string) bool {
	for _, have := range e.Templates {
		if have == t || strings.HasSuffix(have, ":"+t) {
			return true
		}
	}
	return false
}
