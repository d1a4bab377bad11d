package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Subscriptions, as Splice's Splice.Wallet.Subscriptions: an app (the
// provider) asks a sender to pay an amount every interval to a receiver
// (SubscriptionRequest). The sender accepts by locking the first payment
// (SubscriptionInitialPayment) or rejects. The provider collects it: the
// coin goes to the receiver and the Subscription starts, idle until the
// next payment is due (SubscriptionIdleState). Within paymentDuration
// before nextPaymentDueAt the sender's wallet locks the next payment
// (SubscriptionPayment), which the provider collects in turn. A missed
// payment lets the subscription expire; the sender may cancel while no
// payment is in flight; a payment not collected before its lock expires
// returns to the sender. Every step is a contract of the generic contract
// store; subscription_apps keeps what the payloads do not (the app whose
// hooks run, the confirm page's redirect origins, the "could not pay"
// notice).

// Templates of the subscription workflow.
const (
	TemplateSubscriptionRequest        = "#splice-wallet-payments:Splice.Wallet.Subscriptions:SubscriptionRequest"
	TemplateSubscriptionInitialPayment = "#splice-wallet-payments:Splice.Wallet.Subscriptions:SubscriptionInitialPayment"
	TemplateSubscription               = "#splice-wallet-payments:Splice.Wallet.Subscriptions:Subscription"
	TemplateSubscriptionIdleState      = "#splice-wallet-payments:Splice.Wallet.Subscriptions:SubscriptionIdleState"
	TemplateSubscriptionPayment        = "#splice-wallet-payments:Splice.Wallet.Subscriptions:SubscriptionPayment"
	TemplateTerminatedSubscription     = "#splice-wallet-payments:Splice.Wallet.Subscriptions:TerminatedSubscription"
)

// Bounds of a subscription request.
const (
	MaxSubscriptionInterval = 5 * 366 * 24 * time.Hour
	MinSubscriptionInterval = time.Second
	MaxSubscriptionOrigins  = 8
	maxOriginLen            = 200
)

// SubscriptionData is Splice's SubscriptionData.
type SubscriptionData struct {
	Sender      coin.PartyID `json:"sender"`
	Receiver    coin.PartyID `json:"receiver"`
	Provider    coin.PartyID `json:"provider"`
	DSO         coin.PartyID `json:"dso"`
	Description string       `json:"description"`
}

// SubscriptionPayData is Splice's SubscriptionPayData.
type SubscriptionPayData struct {
	PaymentAmount   PaymentAmount `json:"paymentAmount"`
	PaymentInterval RelTime       `json:"paymentInterval"`
	PaymentDuration RelTime       `json:"paymentDuration"`
}

// SubscriptionRequestPayload is Splice's SubscriptionRequest.
type SubscriptionRequestPayload struct {
	SubscriptionData SubscriptionData    `json:"subscriptionData"`
	PayData          SubscriptionPayData `json:"payData"`
}

// subscriptionPayment is Splice's SubscriptionInitialPayment and, with
// Subscription and ThisPaymentDueAt, SubscriptionPayment.
type subscriptionPayment struct {
	Subscription     coin.ContractID     `json:"subscription,omitempty"`
	SubscriptionData SubscriptionData    `json:"subscriptionData"`
	PayData          SubscriptionPayData `json:"payData"`
	ThisPaymentDueAt string              `json:"thisPaymentDueAt,omitempty"`
	TargetAmount     coin.Amount         `json:"targetAmount"`
	LockedAmulet     coin.ContractID     `json:"lockedAmulet"`
	Round            roundRef            `json:"round"`
	Reference        coin.ContractID     `json:"reference"`
}

// subscriptionPayload is Splice's Subscription and TerminatedSubscription.
type subscriptionPayload struct {
	SubscriptionData SubscriptionData `json:"subscriptionData"`
	Reference        coin.ContractID  `json:"reference"`
}

// SubscriptionIdlePayload is Splice's SubscriptionIdleState.
type SubscriptionIdlePayload struct {
	Subscription     coin.ContractID     `json:"subscription"`
	SubscriptionData SubscriptionData    `json:"subscriptionData"`
	PayData          SubscriptionPayData `json:"payData"`
	NextPaymentDueAt string              `json:"nextPaymentDueAt"`
	Reference        coin.ContractID     `json:"reference"`
}

// SubscriptionRequestSpec is what an app asks for: Sender pays Amount
// (in CC, or in USD at the round's price when USD) every Interval to
// Receiver, and may pay each payment up to Duration before it is due. App
// names the hooks (registerSubscriptionApp) the collection calls; "" calls
// none. Origins are the http(s) origins the confirm page may send the
// user back to.
type SubscriptionRequestSpec struct {
	Sender, Receiver, Provider coin.PartyID
	Description                string
	Amount                     coin.Amount
	USD                        bool
	Interval, Duration         time.Duration
	App                        string
	Origins                    []string
}

