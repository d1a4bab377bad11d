package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// The name service (ANS, Splice.Ans): a user requests a name, which
// creates an AnsEntryContext and a subscription request to the DSO; once
// the user accepts it, the DSO's collection of the first payment creates
// the AnsEntry, expiring after the entry lifetime; each later payment
// renews it; a missed payment lets it expire and the name is free again.
// The contracts are in the generic contract store; the ans_names table is
// their read model for the lookups by name and by party and keeps one
// entry per name. The subscription's collection calls ansApp's hooks in
// its own change.

// Templates of the name service, in the real network's package.
const (
	TemplateAnsRules        = "#splice-amulet-name-service:Splice.Ans:AnsRules"
	TemplateAnsEntry        = "#splice-amulet-name-service:Splice.Ans:AnsEntry"
	TemplateAnsEntryContext = "#splice-amulet-name-service:Splice.Ans:AnsEntryContext"
)

// AnsConfig is the AnsRules' config, with the name service's acronym.
type AnsConfig struct {
	// Acronym ends every user's name (".unverified.<acronym>") and names
	// the DSO ("dso.<acronym>"); the Canton Network's is "cns".
	Acronym string
	// EntryFeeUSD is each payment (Splice: 1.0 USD).
	EntryFeeUSD coin.Amount
	// EntryLifetime is how long a payment keeps the entry (Splice: 90
	// days): the subscription's payment interval.
	EntryLifetime time.Duration
	// RenewalDuration is how long before expiry the renewal may be paid
	// (Splice: 30 days): the subscription's payment duration.
	RenewalDuration time.Duration
	// DescriptionPrefix begins the subscription's description (Splice:
	// "ANS entry: ").
	DescriptionPrefix string
}

// DefaultAnsConfig is the real network's (SpliceUtil.defaultAnsConfig).
func DefaultAnsConfig() AnsConfig {
	return AnsConfig{
		Acronym: "cns", EntryFeeUSD: coin.MustParse("1"), EntryLifetime: 90 * 24 * time.Hour,
		RenewalDuration: 30 * 24 * time.Hour, DescriptionPrefix: "ANS entry: ",
	}
}

// The bounds of an entry's fields, as the real validator and DSO
// automation check them (AnsUtil).
const (
	MaxAnsNameLen        = 60
	MaxAnsURLLen         = 255
	MaxAnsDescriptionLen = 140
)

// AnsSuffix is what every user's name ends with.
func (c AnsConfig) AnsSuffix() string { return ".unverified." + c.Acronym }

// DSOName is the DSO's own name, which scan answers without a contract.
func (c AnsConfig) DSOName() string { return "dso." + c.Acronym }

// ansLabel is the part of a name before the suffix (AnsUtil's regex).
var ansLabel = regexp.MustCompile(`^[a-z0-9_-]+$`)

// CheckAnsName refuses a name the real DSO automation would reject: 1 to
// 60 minus the suffix's length of a-z, 0-9, '-' and '_', then the suffix.
func (c AnsConfig) CheckAnsName(name string) error {
	suffix := c.AnsSuffix()
	label, ok := strings.CutSuffix(name, suffix)
	max := MaxAnsNameLen - len(suffix)
	switch {
	case name == "":
		return invalid("name", "is required")
	case !ok:
		return invalid("name", "%q must end with %s", clip(name, MaxAnsNameLen+20), suffix)
	case label == "" || len(label) > max || !ansLabel.MatchString(label):
		return invalid("name", "%q: the part before %s must be 1 to %d lower-case letters, digits, '-' or '_'", clip(name, MaxAnsNameLen+20), suffix, max)
	}
	return nil
}

// checkAnsURL refuses a URL that is neither empty nor an absolute http or
// https URL of at most MaxAnsURLLen characters.
func checkAnsURL(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxAnsURLLen {
		return invalid("url", "must be at most %d characters", MaxAnsURLLen)
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid("url", "must be empty or an http or https URL such as https://example.com")
	}
	return textFields("url", s)
}

// checkAnsDescription refuses a description over MaxAnsDescriptionLen
// characters.
func checkAnsDescription(s string) error {
	if utf8.RuneCountInString(s) > MaxAnsDescriptionLen {
		return invalid("description", "must be at most %d characters", MaxAnsDescriptionLen)
	}
	return textFields("description", s)
}

