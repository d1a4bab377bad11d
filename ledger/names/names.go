// Package names is the name service (Splice.Ans) on the ledger's core:
// a user's requests for names, paid by a subscription (ledger/subscriptions)
// whose hooks (App) make, renew and end the entry; the ans_names read
// model, the lookups by name and by party, and ResolveParty for what a
// user types where a party is wanted; the rule for a name (CheckName,
// with the bounds of an entry's fields). The AnsRules contract and its
// config are the core's (ledger.AnsConfig).
package names

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
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
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
	TemplateAnsEntry        = "#splice-amulet-name-service:Splice.Ans:AnsEntry"
	TemplateAnsEntryContext = "#splice-amulet-name-service:Splice.Ans:AnsEntryContext"
)

// The bounds of an entry's fields, as the real validator and DSO
// automation check them (AnsUtil).
const (
	MaxNameLen        = 60
	MaxURLLen         = 255
	MaxDescriptionLen = 140
)

// Suffix is what every user's name ends with under c.
func Suffix(c ledger.AnsConfig) string { return ".unverified." + c.Acronym }

// DSOName is the DSO's own name under c, which scan answers without a
// contract.
func DSOName(c ledger.AnsConfig) string { return "dso." + c.Acronym }

// ansLabel is the part of a name before the suffix (AnsUtil's regex).
var ansLabel = regexp.MustCompile(`^[a-z0-9_-]+$`)

// CheckName refuses a name the real DSO automation would reject under c:
// 1 to 60 minus the suffix's length of a-z, 0-9, '-' and '_', then the
// suffix.
func CheckName(c ledger.AnsConfig, name string) error {
	suffix := Suffix(c)
	label, ok := strings.CutSuffix(name, suffix)
	max := MaxNameLen - len(suffix)
	switch {
	case name == "":
		return fault.Invalid("name", "is required")
	case !ok:
		return fault.Invalid("name", "%q must end with %s", bounds.Clip(name, MaxNameLen+20), suffix)
	case label == "" || len(label) > max || !ansLabel.MatchString(label):
		return fault.Invalid("name", "%q: the part before %s must be 1 to %d lower-case letters, digits, '-' or '_'", bounds.Clip(name, MaxNameLen+20), suffix, max)
	}
	return nil
}

// checkAnsURL refuses a URL that is neither empty nor an absolute http or
// https URL of at most MaxURLLen characters.
func checkAnsURL(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxURLLen {
		return fault.Invalid("url", "must be at most %d characters", MaxURLLen)
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fault.Invalid("url", "must be empty or an http or https URL such as https://example.com")
	}
	return bounds.TextFields("url", s)
}