// subscriptionApp is an app built on subscriptions: the collection calls
// it in the change that collects an initial payment (initialPaid), a
// later one (renewalPaid) or expires the subscription after a missed
// payment (expired); req is the request (the subscription's reference)
// and sub the Subscription. An error rolls the change back; one wrapping
// ErrSubscriptionRefused makes the collection refuse the initial payment
// instead (the coin goes back to the sender). A cancel by the sender calls
// no hook: what the app sold lives until the end of what was paid for.
type subscriptionApp interface {
	initialPaid(ctx context.Context, t *txn, req coin.ContractID, sub coin.ContractID) error
	renewalPaid(ctx context.Context, t *txn, req coin.ContractID, sub coin.ContractID) error
	expired(ctx context.Context, t *txn, req coin.ContractID, sub coin.ContractID) error
}

// ErrSubscriptionRefused is what an app hook returns to refuse a payment.
var ErrSubscriptionRefused = errors.New("subscription refused by its app")

var (
	subscriptionAppsMu sync.RWMutex
	subscriptionApps   = map[string]subscriptionApp{}
)

// registerSubscriptionApp makes app's hooks run for the subscriptions
// requested with App: provider (an app name such as "ans"); apps call it
// from init.
func registerSubscriptionApp(provider string, app subscriptionApp) {
	subscriptionAppsMu.Lock()
	defer subscriptionAppsMu.Unlock()
	subscriptionApps[provider] = app
}

func subscriptionAppNamed(name string) subscriptionApp {
	subscriptionAppsMu.RLock()
	defer subscriptionAppsMu.RUnlock()
	return subscriptionApps[name]
}

// ErrSubscriptionFinished is returned for a step on a subscription
// contract that was archived meanwhile.
var ErrSubscriptionFinished = fmt.Errorf("this subscription step is no longer pending: %w", ErrNotFound)

// checkOrigin refuses anything but a bare http(s) origin and returns it
// in the form a URL's origin compares with.
func checkOrigin(field, o string) (string, error) {
	origin, ok := parseOrigin(strings.TrimSuffix(o, "/"))
	if !ok || len(o) > maxOriginLen {
		return "", invalid(field, "want an http(s) origin such as https://app.example.com, not %q", o)
	}
	return origin, nil
}

// checkSubscriptionSpec bounds r and checks its parties.
func (l *Ledger) checkSubscriptionSpec(ctx context.Context, db bun.IDB, r *SubscriptionRequestSpec) error {
	if err := checkAmount("amount", r.Amount); err != nil {
		return err
	}
	if err := checkText("description", r.Description); err != nil {
		return err
	}
	if err := checkID("app", r.App); err != nil {
		return err
	}
	if r.Interval < MinSubscriptionInterval || r.Interval > MaxSubscriptionInterval {
		return invalid("paymentInterval", "must be between %s and %s", MinSubscriptionInterval, MaxSubscriptionInterval)
	}
	if r.Duration < MinSubscriptionInterval || r.Duration > r.Interval {
		return invalid("paymentDuration", "must be at least %s and at most the payment interval", MinSubscriptionInterval)
	}
	r.Interval, r.Duration = r.Interval.Truncate(time.Microsecond), r.Duration.Truncate(time.Microsecond)
	if len(r.Origins) > MaxSubscriptionOrigins {
		return invalid("origins", "at most %d", MaxSubscriptionOrigins)
	}
	for i, o := range r.Origins {
		var err error
		if r.Origins[i], err = checkOrigin("origins", o); err != nil {
			return err
		}
	}
	if r.Sender == r.Receiver {
		return invalid("sender", "the sender must differ from the receiver")
	}
	for _, p := range []coin.PartyID{r.Sender, r.Receiver, r.Provider} {
		if _, err := store.PartyByID(ctx, db, p); err != nil {
			return fmt.Errorf("party %s: %w", p, err)
		}
	}
	return nil
}

// createSubscriptionRequest creates a SubscriptionRequest inside t (an
// app's own change may create one with what it sells).
func (t *txn) createSubscriptionRequest(ctx context.Context, r SubscriptionRequestSpec) (coin.ContractID, error) {
	l := t.l
	if err := l.checkSubscriptionSpec(ctx, t.tx, &r); err != nil {
		return "", err
	}
	unit := UnitAmulet
	if r.USD {
		unit = UnitUSD
	}
	cid := t.create(TemplateSubscriptionRequest, SubscriptionRequestPayload{
		SubscriptionData: SubscriptionData{Sender: r.Sender, Receiver: r.Receiver, Provider: r.Provider, DSO: l.dso, Description: r.Description},
		PayData: SubscriptionPayData{PaymentAmount: PaymentAmount{Amount: r.Amount, Unit: unit},
			PaymentInterval: relTime(r.Interval), PaymentDuration: relTime(r.Duration)},
	}, r.Sender, r.Receiver, r.Provider)
	if err := store.InsertSubscriptionApp(ctx, t.tx, &store.SubscriptionApp{
		Reference: cid, Sender: r.Sender, App: r.App, Origins: strings.Join(r.Origins, " "),
	}); err != nil {
		return "", err
	}
	t.record(r.Sender, "notification", "SubscriptionRequest", r.Provider, coin.Zero, coin.Zero, r.Description, HistoryDetails{
		ContractID: cid, Notification: fmt.Sprintf("subscription request %s", cid),
	})
	return cid, nil
}