// Daml-JSON payloads of Splice.Ans.
type ansRulesConfig struct {
	RenewalDuration   damlRelTime `json:"renewalDuration"`
	EntryLifetime     damlRelTime `json:"entryLifetime"`
	EntryFee          coin.Amount `json:"entryFee"`
	DescriptionPrefix string      `json:"descriptionPrefix"`
}

type ansRulesPayload struct {
	DSO    coin.PartyID   `json:"dso"`
	Config ansRulesConfig `json:"config"`
}

type ansEntryContextPayload struct {
	DSO         coin.PartyID    `json:"dso"`
	User        coin.PartyID    `json:"user"`
	Name        string          `json:"name"`
	URL         string          `json:"url"`
	Description string          `json:"description"`
	Reference   coin.ContractID `json:"reference"`
}

type ansEntryPayload struct {
	User        coin.PartyID `json:"user"`
	DSO         coin.PartyID `json:"dso"`
	Name        string       `json:"name"`
	URL         string       `json:"url"`
	Description string       `json:"description"`
	ExpiresAt   string       `json:"expiresAt"`
}

func (l *Ledger) ansRulesPayload() ansRulesPayload {
	c := l.ans
	return ansRulesPayload{DSO: l.dso, Config: ansRulesConfig{
		RenewalDuration: relTime(c.RenewalDuration), EntryLifetime: relTime(c.EntryLifetime),
		EntryFee: c.EntryFeeUSD, DescriptionPrefix: c.DescriptionPrefix,
	}}
}

// AnsConfig returns the name service's config.
func (l *Ledger) AnsConfig() AnsConfig { return l.ans }

// AnsRules is the network's AnsRules contract.
func (l *Ledger) AnsRules(ctx context.Context) (Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateAnsRules, "")
	if err != nil {
		return Contract{}, err
	}
	if len(cs) == 0 {
		return Contract{}, fmt.Errorf("AnsRules: %w", ErrNotFound)
	}
	return l.contractView(&cs[0]), nil
}

// ensureAnsRules creates the AnsRules contract of a ledger bootstrapped
// before the name service (genesis creates it on new ones).
func (l *Ledger) ensureAnsRules(ctx context.Context) error {
	if _, err := l.AnsRules(ctx); !errors.Is(err, ErrNotFound) {
		return err
	}
	return l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.db.LockKey(ctx, c.tx, "ccwallet:bootstrap"); err != nil {
			return err
		}
		cs, err := store.ActiveContractsByTemplate(ctx, c.tx, TemplateAnsRules, "")
		if err != nil || len(cs) > 0 {
			return err
		}
		t, err := c.begin(ctx, "ans-rules")
		if err != nil {
			return err
		}
		t.create(TemplateAnsRules, l.ansRulesPayload(), l.dso)
		return nil
	})
}

// AnsEntry is a live name: ContractID is empty and ExpiresAt zero for the
// DSO's own name, which has no contract and does not expire.
type AnsEntry struct {
	ContractID  coin.ContractID
	User        coin.PartyID
	Name        string
	URL         string
	Description string
	ExpiresAt   time.Time
}

// AnsName is one of a user's names, paid or waiting for its first
// payment, for the Names page.
type AnsName struct {
	Name        string
	URL         string
	Description string
	// ContextCID is the request (AnsEntryContext); SubscriptionRequestCID
	// the subscription request that pays for it.
	ContextCID             coin.ContractID
	SubscriptionRequestCID coin.ContractID
	// EntryCID is the entry once paid (empty before), ExpiresAt its expiry.
	EntryCID  coin.ContractID
	ExpiresAt time.Time
	// Expired is set when the entry's time is up but the expiry automation
	// has not removed it yet.
	Expired bool
	// Collecting is set on a request whose first payment is made and
	// waits for the DSO's collection; a request without entry and
	// without it waits for the user to accept its subscription.
	Collecting bool
}

func ansEntryOf(n *store.AnsName) AnsEntry {
	return AnsEntry{ContractID: n.EntryCID, User: n.Owner, Name: n.Name, URL: n.URL, Description: n.Description, ExpiresAt: n.ExpiresAt.Time.UTC()}
}

func (l *Ledger) dsoAnsEntry() AnsEntry { return AnsEntry{User: l.dso, Name: l.ans.DSOName()} }

