package devnet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"gopkg.in/yaml.v3"
)

// Scenarios: a development network's state as a file (issue 27 point 2).
// A Scenario names users, parties (local and external), their balances,
// preapprovals, delegations, open offers and pending instructions; Seed
// (seed.go) creates all of it or nothing, and Dump
// (dump.go) writes a network's state in the same format, so a
// state can be saved, edited and loaded again. Parties are named, never
// identified by their IDs: a party ID holds the node's namespace (or an
// external party's key), which differs from network to network.

// Bounds of a scenario: it is input, from a file or a request body.
const (
	// MaxScenarioBytes bounds a scenario file or request body.
	MaxScenarioBytes = 1 << 20
	// MaxScenarioItems bounds each list of a scenario (users, parties,
	// offers, instructions).
	MaxScenarioItems = 1000
	// MaxScenarioHoldings bounds a party's holdings list.
	MaxScenarioHoldings = 100
	// MaxScenarioName bounds a user's or party's name: onboarding's
	// bound, so every user a network has can be dumped and seeded (a
	// party's name, its hint, stops at 185).
	MaxScenarioName = 255
	// MaxScenarioExpiry bounds how far ahead an offer, instruction or
	// delegation of a scenario may expire.
	MaxScenarioExpiry = 366 * 24 * time.Hour
)

// Default lifetimes of a scenario's items without expires_at or expires_in.
const (
	scenarioTransferLifetime   = 24 * time.Hour
	scenarioDelegationLifetime = 30 * 24 * time.Hour
	scenarioMergeLimit         = 10
)

// Scenario is a development network's state as a file (YAML or JSON).
type Scenario struct {
	// Users are wallet users, each with a new local party.
	Users []ScenarioParty `yaml:"users,omitempty" json:"users,omitempty"`
	// Parties are parties without a wallet user: local ones (named by
	// their hint) or external ones, whose Ed25519 keys Seed generates
	// (or is given) and returns.
	Parties      []ScenarioParty    `yaml:"parties,omitempty" json:"parties,omitempty"`
	Offers       []ScenarioTransfer `yaml:"offers,omitempty" json:"offers,omitempty"`
	Instructions []ScenarioTransfer `yaml:"instructions,omitempty" json:"instructions,omitempty"`
	// KeysDir is where the command seeding a file writes the external
	// parties' keys (relative to the file; default: beside it, in
	// NAME.keys). The endpoint answers the keys instead.
	KeysDir string `yaml:"keys_dir,omitempty" json:"keys_dir,omitempty"`
}

// ScenarioParty is a user or a party and what it holds.
type ScenarioParty struct {
	Name     string `yaml:"name" json:"name"`
	External bool   `yaml:"external,omitempty" json:"external,omitempty"`
	// Balance is minted as one holding; Holdings as one holding each.
	// Either is the party's available balance once seeded: what the
	// scenario's instructions lock is minted for them besides.
	Balance           string                     `yaml:"balance,omitempty" json:"balance,omitempty"`
	Holdings          []string                   `yaml:"holdings,omitempty" json:"holdings,omitempty"`
	Preapproval       bool                       `yaml:"preapproval,omitempty" json:"preapproval,omitempty"`
	MergeDelegation   bool                       `yaml:"merge_delegation,omitempty" json:"merge_delegation,omitempty"`
	MintingDelegation *ScenarioMintingDelegation `yaml:"minting_delegation,omitempty" json:"minting_delegation,omitempty"`
	Featured          bool                       `yaml:"featured,omitempty" json:"featured,omitempty"`
}

// ScenarioMintingDelegation is an external party's delegation of its
// minting to this validator.
type ScenarioMintingDelegation struct {
	MergeLimit int    `yaml:"merge_limit,omitempty" json:"merge_limit,omitempty"`
	ExpiresAt  string `yaml:"expires_at,omitempty" json:"expires_at,omitempty"`
	ExpiresIn  string `yaml:"expires_in,omitempty" json:"expires_in,omitempty"`
}