// RequestSubscription creates a subscription request on its own.
func (l *Ledger) RequestSubscription(ctx context.Context, r SubscriptionRequestSpec) (coin.ContractID, error) {
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		t, err := c.begin(ctx, "request-subscription")
		if err != nil {
			return err
		}
		cid, err = t.createSubscriptionRequest(ctx, r)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("request subscription from %s: %w", r.Sender, err)
	}
	return cid, nil
}

// subscriptionContract reads cid of template tmpl into p; another
// template's contract, or one party may not see, is not found.
func subscriptionContract(ctx context.Context, db bun.IDB, cid coin.ContractID, tmpl string, viewer coin.PartyID, p any) (*store.Contract, error) {
	c, err := store.ContractByID(ctx, db, cid)
	if err == nil && (c.TemplateID != tmpl || viewer != "" && !strings.Contains(c.Stakeholders, " "+string(viewer)+" ")) {
		err = ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", templateName(tmpl), cid, err)
	}
	if err := json.Unmarshal([]byte(c.Payload), p); err != nil {
		return nil, fmt.Errorf("%s %s: %w", templateName(tmpl), cid, err)
	}
	return c, nil
}

// templateName is the entity of a template ID.
func templateName(tmpl string) string { return tmpl[strings.LastIndex(tmpl, ":")+1:] }

// subscriptionStep reads the subscription contract cid of template tmpl
// for actor (who must be its role party, or "" for the automations) and
// takes the parties' locks, re-reading it under them: an archived one is
// ErrSubscriptionFinished.
func (l *Ledger) subscriptionStep(ctx context.Context, tx bun.Tx, cid coin.ContractID, tmpl string, actor coin.PartyID, role func(SubscriptionData) coin.PartyID, p any) (*SubscriptionData, error) {
	var probe struct {
		SubscriptionData SubscriptionData `json:"subscriptionData"`
	}
	if _, err := subscriptionContract(ctx, tx, cid, tmpl, actor, &probe); err != nil {
		return nil, err
	}
	d := probe.SubscriptionData
	if actor != "" && actor != role(d) {
		return nil, fmt.Errorf("%w: only %s may do this on %s %s", ErrForbidden, role(d), templateName(tmpl), cid)
	}
	if err := l.lockParties(ctx, tx, d.Sender, d.Receiver); err != nil {
		return nil, err
	}
	c, err := subscriptionContract(ctx, tx, cid, tmpl, "", p)
	if err != nil {
		return nil, err
	}
	if c.ArchivedOffset != nil {
		return nil, fmt.Errorf("%s %s: %w", templateName(tmpl), cid, ErrSubscriptionFinished)
	}
	return &d, nil
}

func senderOf(d SubscriptionData) coin.PartyID   { return d.Sender }
func receiverOf(d SubscriptionData) coin.PartyID { return d.Receiver }

// lockPayment locks one payment of pay from d's sender inside t: the
// target amount (USD at the round's price) plus the fee of a transfer of
// it to the receiver, locked to the payment contract cid until the round's
// target close or a tick from now, whichever is later (lockAndMakeChange).
// The lock also holds the holding fee it accrues until then (and a round
// more), so the receiver gets the whole target amount; what is left at
// collection goes back to the sender.
func (t *txn) lockPayment(ctx context.Context, cid coin.ContractID, d SubscriptionData, pay SubscriptionPayData) (target, lock coin.Amount, tr *TransferResult, err error) {
	rules := t.l.rules
	target = pay.PaymentAmount.Amount
	if pay.PaymentAmount.Unit == UnitUSD {
		target = USDToCoin(target, t.round.Price)
	}
	expires := t.now.Add(rules.TickDuration)
	if t.round.TargetClosesAt.After(expires) {
		expires = t.round.TargetClosesAt
	}
	rounds := int64(expires.Sub(t.now)/rules.TickDuration) + 2
	lock = target.Add(rules.OutputFee(target, t.round.Price, false)).Add(rules.HoldingRate(t.round.Price).MulInt(rounds))
	if err := checkFits("paymentAmount", lock); err != nil {
		return coin.Zero, coin.Zero, nil, err
	}
	tr, err = t.transfer(ctx, d.Sender, []Output{{Receiver: d.Sender, Amount: lock, Lock: &Lock{
		Holder: string(cid), ExpiresAt: expires, Context: "amulet-subscription: " + d.Description,
	}}})
	if err != nil {
		return coin.Zero, coin.Zero, nil, err
	}
	return target, lock, tr, nil
}