// checkAnsDescription refuses a description over MaxDescriptionLen
// characters.
func checkAnsDescription(s string) error {
	if utf8.RuneCountInString(s) > MaxDescriptionLen {
		return fault.Invalid("description", "must be at most %d characters", MaxDescriptionLen)
	}
	return bounds.TextFields("description", s)
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

func (s *Service) dsoAnsEntry() AnsEntry {
	return AnsEntry{User: s.l.DSO(), Name: DSOName(s.l.AnsConfig())}
}

// AnsEntryByName is the live entry named exactly name.
func (s *Service) AnsEntryByName(ctx context.Context, name string) (AnsEntry, error) {
	if name == DSOName(s.l.AnsConfig()) {
		return s.dsoAnsEntry(), nil
	}
	if len(name) > MaxNameLen {
		return AnsEntry{}, fmt.Errorf("ANS entry %q: %w", bounds.Clip(name, MaxNameLen+20), fault.ErrNotFound)
	}
	ns, err := store.LiveAnsEntries(ctx, s.l.DB(), store.AnsQuery{Now: s.l.Now(), Name: name})
	if err != nil {
		return AnsEntry{}, err
	}
	if len(ns) == 0 {
		return AnsEntry{}, fmt.Errorf("ANS entry %q: %w", name, fault.ErrNotFound)
	}
	return ansEntryOf(&ns[0]), nil
}

// AnsEntryByParty is party's first live entry in name order, as scan
// answers.
func (s *Service) AnsEntryByParty(ctx context.Context, party coin.PartyID) (AnsEntry, error) {
	if party == s.l.DSO() {
		return s.dsoAnsEntry(), nil
	}
	es, err := s.AnsEntriesOf(ctx, party)
	if err != nil {
		return AnsEntry{}, err
	}
	if len(es) == 0 {
		return AnsEntry{}, fmt.Errorf("ANS entry of %s: %w", party, fault.ErrNotFound)
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
func (s *Service) AnsEntries(ctx context.Context, prefix string, pageSize int) ([]AnsEntry, error) {
	if pageSize < 1 || pageSize > MaxAnsPageSize {
		return nil, fault.Invalid("page_size", "must be between 1 and %d", MaxAnsPageSize)
	}
	if len(prefix) > MaxNameLen {
		return []AnsEntry{}, nil // no name is that long
	}
	ns, err := store.LiveAnsEntries(ctx, s.l.DB(), store.AnsQuery{Now: s.l.Now(), Prefix: prefix, Limit: pageSize})
	return ansEntries(ns), err
}

// AnsEntriesOf lists party's live entries, oldest first.
func (s *Service) AnsEntriesOf(ctx context.Context, party coin.PartyID) ([]AnsEntry, error) {
	ns, err := store.LiveAnsEntries(ctx, s.l.DB(), store.AnsQuery{Now: s.l.Now(), Owners: []coin.PartyID{party}})
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
func (s *Service) AnsNamesOf(ctx context.Context, party coin.PartyID) ([]AnsName, error) {
	ns, err := store.AnsNamesOf(ctx, s.l.DB(), party)
	if err != nil {
		return nil, err
	}
	open, paying, err := s.openSubscriptionSteps(ctx, party)
	if err != nil {
		return nil, err
	}
	now := s.l.Now()
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
func (s *Service) openSubscriptionSteps(ctx context.Context, party coin.PartyID) (open, paying map[coin.ContractID]bool, err error) {
	open, paying = map[coin.ContractID]bool{}, map[coin.ContractID]bool{}
	rs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), payments.TemplateSubscriptionRequest, party)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range rs {
		open[c.ContractID] = true
	}
	ps, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), payments.TemplateSubscriptionInitialPayment, party)
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
func (s *Service) NamesOf(ctx context.Context, parties []coin.PartyID) (map[coin.PartyID]string, error) {
	out := map[coin.PartyID]string{}
	var ask []coin.PartyID
	for _, p := range parties {
		if p == s.l.DSO() {
			out[p] = DSOName(s.l.AnsConfig())
		} else if p != "" {
			ask = append(ask, p)
		}
	}
	if len(ask) == 0 {
		return out, nil
	}
	ns, err := store.LiveAnsEntries(ctx, s.l.DB(), store.AnsQuery{Now: s.l.Now(), Owners: ask})
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
func (s *Service) ResolveParty(ctx context.Context, field, text string) (coin.PartyID, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", fault.Invalid(field, "is required")
	}
	if strings.Contains(text, "::") {
		p, err := coin.ParsePartyID(text)
		if err != nil {
			return "", fault.Invalid(field, "%v", err)
		}
		return p, nil
	}
	e, err := s.AnsEntryByName(ctx, text)
	if errors.Is(err, fault.ErrNotFound) {
		if CheckName(s.l.AnsConfig(), text) != nil {
			return "", fault.Invalid(field, "no party has the name %s: enter a name such as alice%s or a whole party ID (name::1220 followed by 64 hex digits)", bounds.Clip(text, MaxNameLen+20), Suffix(s.l.AnsConfig()))
		}
		return "", fault.Invalid(field, "no party has the name %s", bounds.Clip(text, MaxNameLen+20))
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
func checkRequest(c ledger.AnsConfig, r AnsRequest) error {
	if err := CheckName(c, r.Name); err != nil {
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
func (a ansApp) liveHolder(ctx context.Context, x *ledger.Tx, name string) (*store.AnsName, error) {
	n, err := store.AnsEntryRowByName(ctx, x.DB(), name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if n.ExpiresAt.Time.After(x.Now()) {
		return n, nil
	}
	return nil, a.expireAnsEntry(ctx, x, n)
}

// createAnsContext records r's AnsEntryContext (AnsRules_RequestEntry),
// whose subscription request is reference, in t.
func (a ansApp) createAnsContext(ctx context.Context, x *ledger.Tx, r AnsRequest, reference coin.ContractID) (coin.ContractID, error) {
	cid := x.Create(TemplateAnsEntryContext, ansEntryContextPayload{
		DSO: a.l.DSO(), User: r.User, Name: r.Name, URL: r.URL, Description: r.Description, Reference: reference,
	}, a.l.DSO(), r.User)
	return cid, store.InsertAnsName(ctx, x.DB(), &store.AnsName{
		ContextCID: cid, ReferenceCID: reference, Name: r.Name, Owner: r.User, URL: r.URL, Description: r.Description, CreatedAt: x.Now(),
	})
}

// checkAnsRequest refuses r before anything is written: bad fields, or a
// name another live entry holds.
func (s *Service) checkAnsRequest(ctx context.Context, db bun.IDB, r AnsRequest) error {
	if err := checkRequest(s.l.AnsConfig(), r); err != nil {
		return err
	}
	n, err := store.AnsEntryRowByName(ctx, db, r.Name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if n.ExpiresAt.Time.After(s.l.Now()) {
		if n.Owner == r.User {
			return fault.Invalid("name", "%s is already yours", r.Name)
		}
		return fault.Invalid("name", "%s is taken", r.Name)
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
func (s *Service) RequestAnsEntry(ctx context.Context, r AnsRequest) (*AnsRequestResult, error) {
	var res *AnsRequestResult
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := s.checkAnsRequest(ctx, x.DB(), r); err != nil {
			return err
		}
		if err := x.Begin(ctx, "request-ans-entry", r.User); err != nil {
			return err
		}
		c := s.l.AnsConfig()
		req, err := s.subs.CreateRequest(ctx, x, subscriptions.SubscriptionRequestSpec{
			Sender: r.User, Receiver: s.l.DSO(), Provider: s.l.DSO(),
			Description: c.DescriptionPrefix + strconv.Quote(r.Name),
			Amount:      c.EntryFeeUSD, USD: true, Interval: c.EntryLifetime, Duration: c.RenewalDuration, App: AppName,
		})
		if err != nil {
			return err
		}
		cid, err := s.app.createAnsContext(ctx, x, r, req)
		res = &AnsRequestResult{EntryContextCID: cid, SubscriptionRequestCID: req}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("request name %s: %w", bounds.Clip(r.Name, MaxNameLen+20), err)
	}
	return res, nil
}

// AppName names the name service's hooks among the subscriptions' apps.
const AppName = "ans"

// ansApp is the name service's part in its subscriptions' life.
type ansApp struct{ l *ledger.Ledger }

// App is the name service's hooks in its subscriptions' life, for
// subscriptions.New's apps under AppName.
func App(l *ledger.Ledger) subscriptions.App { return ansApp{l: l} }

// Service is the name service of one ledger.
type Service struct {
	l    *ledger.Ledger
	subs *subscriptions.Service
	app  ansApp
}

// New builds the name service of l, whose names are paid by subs' subscriptions
// (built with App under AppName).
func New(l *ledger.Ledger, subs *subscriptions.Service) *Service {
	return &Service{l: l, subs: subs, app: ansApp{l: l}}
}

// ErrAnsNameTaken refuses a first payment for a name another live entry
// holds: the subscription's collection returns the payment.
var ErrAnsNameTaken = fmt.Errorf("%w: the name is taken", subscriptions.ErrSubscriptionRefused)

// initialPaid is AnsRules_CollectInitialEntryPayment's delivery: the
// entry of the request whose subscription request is req, expiring after
// the entry lifetime.
func (a ansApp) InitialPaid(ctx context.Context, x *ledger.Tx, req, _ coin.ContractID) error {
	n, err := store.AnsNameByReference(ctx, x.DB(), req)
	if err != nil {
		return err
	}
	if err := x.LockKey(ctx, ansNameKey(n.Name)); err != nil {
		return err
	}
	if n.EntryCID != "" {
		return fmt.Errorf("name %s: %w: its first payment was collected already", n.Name, subscriptions.ErrSubscriptionRefused)
	}
	holder, err := a.liveHolder(ctx, x, n.Name)
	if err != nil {
		return err
	}
	if holder != nil {
		return fmt.Errorf("name %s: %w", n.Name, ErrAnsNameTaken)
	}
	a.burnDSOPayment(x, "AnsRules_CollectInitialEntryPayment", n.Name)
	expires := x.Now().Add(a.l.AnsConfig().EntryLifetime)
	entry := a.createAnsEntry(x, n, expires)
	return store.SetAnsEntry(ctx, x.DB(), n.ContextCID, "", entry, expires, x.Now())
}

// burnDSOPayment burns the coin the collection in t just gave the DSO, as
// AnsRules' collections do (the amulet transferred to the DSO is archived):
// a name's fee leaves the supply. The DSO's history records the burn, so
// its balance's changes still add up.
func (a ansApp) burnDSOPayment(x *ledger.Tx, choice, name string) {
	if amount, ok := x.BurnNewHolding(a.l.DSO()); ok {
		x.Record(a.l.DSO(), ledger.HistoryBalanceChange, choice, "", amount.Neg(), coin.Zero, "burn of the payment for "+name, ledger.HistoryDetails{})
	}
}

func (a ansApp) createAnsEntry(x *ledger.Tx, n *store.AnsName, expires time.Time) coin.ContractID {
	return x.Create(TemplateAnsEntry, ansEntryPayload{
		User: n.Owner, DSO: a.l.DSO(), Name: n.Name, URL: n.URL, Description: n.Description, ExpiresAt: ledger.FormatTime(expires),
	}, n.Owner, a.l.DSO())
}

// renewalPaid is AnsRules_CollectEntryRenewalPayment's delivery
// (AnsEntry_Renew): the entry is recreated expiring one lifetime later.
// An entry already expired is not renewed, as the Daml requires.
func (a ansApp) RenewalPaid(ctx context.Context, x *ledger.Tx, req, _ coin.ContractID) error {
	n, err := store.AnsNameByReference(ctx, x.DB(), req)
	if err != nil {
		return err
	}
	if n.EntryCID == "" || !n.ExpiresAt.Time.After(x.Now()) {
		return fmt.Errorf("name %s: %w: its entry expired before the renewal", n.Name, subscriptions.ErrSubscriptionRefused)
	}
	a.burnDSOPayment(x, "AnsRules_CollectEntryRenewalPayment", n.Name)
	expires := n.ExpiresAt.Time.Add(a.l.AnsConfig().EntryLifetime)
	x.Archive(n.EntryCID)
	entry := a.createAnsEntry(x, n, expires)
	return store.SetAnsEntry(ctx, x.DB(), n.ContextCID, n.EntryCID, entry, expires, n.PaidAt.Time)
}

// expired ends the name when its subscription ended (a missed payment):
// the entry, if still there, and the context are archived
// (AnsEntry_Expire, AnsEntryContext_Terminate). A request never paid
// ends the same way.
func (a ansApp) Expired(ctx context.Context, x *ledger.Tx, req, _ coin.ContractID) error {
	n, err := store.AnsNameByReference(ctx, x.DB(), req)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if n.EntryCID != "" {
		x.Archive(n.EntryCID)
	}
	x.Archive(n.ContextCID)
	return store.DeleteAnsName(ctx, x.DB(), n.ContextCID)
}

// expireAnsEntry archives n's entry in t (AnsEntry_Expire): the name is
// free; the context stays until its subscription ends.
func (a ansApp) expireAnsEntry(ctx context.Context, x *ledger.Tx, n *store.AnsName) error {
	x.Archive(n.EntryCID)
	return store.SetAnsEntry(ctx, x.DB(), n.ContextCID, n.EntryCID, "", time.Time{}, time.Time{})
}

// ansExpiryBatch bounds one expiry pass.
const ansExpiryBatch = 100

// ExpireAnsEntries archives the entries past their expiry (the DSO's
// expiry automation), one change each, and returns how many it expired.
// Lookups already skip them; this frees their rows.
func (s *Service) ExpireAnsEntries(ctx context.Context) (int, error) {
	ns, err := store.ExpiredAnsEntries(ctx, s.l.DB(), s.l.Now(), ansExpiryBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, cand := range ns {
		done := false
		err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
			done = false
			if err := x.LockKey(ctx, ansNameKey(cand.Name)); err != nil {
				return err
			}
			cur, err := store.AnsNameByReference(ctx, x.DB(), cand.ReferenceCID)
			if errors.Is(err, store.ErrNotFound) {
				return nil // its subscription ended meanwhile
			} else if err != nil {
				return err
			}
			if cur.EntryCID != cand.EntryCID || cur.ExpiresAt.Time.After(s.l.Now()) {
				return nil // renewed or expired meanwhile
			}
			if err := x.Begin(ctx, "expire-ans-entry"); err != nil {
				return err
			}
			done = true
			return s.app.expireAnsEntry(ctx, x, cur)
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