// ScenarioTransfer is an open transfer offer or a pending token-standard
// transfer instruction. From and To name a user or party of the scenario,
// a user of the network (e.g. admin) or a party ID.
type ScenarioTransfer struct {
	From        string `yaml:"from" json:"from"`
	To          string `yaml:"to" json:"to"`
	Amount      string `yaml:"amount" json:"amount"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	ExpiresAt   string `yaml:"expires_at,omitempty" json:"expires_at,omitempty"`
	ExpiresIn   string `yaml:"expires_in,omitempty" json:"expires_in,omitempty"`
	TrackingID  string `yaml:"tracking_id,omitempty" json:"tracking_id,omitempty"`
}

// ParseScenario reads a scenario in YAML (or JSON, which YAML reads too),
// strictly: an unknown field, a second document or anything over the
// bounds is an error naming where it is.
func ParseScenario(b []byte) (*Scenario, error) {
	if len(b) > MaxScenarioBytes {
		return nil, fault.Invalid("scenario", "is %d bytes; at most %d are read", len(b), MaxScenarioBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fault.Invalid("scenario", "is empty")
		}
		return nil, fault.Invalid("scenario", "%s", yamlWords(err))
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fault.Invalid("scenario", "holds more than one YAML document; put everything in one")
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return &sc, nil
}

// yamlWords drops the decoder's prefixes from its error.
func yamlWords(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.TrimPrefix(s, "unmarshal errors:\n")
	s = strings.ReplaceAll(s, "\n", "; ")
	s = strings.ReplaceAll(s, "in type ledger.", "in ")
	return strings.TrimSpace(s)
}

// Marshal writes the scenario as YAML.
func (sc *Scenario) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(sc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Validate checks what can be checked without the network: bounds, names,
// amounts, times' syntax, references to the scenario's own names. Each
// error names the item (users[0].balance: ...).
func (sc *Scenario) Validate() error {
	for list, n := range map[string]int{"users": len(sc.Users), "parties": len(sc.Parties), "offers": len(sc.Offers), "instructions": len(sc.Instructions)} {
		if n > MaxScenarioItems {
			return fault.Invalid(list, "has %d items; at most %d", n, MaxScenarioItems)
		}
	}
	if len(sc.Users)+len(sc.Parties)+len(sc.Offers)+len(sc.Instructions) == 0 {
		return fault.Invalid("scenario", "has nothing to create: list users, parties, offers or instructions")
	}
	if len(sc.KeysDir) > 255 {
		return fault.Invalid("keys_dir", "has more than 255 characters")
	}
	if err := bounds.TextFields("keys_dir", sc.KeysDir); err != nil {
		return err
	}
	names := map[string]string{}
	for i := range sc.Users {
		if err := sc.Users[i].validate(fmt.Sprintf("users[%d]", i), true, names); err != nil {
			return err
		}
	}
	for i := range sc.Parties {
		if err := sc.Parties[i].validate(fmt.Sprintf("parties[%d]", i), false, names); err != nil {
			return err
		}
	}
	for i, o := range sc.Offers {
		if err := o.validate(fmt.Sprintf("offers[%d]", i)); err != nil {
			return err
		}
	}
	for i, o := range sc.Instructions {
		if err := o.validate(fmt.Sprintf("instructions[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

func (p *ScenarioParty) validate(at string, user bool, names map[string]string) error {
	field := func(f string) string { return at + "." + f }
	switch {
	case p.Name == "":
		return fault.Invalid(field("name"), "is required")
	case len(p.Name) > MaxScenarioName:
		return fault.Invalid(field("name"), "has %d characters; at most %d", len(p.Name), MaxScenarioName)
	case strings.TrimSpace(p.Name) != p.Name:
		return fault.Invalid(field("name"), "must not begin or end with spaces")
	}
	if err := bounds.TextFields(field("name"), p.Name); err != nil {
		return err
	}
	if !user {
		if err := coin.ValidateHint(p.Name); err != nil {
			return fault.Invalid(field("name"), "%v", err)
		}
	}
	if prev, ok := names[p.Name]; ok {
		return fault.Invalid(field("name"), "%q is also %s's name; names must be unique", p.Name, prev)
	}
	names[p.Name] = at
	if user && p.External {
		return fault.Invalid(field("external"), "a user's party is local; list external parties under parties")
	}
	if p.Balance != "" && len(p.Holdings) > 0 {
		return fault.Invalid(field("holdings"), "give a balance or holdings, not both")
	}
	if p.Balance != "" {
		if _, err := parseScenarioAmount(field("balance"), p.Balance); err != nil {
			return err
		}
	}
	if len(p.Holdings) > MaxScenarioHoldings {
		return fault.Invalid(field("holdings"), "has %d holdings; at most %d", len(p.Holdings), MaxScenarioHoldings)
	}
	for j, h := range p.Holdings {
		if _, err := parseScenarioAmount(fmt.Sprintf("%s[%d]", field("holdings"), j), h); err != nil {
			return err
		}
	}
	if p.MergeDelegation && p.External {
		return fault.Invalid(field("merge_delegation"), "an external party signs its own merges; only local parties delegate them here")
	}
	if d := p.MintingDelegation; d != nil {
		if !p.External {
			return fault.Invalid(field("minting_delegation"), "only an external party delegates its minting to the validator")
		}
		if d.MergeLimit != 0 && (d.MergeLimit < 1 || d.MergeLimit > delegations.MaxMergeLimit) {
			return fault.Invalid(field("minting_delegation.merge_limit"), "must be between 1 and %d", delegations.MaxMergeLimit)
		}
		if _, err := scenarioExpiry(field("minting_delegation"), d.ExpiresAt, d.ExpiresIn, time.Time{}, 0); err != nil {
			return err
		}
	}
	return nil
}

func (o ScenarioTransfer) validate(at string) error {
	field := func(f string) string { return at + "." + f }
	switch {
	case o.From == "":
		return fault.Invalid(field("from"), "is required: a user or party name")
	case o.To == "":
		return fault.Invalid(field("to"), "is required: a user or party name")
	case o.From == o.To:
		return fault.Invalid(field("to"), "is the sender itself")
	case len(o.From) > 255:
		return fault.Invalid(field("from"), "has more than 255 characters")
	case len(o.To) > 255:
		return fault.Invalid(field("to"), "has more than 255 characters")
	}
	if _, err := parseScenarioAmount(field("amount"), o.Amount); err != nil {
		return err
	}
	if err := bounds.CheckText(field("description"), o.Description); err != nil {
		return err
	}
	if err := bounds.CheckID(field("tracking_id"), o.TrackingID); err != nil {
		return err
	}
	if err := bounds.TextFields(field("from"), o.From, field("to"), o.To); err != nil {
		return err
	}
	_, err := scenarioExpiry(at, o.ExpiresAt, o.ExpiresIn, time.Time{}, 0)
	return err
}

func parseScenarioAmount(field, s string) (coin.Amount, error) {
	if s == "" {
		return coin.Zero, fault.Invalid(field, "is required")
	}
	a, err := coin.ParseAmount(s)
	if err != nil {
		return coin.Zero, fault.Invalid(field, "%q is not an amount of coin (e.g. 10.5): %v", s, err)
	}
	if err := bounds.CheckAmount(field, a); err != nil {
		return coin.Zero, err
	}
	return a, nil
}

// scenarioExpiry reads expires_at (RFC 3339) or expires_in (a Go
// duration such as 24h) into a time after now, def from now when neither
// is given. A zero now checks only the syntax.
func scenarioExpiry(at, expiresAt, expiresIn string, now time.Time, def time.Duration) (time.Time, error) {
	switch {
	case expiresAt != "" && expiresIn != "":
		return time.Time{}, fault.Invalid(at+".expires_in", "give expires_at or expires_in, not both")
	case expiresAt != "":
		t, err := time.Parse(time.RFC3339Nano, expiresAt)
		if err != nil {
			return time.Time{}, fault.Invalid(at+".expires_at", "%q is not an RFC 3339 time such as 2026-12-01T12:00:00Z", expiresAt)
		}
		if now.IsZero() {
			return t, nil
		}
		if !t.After(now) {
			return time.Time{}, fault.Invalid(at+".expires_at", "%s is not in the future (the network's time is %s)", expiresAt, ledger.FormatTime(now))
		}
		if t.Sub(now) > MaxScenarioExpiry {
			return time.Time{}, fault.Invalid(at+".expires_at", "is more than %d days ahead", MaxScenarioExpiry/(24*time.Hour))
		}
		return t, nil
	case expiresIn != "":
		d, err := time.ParseDuration(expiresIn)
		if err != nil || d <= 0 || d > MaxScenarioExpiry {
			return time.Time{}, fault.Invalid(at+".expires_in", "%q is not a duration such as 24h, up to %d days", expiresIn, MaxScenarioExpiry/(24*time.Hour))
		}
		return now.Add(d), nil
	}
	return now.Add(def), nil
}