// AcceptSubscriptionRequest is SubscriptionRequest_AcceptAndMakePayment:
// the sender locks the first payment; it returns the
// SubscriptionInitialPayment. A repeated accept (a confirm page submitted
// twice) answers the first one's payment, within the deduplication
// window; one still running answers ErrInFlight.
func (l *Ledger) AcceptSubscriptionRequest(ctx context.Context, actor coin.PartyID, cid coin.ContractID) (coin.ContractID, error) {
	var paid coin.ContractID
	key := "subscription-accept:" + string(cid)
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		prev, err := l.claimCommand(ctx, c.tx, key)
		if err != nil {
			return err
		}
		if prev != nil && prev.Party == actor {
			paid = coin.ContractID(prev.Result)
			return nil
		}
		var p SubscriptionRequestPayload
		d, err := l.subscriptionStep(ctx, c.tx, cid, TemplateSubscriptionRequest, actor, senderOf, &p)
		if err != nil {
			return err
		}
		t, err := c.begin(ctx, "accept-subscription-request")
		if err != nil {
			return err
		}
		if err := t.usingRules(ctx); err != nil {
			return err
		}
		paid = coin.NewContractID()
		target, lock, tr, err := t.lockPayment(ctx, paid, *d, p.PayData)
		if err != nil {
			return err
		}
		t.archive(cid)
		t.createWithID(paid, TemplateSubscriptionInitialPayment, subscriptionPayment{
			SubscriptionData: *d, PayData: p.PayData, TargetAmount: target, LockedAmulet: tr.Outputs[0],
			Round: roundString(t.round.Number), Reference: cid,
		}, d.Sender, d.Receiver, d.Provider)
		t.record(d.Sender, "transfer", "SubscriptionRequest_AcceptAndMakePayment", d.Receiver, tr.cost(lock).Neg(),
			tr.Fees.Add(tr.HoldingFees), d.Description, HistoryDetails{Provider: d.Provider, HoldingFees: tr.HoldingFees, Fees: tr.Fees, ContractID: paid})
		t.afterCommit(func(ctx context.Context) error {
			return l.saveCommand(ctx, t, key, actor, "accept-subscription-request", string(paid))
		})
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("accept subscription request %s: %w", cid, err)
	}
	return paid, nil
}

// RejectSubscriptionRequest is SubscriptionRequest_Reject by the sender
// (or, by the receiver, SubscriptionRequest_Withdraw).
func (l *Ledger) RejectSubscriptionRequest(ctx context.Context, actor coin.PartyID, cid coin.ContractID) error {
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		var p SubscriptionRequestPayload
		role, choice := senderOf, "SubscriptionRequest_Reject"
		if probe, err := l.SubscriptionRequest(ctx, "", cid); err == nil && actor != "" && actor == probe.Data.Receiver {
			role, choice = receiverOf, "SubscriptionRequest_Withdraw"
		}
		d, err := l.subscriptionStep(ctx, c.tx, cid, TemplateSubscriptionRequest, actor, role, &p)
		if err != nil {
			return err
		}
		t, err := c.begin(ctx, "reject-subscription-request")
		if err != nil {
			return err
		}
		t.archive(cid)
		t.create(TemplateTerminatedSubscription, subscriptionPayload{SubscriptionData: *d, Reference: cid}, d.Sender, d.Receiver, d.Provider)
		t.record(d.Sender, "notification", choice, d.Provider, coin.Zero, coin.Zero, d.Description, HistoryDetails{
			ContractID: cid, Notification: fmt.Sprintf("subscription request %s ended", cid),
		})
		return nil
	})
	if err != nil {
		return fmt.Errorf("reject subscription request %s: %w", cid, err)
	}
	return nil
}

// CancelSubscription is SubscriptionIdleState_CancelSubscription: the
// sender ends the subscription whose idle state is cid (not while a
// payment is in flight: then there is no idle state).
func (l *Ledger) CancelSubscription(ctx context.Context, actor coin.PartyID, cid coin.ContractID) error {
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		var p SubscriptionIdlePayload
		d, err := l.subscriptionStep(ctx, c.tx, cid, TemplateSubscriptionIdleState, actor, senderOf, &p)
		if err != nil {
			return err
		}
		t, err := c.begin(ctx, "cancel-subscription")
		if err != nil {
			return err
		}
		t.endSubscription(cid, *d, p, "SubscriptionIdleState_CancelSubscription")
		return nil
	})
	if err != nil {
		return fmt.Errorf("cancel subscription %s: %w", cid, err)
	}
	return nil
}

// endSubscription archives the idle state cid and its subscription and
// creates the TerminatedSubscription.
func (t *txn) endSubscription(cid coin.ContractID, d SubscriptionData, p SubscriptionIdlePayload, choice string) {
	t.archive(cid, p.Subscription)
	t.create(TemplateTerminatedSubscription, subscriptionPayload{SubscriptionData: d, Reference: p.Reference}, d.Sender, d.Receiver, d.Provider)
	t.record(d.Sender, "notification", choice, d.Provider, coin.Zero, coin.Zero, d.Description, HistoryDetails{
		ContractID: p.Subscription, Notification: fmt.Sprintf("subscription %s ended", p.Subscription),
	})
}

// paymentOutcome is what becomes of a locked payment.
type paymentOutcome int

const (
	paymentCollect paymentOutcome = iota
	paymentRefuse                 // by the receiver (or its app)
	paymentExpire                 // its lock expired
)