// AnsEntryByName is the live entry named exactly name.
func (l *Ledger) AnsEntryByName(ctx context.Context, name string) (AnsEntry, error) {
	if name == l.ans.DSOName() {
		return l.dsoAnsEntry(), nil
	}
	if len(name) > MaxAnsNameLen {
		return AnsEntry{}, fmt.Errorf("ANS entry %q: %w", clip(name, MaxAnsNameLen+20), ErrNotFound)
	}
	ns, err := store.LiveAnsEntries(ctx, l.db, store.AnsQuery{Now: l.now(), Name: name})
	if err != nil {
		return AnsEntry{}, err
	}
	if len(ns) == 0 {
		return AnsEntry{}, fmt.Errorf("ANS entry %q: %w", name, ErrNotFound)
	}
	return ansEntryOf(&ns[0]), nil
}

// AnsEntryByParty is party's first live entry in name order, as scan
// answers.
func (l *Ledger) AnsEntryByParty(ctx context.Context, party coin.PartyID) (AnsEntry, error) {
	if party == l.dso {
		return l.dsoAnsEntry(), nil
	}
	es, err := l.AnsEntriesOf(ctx, party)
	if err != nil {
		return AnsEntry{}, err
	}
	if len(es) == 0 {
		return AnsEntry{}, fmt.Errorf("ANS entry of %s: %w", party, ErrNotFound)
	}
	first := es[0]
	for _, e := range es[1:] {
		if e.Name < first.Name {
			first = e
		}
	}
	return first, nil
}

// MaxAnsPageSize bounds a list of entries.
const MaxAnsPageSize = 1000

// AnsEntries lists up to pageSize live entries whose name begins with
// prefix, oldest first, as scan's ans-entries.
func (l *Ledger) AnsEntries(ctx context.Context, prefix string, pageSize int) ([]AnsEntry, error) {
	if pageSize < 1 || pageSize > MaxAnsPageSize {
		return nil, invalid("page_size", "must be between 1 and %d", MaxAnsPageSize)
	}
	if len(prefix) > MaxAnsNameLen {
		return []AnsEntry{}, nil // no name is that long
	}
	ns, err := store.LiveAnsEntries(ctx, l.db, store.AnsQuery{Now: l.now(), Prefix: prefix, Limit: pageSize})
	return ansEntries(ns), err
}

// AnsEntriesOf lists party's live entries, oldest first.
func (l *Ledger) AnsEntriesOf(ctx context.Context, party coin.PartyID) ([]AnsEntry, error) {
	ns, err := store.LiveAnsEntries(ctx, l.db, store.AnsQuery{Now: l.now(), Owners: []coin.PartyID{party}})
	return ansEntries(ns), err
}

func ansEntries(ns []store.AnsName) []AnsEntry {
	out := make([]AnsEntry, 0, len(ns))
	for i := range ns {
		out = append(out, ansEntryOf(&ns[i]))
	}
	return out
}

// AnsNamesOf lists party's names and its requests for names still on
// their way (the subscription request open, or its first payment made), by
// name. A request whose subscription was rejected, or whose payment was
// refused or expired, is left out: it will never be paid.
func (l *Ledger) AnsNamesOf(ctx context.Context, party coin.PartyID) ([]AnsName, error) {
	ns, err := store.AnsNamesOf(ctx, l.db, party)
	if err != nil {
		return nil, err
	}
	open, paying, err := l.openSubscriptionSteps(ctx, party)
	if err != nil {
		return nil, err
	}
	now := l.now()
	out := make([]AnsName, 0, len(ns))
	for _, n := range ns {
		if n.EntryCID == "" && !open[n.ReferenceCID] && !paying[n.ReferenceCID] {
			continue
		}
		out = append(out, AnsName{
			Name: n.Name, URL: n.URL, Description: n.Description, ContextCID: n.ContextCID, SubscriptionRequestCID: n.ReferenceCID,
			EntryCID: n.EntryCID, ExpiresAt: n.ExpiresAt.Time.UTC(), Expired: n.EntryCID != "" && !n.ExpiresAt.Time.After(now),
			Collecting: n.EntryCID == "" && paying[n.ReferenceCID],
		})
	}
	return out, nil
}