// finishPayment ends the initial or later payment cid (payload p) inside
// t: collected, the receiver gets the target amount and the rest of the
// lock is burned as the transfer's fee; refused or expired, the coin goes
// back to the sender. It returns the subscription (empty when an initial
// payment did not start one).
func (t *txn) finishPayment(ctx context.Context, cid coin.ContractID, tmpl string, p subscriptionPayment, out paymentOutcome) (coin.ContractID, error) {
	d := p.SubscriptionData
	value, holdingFee, locked, err := t.releaseLock(ctx, p.LockedAmulet, cid)
	if err != nil {
		return "", err
	}
	if !locked {
		return "", notFoundf("LockedAmulet '%s' of %s '%s' is gone", p.LockedAmulet, templateName(tmpl), cid)
	}
	if err := t.usingRules(ctx, cid, p.LockedAmulet); err != nil {
		return "", err
	}
	t.archive(cid)
	initial := tmpl == TemplateSubscriptionInitialPayment
	choice := templateName(tmpl) + map[paymentOutcome]string{paymentCollect: "_Collect", paymentRefuse: "_Reject", paymentExpire: "_Expire"}[out]
	dh := HistoryDetails{Provider: d.Provider, HoldingFees: holdingFee, ContractID: cid}
	sub := p.Subscription
	switch {
	case out == paymentCollect:
		if initial {
			sub = t.create(TemplateSubscription, subscriptionPayload{SubscriptionData: d, Reference: p.Reference}, d.Sender, d.Receiver, d.Provider)
		}
		next := t.now.Add(p.PayData.PaymentInterval.Duration())
		if !initial {
			due, _ := time.Parse(time.RFC3339Nano, p.ThisPaymentDueAt)
			next = due.Add(p.PayData.PaymentInterval.Duration())
		}
		t.create(TemplateSubscriptionIdleState, SubscriptionIdlePayload{
			Subscription: sub, SubscriptionData: d, PayData: p.PayData, NextPaymentDueAt: FormatTime(next), Reference: p.Reference,
		}, d.Sender, d.Receiver, d.Provider)
		// unlockAndTransfer: the receiver gets the target amount, the
		// transfer's fee is burned, the rest is the sender's change. A lock
		// eaten into by holding fees (rounds jumped on a development
		// network) pays what it can, fee first.
		fee := coin.Min(value, t.l.rules.OutputFee(p.TargetAmount, t.round.Price, false))
		got := coin.Min(p.TargetAmount, value.Sub(fee))
		change := value.Sub(fee).Sub(got)
		if got.IsPositive() {
			t.newHolding(d.Receiver, got, nil)
		}
		if change.IsPositive() {
			t.newHolding(d.Sender, change, nil)
		}
		t.burn(fee)
		dh.Fees = fee
		// The sender's coin left its available balance when it was
		// locked; the change comes back.
		t.recordPair(d.Sender, d.Receiver, "transfer", choice, change, fee.Add(holdingFee), got, coin.Zero, d.Description, dh)
	default:
		if value.IsPositive() {
			t.newHolding(d.Sender, value, nil)
		}
		if initial {
			sub = ""
			t.create(TemplateTerminatedSubscription, subscriptionPayload{SubscriptionData: d, Reference: p.Reference}, d.Sender, d.Receiver, d.Provider)
		} else {
			// The payment is undone: the subscription is idle again,
			// with the same payment due.
			t.create(TemplateSubscriptionIdleState, SubscriptionIdlePayload{
				Subscription: sub, SubscriptionData: d, PayData: p.PayData, NextPaymentDueAt: p.ThisPaymentDueAt, Reference: p.Reference,
			}, d.Sender, d.Receiver, d.Provider)
		}
		t.record(d.Sender, "balance_change", choice, d.Receiver, value, holdingFee, d.Description, dh)
	}
	return sub, nil
}

// appOf returns the hooks of the subscription whose request is ref (nil
// when it names none or none is registered).
func appOf(ctx context.Context, db bun.IDB, ref coin.ContractID) (subscriptionApp, error) {
	s, err := store.SubscriptionAppByRef(ctx, db, ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil || s.App == "" {
		return nil, err
	}
	app := subscriptionAppNamed(s.App)
	if app == nil {
		return nil, fmt.Errorf("subscription %s: app %q is not registered", ref, s.App)
	}
	return app, nil
}

// SettlePayment makes outcome happen to the initial or later payment cid
// for actor: collect by the receiver (or "" for the provider's
// automation), refuse by the receiver, expire by anyone once its lock
// expired. A collection runs the app's hook in the same change.
func (l *Ledger) settlePayment(ctx context.Context, actor coin.PartyID, cid coin.ContractID, tmpl string, out paymentOutcome) error {
	return l.change(ctx, func(ctx context.Context, c *change) error {
		var p subscriptionPayment
		if _, err := l.subscriptionStep(ctx, c.tx, cid, tmpl, actor, receiverOf, &p); err != nil {
			return err
		}
		t, err := c.begin(ctx, "subscription-payment")
		if err != nil {
			return err
		}
		if out == paymentExpire && !l.lockExpired(ctx, c.tx, p.LockedAmulet, t.now) {
			return fmt.Errorf("%w: the payment's lock has not expired", ErrConflict)
		}
		sub, err := t.finishPayment(ctx, cid, tmpl, p, out)
		if err != nil || out != paymentCollect {
			return err
		}
		app, err := appOf(ctx, c.tx, p.Reference)
		if err != nil || app == nil {
			return err
		}
		if tmpl == TemplateSubscriptionInitialPayment {
			return app.initialPaid(ctx, t, p.Reference, sub)
		}
		return app.renewalPaid(ctx, t, p.Reference, sub)
	})
}

// lockExpired reports whether the locked holding cid's lock has expired
// at now (a holding already gone counts as expired).
func (l *Ledger) lockExpired(ctx context.Context, db bun.IDB, cid coin.ContractID, now time.Time) bool {
	hs, err := store.HoldingsByIDs(ctx, db, []coin.ContractID{cid})
	if err != nil || len(hs) != 1 {
		return true
	}
	return !now.Before(hs[0].LockExpiresAt.Time)
}

// CollectSubscriptions is the providers' automation, for the providers
// hosted here (every local party): it collects each payment whose lock is
// still live (an app hook's refusal refuses it), and expires each whose
// lock has expired, so the coin returns. It returns how many payments it
// ended.
func (l *Ledger) CollectSubscriptions(ctx context.Context) (int, error) {
	n := 0
	var errs []error
	for _, tmpl := range []string{TemplateSubscriptionInitialPayment, TemplateSubscriptionPayment} {
		cs, err := store.ActiveContractsByTemplate(ctx, l.db, tmpl, "")
		if err != nil {
			return n, err
		}
		for _, c := range cs {
			var p subscriptionPayment
			if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
				return n, fmt.Errorf("subscription payment %s: %w", c.ContractID, err)
			}
			out := paymentCollect
			if l.lockExpired(ctx, l.db, p.LockedAmulet, l.now()) {
				out = paymentExpire
			} else if !l.hosted(ctx, p.SubscriptionData.Provider) {
				continue
			}
			err := l.settlePayment(ctx, "", c.ContractID, tmpl, out)
			if out == paymentCollect && errors.Is(err, ErrSubscriptionRefused) {
				err = l.settlePayment(ctx, "", c.ContractID, tmpl, paymentRefuse)
			}
			switch {
			case err == nil:
				n++
			case errors.Is(err, ErrSubscriptionFinished), errors.Is(err, ErrReassigning):
				// Ended meanwhile, or on a later run.
			default:
				errs = append(errs, fmt.Errorf("subscription payment %s: %w", c.ContractID, err))
			}
		}
	}
	return n, errors.Join(errs...)
}

// hosted reports whether party's automation runs here: a party of this
// node whose key is here (not an external party).
func (l *Ledger) hosted(ctx context.Context, party coin.PartyID) bool {
	p, err := store.PartyByID(ctx, l.db, party)
	return err == nil && p.Kind != PartyKindExternal
}

// SubscriptionPayReport is what one run of the payment automation did.
type SubscriptionPayReport struct {
	Paid, Expired, Unpaid int
}

// PaySubscriptions is the senders' wallet automation
// (SubscriptionReadyForPaymentTrigger), for the senders hosted here: each
// idle subscription whose next payment is due within its paymentDuration
// is paid (SubscriptionIdleState_MakePayment); one the sender cannot
// afford gets a notice the wallet shows ("could not pay subscription …")
// and is tried again on the next run, and once its due time has passed
// unpaid it expires (SubscriptionIdleState_ExpireSubscription, with the
// app's hook).
func (l *Ledger) PaySubscriptions(ctx context.Context) (SubscriptionPayReport, error) {
	var rep SubscriptionPayReport
	cs, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateSubscriptionIdleState, "")
	if err != nil {
		return rep, err
	}
	var errs []error
	for _, c := range cs {
		var p SubscriptionIdlePayload
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			return rep, fmt.Errorf("subscription idle state %s: %w", c.ContractID, err)
		}
		due, err := time.Parse(time.RFC3339Nano, p.NextPaymentDueAt)
		if err != nil {
			return rep, fmt.Errorf("subscription idle state %s: %w", c.ContractID, err)
		}
		now := l.now()
		if !l.hosted(ctx, p.SubscriptionData.Sender) {
			// Its wallet pays elsewhere; a provider hosted here expires it
			// once a payment is missed (any signatory may).
			if due.Before(now) && l.hosted(ctx, p.SubscriptionData.Provider) {
				switch err := l.expireSubscription(ctx, c.ContractID); {
				case err == nil:
					rep.Expired++
				case errors.Is(err, ErrSubscriptionFinished), errors.Is(err, ErrReassigning):
				default:
					errs = append(errs, fmt.Errorf("expire subscription %s: %w", p.Subscription, err))
				}
			}
			continue
		}
		if now.Add(p.PayData.PaymentDuration.Duration()).Before(due) {
			continue
		}
		err = l.makePayment(ctx, c.ContractID)
		switch {
		case err == nil:
			rep.Paid++
			continue
		case errors.Is(err, ErrSubscriptionFinished), errors.Is(err, ErrReassigning):
			continue
		case errors.Is(err, ErrInsufficientFunds):
			rep.Unpaid++
			if err := l.noteUnpaid(ctx, p); err != nil {
				errs = append(errs, err)
			}
		default:
			errs = append(errs, fmt.Errorf("pay subscription %s: %w", p.Subscription, err))
			continue
		}
		if due.Before(now) {
			switch err := l.expireSubscription(ctx, c.ContractID); {
			case err == nil:
				rep.Expired++
			case errors.Is(err, ErrSubscriptionFinished), errors.Is(err, ErrReassigning):
			default:
				errs = append(errs, fmt.Errorf("expire subscription %s: %w", p.Subscription, err))
			}
		}
	}
	return rep, errors.Join(errs...)
}