// openSubscriptionSteps are party's open subscription requests and the
// requests whose initial payment waits for collection, by request.
func (l *Ledger) openSubscriptionSteps(ctx context.Context, party coin.PartyID) (open, paying map[coin.ContractID]bool, err error) {
	open, paying = map[coin.ContractID]bool{}, map[coin.ContractID]bool{}
	rs, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateSubscriptionRequest, party)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range rs {
		open[c.ContractID] = true
	}
	ps, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateSubscriptionInitialPayment, party)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range ps {
		var p struct {
			Reference coin.ContractID `json:"reference"`
		}
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			return nil, nil, fmt.Errorf("subscription initial payment %s: %w", c.ContractID, err)
		}
		paying[p.Reference] = true
	}
	return open, paying, nil
}

// NamesOf returns the name shown beside each of parties that has one (its
// first live name), in one read.
func (l *Ledger) NamesOf(ctx context.Context, parties []coin.PartyID) (map[coin.PartyID]string, error) {
	out := map[coin.PartyID]string{}
	var ask []coin.PartyID
	for _, p := range parties {
		if p == l.dso {
			out[p] = l.ans.DSOName()
		} else if p != "" {
			ask = append(ask, p)
		}
	}
	if len(ask) == 0 {
		return out, nil
	}
	ns, err := store.LiveAnsEntries(ctx, l.db, store.AnsQuery{Now: l.now(), Owners: ask})
	if err != nil {
		return nil, err
	}
	for _, n := range ns {
		if cur, ok := out[n.Owner]; !ok || n.Name < cur {
			out[n.Owner] = n.Name
		}
	}
	return out, nil
}

// ResolveParty reads what a user typed where a party is wanted: a party
// ID, or a name, which stands for its live entry's owner. field names the
// input in the error.
func (l *Ledger) ResolveParty(ctx context.Context, field, s string) (coin.PartyID, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", invalid(field, "is required")
	}
	if strings.Contains(s, "::") {
		p, err := coin.ParsePartyID(s)
		if err != nil {
			return "", invalid(field, "%v", err)
		}
		return p, nil
	}
	e, err := l.AnsEntryByName(ctx, s)
	if errors.Is(err, ErrNotFound) {
		if l.ans.CheckAnsName(s) != nil {
			return "", invalid(field, "no party has the name %s: enter a name such as alice%s or a whole party ID (name::1220 followed by 64 hex digits)", clip(s, MaxAnsNameLen+20), l.ans.AnsSuffix())
		}
		return "", invalid(field, "no party has the name %s", clip(s, MaxAnsNameLen+20))
	} else if err != nil {
		return "", err
	}
	return e.User, nil
}

// AnsRequest is a user's request for a name.
type AnsRequest struct {
	User        coin.PartyID
	Name        string
	URL         string
	Description string
}

// check bounds r's fields as the real DSO automation does.
func (c AnsConfig) check(r AnsRequest) error {
	if err := c.CheckAnsName(r.Name); err != nil {
		return err
	}
	if err := checkAnsURL(r.URL); err != nil {
		return err
	}
	return checkAnsDescription(r.Description)
}

// ansNameKey is the lock that orders the changes to one name.
func ansNameKey(name string) string { return "ans-name:" + name }