// noteUnpaid records why the automation could not pay p's next payment.
func (l *Ledger) noteUnpaid(ctx context.Context, p SubscriptionIdlePayload) error {
	b, err := l.Balance(ctx, p.SubscriptionData.Sender)
	if err != nil {
		return err
	}
	amount, unit := humanCC(p.PayData.PaymentAmount.Amount), "CC"
	if p.PayData.PaymentAmount.Unit == UnitUSD {
		unit = "USD"
	}
	note := fmt.Sprintf("could not pay subscription %s: balance %s CC, payment %s %s plus fees", p.Subscription, humanCC(b.EffectiveUnlocked), amount, unit)
	return store.SetSubscriptionUnpaid(ctx, l.db, p.Reference, note, l.now())
}

// makePayment is SubscriptionIdleState_MakePayment on the idle state cid.
func (l *Ledger) makePayment(ctx context.Context, cid coin.ContractID) error {
	return l.change(ctx, func(ctx context.Context, c *change) error {
		var p SubscriptionIdlePayload
		d, err := l.subscriptionStep(ctx, c.tx, cid, TemplateSubscriptionIdleState, "", senderOf, &p)
		if err != nil {
			return err
		}
		t, err := c.begin(ctx, "subscription-make-payment")
		if err != nil {
			return err
		}
		due, err := time.Parse(time.RFC3339Nano, p.NextPaymentDueAt)
		if err != nil {
			return err
		}
		if t.now.Add(p.PayData.PaymentDuration.Duration()).Before(due) {
			return fmt.Errorf("%w: the next payment can be made from %s", ErrConflict, FormatTime(due.Add(-p.PayData.PaymentDuration.Duration())))
		}
		if err := t.usingRules(ctx, cid); err != nil {
			return err
		}
		paid := coin.NewContractID()
		target, lock, tr, err := t.lockPayment(ctx, paid, *d, p.PayData)
		if err != nil {
			return err
		}
		t.archive(cid)
		t.createWithID(paid, TemplateSubscriptionPayment, subscriptionPayment{
			Subscription: p.Subscription, SubscriptionData: *d, PayData: p.PayData, ThisPaymentDueAt: p.NextPaymentDueAt,
			TargetAmount: target, LockedAmulet: tr.Outputs[0], Round: roundString(t.round.Number), Reference: p.Reference,
		}, d.Sender, d.Receiver, d.Provider)
		t.record(d.Sender, "transfer", "SubscriptionIdleState_MakePayment", d.Receiver, tr.cost(lock).Neg(),
			tr.Fees.Add(tr.HoldingFees), d.Description, HistoryDetails{Provider: d.Provider, HoldingFees: tr.HoldingFees, Fees: tr.Fees, ContractID: paid})
		return store.SetSubscriptionUnpaid(ctx, c.tx, p.Reference, "", t.now)
	})
}

// expireSubscription is SubscriptionIdleState_ExpireSubscription: the
// payment due at nextPaymentDueAt was missed.
func (l *Ledger) expireSubscription(ctx context.Context, cid coin.ContractID) error {
	return l.change(ctx, func(ctx context.Context, c *change) error {
		var p SubscriptionIdlePayload
		d, err := l.subscriptionStep(ctx, c.tx, cid, TemplateSubscriptionIdleState, "", senderOf, &p)
		if err != nil {
			return err
		}
		t, err := c.begin(ctx, "expire-subscription")
		if err != nil {
			return err
		}
		due, err := time.Parse(time.RFC3339Nano, p.NextPaymentDueAt)
		if err != nil {
			return err
		}
		if !due.Before(t.now) {
			return fmt.Errorf("%w: the payment due at %s is not missed yet", ErrConflict, p.NextPaymentDueAt)
		}
		t.endSubscription(cid, *d, p, "SubscriptionIdleState_ExpireSubscription")
		app, err := appOf(ctx, c.tx, p.Reference)
		if err != nil || app == nil {
			return err
		}
		return app.expired(ctx, t, p.Reference, p.Subscription)
	})
}

// SubscriptionRequestView is a subscription request as the wallet shows
// it.
type SubscriptionRequestView struct {
	Contract Contract
	Data     SubscriptionData
	PayData  SubscriptionPayData
	// Origins are the origins the confirm page may redirect to.
	Origins []string
}

// SubscriptionRequest returns the request cid, active or not, if viewer
// ("" for anyone) is one of its parties.
func (l *Ledger) SubscriptionRequest(ctx context.Context, viewer coin.PartyID, cid coin.ContractID) (SubscriptionRequestView, error) {
	var p SubscriptionRequestPayload
	c, err := subscriptionContract(ctx, l.db, cid, TemplateSubscriptionRequest, viewer, &p)
	if err != nil {
		return SubscriptionRequestView{}, err
	}
	v := SubscriptionRequestView{Contract: l.contractView(c), Data: p.SubscriptionData, PayData: p.PayData}
	if s, err := store.SubscriptionAppByRef(ctx, l.db, cid); err == nil && s.Origins != "" {
		v.Origins = strings.Fields(s.Origins)
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return SubscriptionRequestView{}, err
	}
	return v, nil
}