// liveHolder returns the row holding name's entry inside tx, after
// expiring it in t when its time is up; nil when the name is free.
func (t *txn) liveHolder(ctx context.Context, name string) (*store.AnsName, error) {
	n, err := store.AnsEntryRowByName(ctx, t.tx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if n.ExpiresAt.Time.After(t.now) {
		return n, nil
	}
	return nil, t.expireAnsEntry(ctx, n)
}

// createAnsContext records r's AnsEntryContext (AnsRules_RequestEntry),
// whose subscription request is reference, in t.
func (t *txn) createAnsContext(ctx context.Context, r AnsRequest, reference coin.ContractID) (coin.ContractID, error) {
	l := t.l
	cid := t.create(TemplateAnsEntryContext, ansEntryContextPayload{
		DSO: l.dso, User: r.User, Name: r.Name, URL: r.URL, Description: r.Description, Reference: reference,
	}, l.dso, r.User)
	return cid, store.InsertAnsName(ctx, t.tx, &store.AnsName{
		ContextCID: cid, ReferenceCID: reference, Name: r.Name, Owner: r.User, URL: r.URL, Description: r.Description, CreatedAt: t.now,
	})
}

// checkAnsRequest refuses r before anything is written: bad fields, or a
// name another live entry holds.
func (l *Ledger) checkAnsRequest(ctx context.Context, db bun.IDB, r AnsRequest) error {
	if err := l.ans.check(r); err != nil {
		return err
	}
	n, err := store.AnsEntryRowByName(ctx, db, r.Name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if n.ExpiresAt.Time.After(l.now()) {
		if n.Owner == r.User {
			return invalid("name", "%s is already yours", r.Name)
		}
		return invalid("name", "%s is taken", r.Name)
	}
	return nil
}

// AnsRequestResult is what a request for a name created.
type AnsRequestResult struct {
	EntryContextCID        coin.ContractID
	SubscriptionRequestCID coin.ContractID
}

// RequestAnsEntry is AnsRules_RequestEntry: r.User asks for r.Name, which
// creates the AnsEntryContext and a subscription request from the user to
// the DSO (provider and receiver) for the entry fee in USD every entry
// lifetime, payable within the renewal duration before it is due. The
// user accepts it in the wallet; the DSO's collection of the first payment
// creates the entry (initialPaid).
func (l *Ledger) RequestAnsEntry(ctx context.Context, r AnsRequest) (*AnsRequestResult, error) {
	var res *AnsRequestResult
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.checkAnsRequest(ctx, c.tx, r); err != nil {
			return err
		}
		t, err := c.begin(ctx, "request-ans-entry", r.User)
		if err != nil {
			return err
		}
		a := l.ans
		req, err := t.createSubscriptionRequest(ctx, SubscriptionRequestSpec{
			Sender: r.User, Receiver: l.dso, Provider: l.dso,
			Description: a.DescriptionPrefix + strconv.Quote(r.Name),
			Amount:      a.EntryFeeUSD, USD: true, Interval: a.EntryLifetime, Duration: a.RenewalDuration, App: ansAppName,
		})
		if err != nil {
			return err
		}
		cid, err := t.createAnsContext(ctx, r, req)
		res = &AnsRequestResult{EntryContextCID: cid, SubscriptionRequestCID: req}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("request name %s: %w", clip(r.Name, MaxAnsNameLen+20), err)
	}
	return res, nil
}

// ansAppName names the name service's hooks among the subscriptions' apps.
const ansAppName = "ans"

func init() { registerSubscriptionApp(ansAppName, ansApp{}) }

// ansApp is the name service's part in its subscriptions' life.
type ansApp struct{}

// ErrAnsNameTaken refuses a first payment for a name another live entry
// holds: the subscription's collection returns the payment.
var ErrAnsNameTaken = fmt.Errorf("%w: the name is taken", ErrSubscriptionRefused)

// initialPaid is AnsRules_CollectInitialEntryPayment's delivery: the
// entry of the request whose subscription request is req, expiring after
// the entry lifetime.
func (a ansApp) initialPaid(ctx context.Context, t *txn, req, _ coin.ContractID) error {
	n, err := store.AnsNameByReference(ctx, t.tx, req)
	if err != nil {
		return err
	}
	if err := t.l.db.LockKey(ctx, t.tx, ansNameKey(n.Name)); err != nil {
		return err
	}
	if n.EntryCID != "" {
		return fmt.Errorf("name %s: %w: its first payment was collected already", n.Name, ErrSubscriptionRefused)
	}
	holder, err := t.liveHolder(ctx, n.Name)
	if err != nil {
		return err
	}
	if holder != nil {
		return fmt.Errorf("name %s: %w", n.Name, ErrAnsNameTaken)
	}
	t.burnDSOPayment("AnsRules_CollectInitialEntryPayment", n.Name)
	expires := t.now.Add(t.l.ans.EntryLifetime)
	entry := t.createAnsEntry(n, expires)
	return store.SetAnsEntry(ctx, t.tx, n.ContextCID, "", entry, expires, t.now)
}

// burnDSOPayment burns the coin the collection in t just gave the DSO, as
// AnsRules' collections do (the amulet transferred to the DSO is archived):
// a name's fee leaves the supply. The DSO's history records the burn, so
// its balance's changes still add up.
func (t *txn) burnDSOPayment(choice, name string) {
	for i := len(t.holdings) - 1; i >= 0; i-- {
		h := t.holdings[i]
		if h.Owner != t.l.dso || h.LockHolder != "" {
			continue
		}
		t.holdings = append(t.holdings[:i], t.holdings[i+1:]...)
		t.burn(h.Amount)
		t.record(t.l.dso, "balance_change", choice, "", h.Amount.Neg(), coin.Zero, "burn of the payment for "+name, HistoryDetails{})
		return
	}
}

func (t *txn) createAnsEntry(n *store.AnsName, expires time.Time) coin.ContractID {
	return t.create(TemplateAnsEntry, ansEntryPayload{
		User: n.Owner, DSO: t.l.dso, Name: n.Name, URL: n.URL, Description: n.Description, ExpiresAt: FormatTime(expires),
	}, n.Owner, t.l.dso)
}

// renewalPaid is AnsRules_CollectEntryRenewalPayment's delivery
// (AnsEntry_Renew): the entry is recreated expiring one lifetime later.
// An entry already expired is not renewed, as the Daml requires.
func (a ansApp) renewalPaid(ctx context.Context, t *txn, req, _ coin.ContractID) error {
	n, err := store.AnsNameByReference(ctx, t.tx, req)
	if err != nil {
		return err
	}
	if n.EntryCID == "" || !n.ExpiresAt.Time.After(t.now) {
		return fmt.Errorf("name %s: %w: its entry expired before the renewal", n.Name, ErrSubscriptionRefused)
	}
	t.burnDSOPayment("AnsRules_CollectEntryRenewalPayment", n.Name)
	expires := n.ExpiresAt.Time.Add(t.l.ans.EntryLifetime)
	t.archive(n.EntryCID)
	entry := t.createAnsEntry(n, expires)
	return store.SetAnsEntry(ctx, t.tx, n.ContextCID, n.EntryCID, entry, expires, n.PaidAt.Time)
}

// expired ends the name when its subscription ended (a missed payment):
// the entry, if still there, and the context are archived
// (AnsEntry_Expire, AnsEntryContext_Terminate). A request never paid
// ends the same way.
func (a ansApp) expired(ctx context.Context, t *txn, req, _ coin.ContractID) error {
	n, err := store.AnsNameByReference(ctx, t.tx, req)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if n.EntryCID != "" {
		t.archive(n.EntryCID)
	}
	t.archive(n.ContextCID)
	return store.DeleteAnsName(ctx, t.tx, n.ContextCID)
}

// expireAnsEntry archives n's entry in t (AnsEntry_Expire): the name is
// free; the context stays until its subscription ends.
func (t *txn) expireAnsEntry(ctx context.Context, n *store.AnsName) error {
	t.archive(n.EntryCID)
	return store.SetAnsEntry(ctx, t.tx, n.ContextCID, n.EntryCID, "", time.Time{}, time.Time{})
}

// ansExpiryBatch bounds one expiry pass.
const ansExpiryBatch = 100

// ExpireAnsEntries archives the entries past their expiry (the DSO's
// expiry automation), one change each, and returns how many it expired.
// Lookups already skip them; this frees their rows.
func (l *Ledger) ExpireAnsEntries(ctx context.Context) (int, error) {
	ns, err := store.ExpiredAnsEntries(ctx, l.db, l.now(), ansExpiryBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, cand := range ns {
		done := false
		err := l.change(ctx, func(ctx context.Context, c *change) error {
			done = false
			if err := l.db.LockKey(ctx, c.tx, ansNameKey(cand.Name)); err != nil {
				return err
			}
			cur, err := store.AnsNameByReference(ctx, c.tx, cand.ReferenceCID)
			if errors.Is(err, store.ErrNotFound) {
				return nil // its subscription ended meanwhile
			} else if err != nil {
				return err
			}
			if cur.EntryCID != cand.EntryCID || cur.ExpiresAt.Time.After(l.now()) {
				return nil // renewed or expired meanwhile
			}
			t, err := c.begin(ctx, "expire-ans-entry")
			if err != nil {
				return err
			}
			done = true
			return t.expireAnsEntry(ctx, cur)
		})
		if err != nil {
			return n, fmt.Errorf("expire name %s: %w", cand.Name, err)
		}
		if done {
			n++
		}
	}
	return n, nil
}