// sendersContracts lists the active contracts of tmpl party is the
// sender of, oldest first.
func (l *Ledger) sendersContracts(ctx context.Context, tmpl string, party coin.PartyID) ([]Contract, []SubscriptionIdlePayload, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, l.db, tmpl, party)
	if err != nil {
		return nil, nil, err
	}
	out, ps := []Contract{}, []SubscriptionIdlePayload{}
	for i := range cs {
		// Every subscription payload has subscriptionData, and the idle
		// state's fields are a subset of the payment's.
		var p SubscriptionIdlePayload
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", templateName(tmpl), cs[i].ContractID, err)
		}
		if p.SubscriptionData.Sender == party {
			out, ps = append(out, l.contractView(&cs[i])), append(ps, p)
		}
	}
	return out, ps, nil
}

// SubscriptionRequests lists the active requests party is asked to pay.
func (l *Ledger) SubscriptionRequests(ctx context.Context, party coin.PartyID) ([]Contract, error) {
	cs, _, err := l.sendersContracts(ctx, TemplateSubscriptionRequest, party)
	return cs, err
}

// SubscriptionsAsked lists, as SubscriptionRequests and
// SubscriptionInitialPayments do (by tmpl), what the requests or initial
// payments ask of party, for the wallet's page.
func (l *Ledger) SubscriptionsAsked(ctx context.Context, tmpl string, party coin.PartyID) ([]SubscriptionRequestView, error) {
	if tmpl != TemplateSubscriptionRequest && tmpl != TemplateSubscriptionInitialPayment {
		return nil, fmt.Errorf("%s: not a subscription request or initial payment", tmpl)
	}
	cs, ps, err := l.sendersContracts(ctx, tmpl, party)
	if err != nil {
		return nil, err
	}
	out := make([]SubscriptionRequestView, len(cs))
	for i := range cs {
		out[i] = SubscriptionRequestView{Contract: cs[i], Data: ps[i].SubscriptionData, PayData: ps[i].PayData}
	}
	return out, nil
}

// SubscriptionInitialPayments lists party's initial payments not yet
// collected.
func (l *Ledger) SubscriptionInitialPayments(ctx context.Context, party coin.PartyID) ([]Contract, error) {
	cs, _, err := l.sendersContracts(ctx, TemplateSubscriptionInitialPayment, party)
	return cs, err
}

// SubscriptionView is a running subscription of the sender's: the
// Subscription and its state, idle (Idle) or with a payment in flight
// (Payment).
type SubscriptionView struct {
	Subscription Contract
	Idle         *Contract
	Payment      *Contract
	Data         SubscriptionData
	PayData      SubscriptionPayData
	// NextPaymentDueAt is when the next payment is due (while idle) or
	// the in-flight payment was due.
	NextPaymentDueAt time.Time
	// Unpaid is the payment automation's notice when it could not pay.
	Unpaid string
}

// Subscriptions lists party's running subscriptions as sender, oldest
// first.
func (l *Ledger) Subscriptions(ctx context.Context, party coin.PartyID) ([]SubscriptionView, error) {
	subs, _, err := l.sendersContracts(ctx, TemplateSubscription, party)
	if err != nil {
		return nil, err
	}
	idle, idleP, err := l.sendersContracts(ctx, TemplateSubscriptionIdleState, party)
	if err != nil {
		return nil, err
	}
	pay, _, err := l.sendersContracts(ctx, TemplateSubscriptionPayment, party)
	if err != nil {
		return nil, err
	}
	var payP []subscriptionPayment
	for _, c := range pay {
		var p subscriptionPayment
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return nil, err
		}
		payP = append(payP, p)
	}
	notes, err := store.SubscriptionAppsOf(ctx, l.db, party)
	if err != nil {
		return nil, err
	}
	unpaid := map[coin.ContractID]string{}
	for _, n := range notes {
		unpaid[n.Reference] = n.Unpaid
	}
	out := []SubscriptionView{}
	for _, s := range subs {
		v := SubscriptionView{Subscription: s}
		for i := range idle {
			if idleP[i].Subscription == s.ContractID {
				v.Idle, v.Data, v.PayData = &idle[i], idleP[i].SubscriptionData, idleP[i].PayData
				v.NextPaymentDueAt, _ = time.Parse(time.RFC3339Nano, idleP[i].NextPaymentDueAt)
				v.Unpaid = unpaid[idleP[i].Reference]
			}
		}
		for i := range pay {
			if payP[i].Subscription == s.ContractID {
				v.Payment, v.Data, v.PayData = &pay[i], payP[i].SubscriptionData, payP[i].PayData
				v.NextPaymentDueAt, _ = time.Parse(time.RFC3339Nano, payP[i].ThisPaymentDueAt)
			}
		}
		if v.Idle != nil || v.Payment != nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// RedirectTo returns where a confirm page may send its user after an
// answer: raw, when it is an http(s) URL whose origin the request names
// (so a link cannot make the wallet an open redirect), else "".
func (v SubscriptionRequestView) RedirectTo(raw string) string {
	if len(raw) > MaxReturnURL {
		return ""
	}
	for _, o := range v.Origins {
		if RedirectAllowed(o, raw) { // the app payments' rule, one for both
			return raw
		}
	}
	return ""
}
