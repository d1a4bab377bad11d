// Package subscriptions is Splice's subscriptions
// (Splice.Wallet.Subscriptions) on the ledger's core: requests, the
// initial and later payments, their collection and expiry automations,
// the read models the wallet shows, and the hooks of the apps built on
// them (the name service, ledger/names), passed to New.
package subscriptions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/payments"
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
	PaymentAmount   ledger.PaymentAmount `json:"paymentAmount"`
	PaymentInterval ledger.RelTime       `json:"paymentInterval"`
	PaymentDuration ledger.RelTime       `json:"paymentDuration"`
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
	Round            ledger.RoundRef     `json:"round"`
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
// names the hooks (New's apps) the collection calls; "" calls
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

// App is an app built on subscriptions: the collection calls
// it in the change that collects an initial payment (InitialPaid), a
// later one (RenewalPaid) or expires the subscription after a missed
// payment (Expired); req is the request (the subscription's reference)
// and sub the Subscription. An error rolls the change back; one wrapping
// ErrSubscriptionRefused makes the collection refuse the initial payment
// instead (the coin goes back to the sender). A cancel by the sender calls
// no hook: what the app sold lives until the end of what was paid for.
type App interface {
	InitialPaid(ctx context.Context, x *ledger.Tx, req coin.ContractID, sub coin.ContractID) error
	RenewalPaid(ctx context.Context, x *ledger.Tx, req coin.ContractID, sub coin.ContractID) error
	Expired(ctx context.Context, x *ledger.Tx, req coin.ContractID, sub coin.ContractID) error
}

// ErrSubscriptionRefused is what an app hook returns to refuse a payment.
var ErrSubscriptionRefused = errors.New("subscription refused by its app")

// Service is the subscription workflow of one ledger.
type Service struct {
	l    *ledger.Ledger
	apps map[string]App
}

// New builds the subscriptions of l; apps are the hooks of the apps built
// on them, by the name a request gives (SubscriptionRequestSpec.App).
func New(l *ledger.Ledger, apps map[string]App) *Service {
	return &Service{l: l, apps: apps}
}

// Automations are the steps a development network's time jump runs after
// the rounds it opened (given to devnet.New): due payments are paid, then
// collected.
func (s *Service) Automations() []func(context.Context) error {
	return []func(context.Context) error{
		func(ctx context.Context) error { _, err := s.PaySubscriptions(ctx); return err },
		func(ctx context.Context) error { _, err := s.CollectSubscriptions(ctx); return err },
	}
}

// ErrSubscriptionFinished is returned for a step on a subscription
// contract that was archived meanwhile.
var ErrSubscriptionFinished = fmt.Errorf("this subscription step is no longer pending: %w", fault.ErrNotFound)

// checkOrigin refuses anything but a bare http(s) origin and returns it
// in the form a URL's origin compares with.
func checkOrigin(field, o string) (string, error) {
	origin, ok := payments.ParseOrigin(strings.TrimSuffix(o, "/"))
	if !ok || len(o) > maxOriginLen {
		return "", fault.Invalid(field, "want an http(s) origin such as https://app.example.com, not %q", o)
	}
	return origin, nil
}

// checkSubscriptionSpec bounds r and checks its parties.
func (s *Service) checkSubscriptionSpec(ctx context.Context, db bun.IDB, r *SubscriptionRequestSpec) error {
	if err := bounds.CheckAmount("amount", r.Amount); err != nil {
		return err
	}
	if err := bounds.CheckText("description", r.Description); err != nil {
		return err
	}
	if err := bounds.CheckID("app", r.App); err != nil {
		return err
	}
	if r.Interval < MinSubscriptionInterval || r.Interval > MaxSubscriptionInterval {
		return fault.Invalid("paymentInterval", "must be between %s and %s", MinSubscriptionInterval, MaxSubscriptionInterval)
	}
	if r.Duration < MinSubscriptionInterval || r.Duration > r.Interval {
		return fault.Invalid("paymentDuration", "must be at least %s and at most the payment interval", MinSubscriptionInterval)
	}
	r.Interval, r.Duration = r.Interval.Truncate(time.Microsecond), r.Duration.Truncate(time.Microsecond)
	if len(r.Origins) > MaxSubscriptionOrigins {
		return fault.Invalid("origins", "at most %d", MaxSubscriptionOrigins)
	}
	for i, o := range r.Origins {
		var err error
		if r.Origins[i], err = checkOrigin("origins", o); err != nil {
			return err
		}
	}
	if r.Sender == r.Receiver {
		return fault.Invalid("sender", "the sender must differ from the receiver")
	}
	for _, p := range []coin.PartyID{r.Sender, r.Receiver, r.Provider} {
		if _, err := store.PartyByID(ctx, db, p); err != nil {
			return fmt.Errorf("party %s: %w", p, err)
		}
	}
	return nil
}

// CreateRequest creates a SubscriptionRequest inside x (an
// app's own change may create one with what it sells).
func (s *Service) CreateRequest(ctx context.Context, x *ledger.Tx, r SubscriptionRequestSpec) (coin.ContractID, error) {
	if err := s.checkSubscriptionSpec(ctx, x.DB(), &r); err != nil {
		return "", err
	}
	unit := payments.UnitAmulet
	if r.USD {
		unit = payments.UnitUSD
	}
	cid := x.Create(payments.TemplateSubscriptionRequest, SubscriptionRequestPayload{
		SubscriptionData: SubscriptionData{Sender: r.Sender, Receiver: r.Receiver, Provider: r.Provider, DSO: s.l.DSO(), Description: r.Description},
		PayData: SubscriptionPayData{PaymentAmount: ledger.PaymentAmount{Amount: r.Amount, Unit: unit},
			PaymentInterval: ledger.RelTimeOf(r.Interval), PaymentDuration: ledger.RelTimeOf(r.Duration)},
	}, r.Sender, r.Receiver, r.Provider)
	if err := store.InsertSubscriptionApp(ctx, x.DB(), &store.SubscriptionApp{
		Reference: cid, Sender: r.Sender, App: r.App, Origins: strings.Join(r.Origins, " "),
	}); err != nil {
		return "", err
	}
	x.Record(r.Sender, ledger.HistoryNotification, "SubscriptionRequest", r.Provider, coin.Zero, coin.Zero, r.Description, ledger.HistoryDetails{
		ContractID: cid, Notification: fmt.Sprintf("subscription request %s", cid),
	})
	return cid, nil
}

// RequestSubscription creates a subscription request on its own.
func (s *Service) RequestSubscription(ctx context.Context, r SubscriptionRequestSpec) (coin.ContractID, error) {
	var cid coin.ContractID
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.Begin(ctx, "request-subscription"); err != nil {
			return err
		}
		var err error
		cid, err = s.CreateRequest(ctx, x, r)
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
	if err == nil && (c.TemplateID != tmpl || viewer != "" && !store.PartyListHas(c.Stakeholders, viewer)) {
		err = fault.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", ledger.TemplateName(tmpl), cid, err)
	}
	if err := json.Unmarshal([]byte(c.Payload), p); err != nil {
		return nil, fmt.Errorf("%s %s: %w", ledger.TemplateName(tmpl), cid, err)
	}
	return c, nil
}

// subscriptionStep reads the subscription contract cid of template tmpl
// for actor (who must be its role party, or "" for the automations) and
// takes the parties' locks, re-reading it under them: an archived one is
// ErrSubscriptionFinished.
func (s *Service) subscriptionStep(ctx context.Context, x *ledger.Tx, cid coin.ContractID, tmpl string, actor coin.PartyID, role func(SubscriptionData) coin.PartyID, p any) (*SubscriptionData, error) {
	var probe struct {
		SubscriptionData SubscriptionData `json:"subscriptionData"`
	}
	if _, err := subscriptionContract(ctx, x.DB(), cid, tmpl, actor, &probe); err != nil {
		return nil, err
	}
	d := probe.SubscriptionData
	if actor != "" && actor != role(d) {
		return nil, fmt.Errorf("%w: only %s may do this on %s %s", fault.ErrForbidden, role(d), ledger.TemplateName(tmpl), cid)
	}
	if err := x.LockParties(ctx, d.Sender, d.Receiver); err != nil {
		return nil, err
	}
	c, err := subscriptionContract(ctx, x.DB(), cid, tmpl, "", p)
	if err != nil {
		return nil, err
	}
	if c.ArchivedOffset != nil {
		return nil, fmt.Errorf("%s %s: %w", ledger.TemplateName(tmpl), cid, ErrSubscriptionFinished)
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
func (s *Service) lockPayment(ctx context.Context, x *ledger.Tx, cid coin.ContractID, d SubscriptionData, pay SubscriptionPayData) (target, lock coin.Amount, tr *ledger.TransferResult, err error) {
	rules := x.Rules()
	target = pay.PaymentAmount.Amount
	if pay.PaymentAmount.Unit == payments.UnitUSD {
		target = ledger.USDToCoin(target, x.Round().Price)
	}
	expires := x.Now().Add(rules.TickDuration)
	if x.Round().TargetClosesAt.After(expires) {
		expires = x.Round().TargetClosesAt
	}
	rounds := int64(expires.Sub(x.Now())/rules.TickDuration) + 2
	lock = target.Add(rules.OutputFee(target, x.Round().Price, false)).Add(rules.HoldingRate(x.Round().Price).MulInt(rounds))
	if err := bounds.CheckFits("paymentAmount", lock); err != nil {
		return coin.Zero, coin.Zero, nil, err
	}
	tr, err = x.Transfer(ctx, d.Sender, []ledger.Output{{Receiver: d.Sender, Amount: lock, Lock: &ledger.Lock{
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
// window; one still running answers fault.ErrInFlight.
func (s *Service) AcceptSubscriptionRequest(ctx context.Context, actor coin.PartyID, cid coin.ContractID) (coin.ContractID, error) {
	var paid coin.ContractID
	key := "subscription-accept:" + string(cid)
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		prev, err := x.ClaimCommand(ctx, key)
		if err != nil {
			return err
		}
		if prev != nil && prev.Party == actor {
			paid = coin.ContractID(prev.Result)
			return nil
		}
		var p SubscriptionRequestPayload
		d, err := s.subscriptionStep(ctx, x, cid, payments.TemplateSubscriptionRequest, actor, senderOf, &p)
		if err != nil {
			return err
		}
		if err := x.Begin(ctx, "accept-subscription-request"); err != nil {
			return err
		}
		if err := x.UsingRules(ctx); err != nil {
			return err
		}
		paid = coin.NewContractID()
		target, lock, tr, err := s.lockPayment(ctx, x, paid, *d, p.PayData)
		if err != nil {
			return err
		}
		x.Archive(cid)
		x.CreateWithID(paid, payments.TemplateSubscriptionInitialPayment, subscriptionPayment{
			SubscriptionData: *d, PayData: p.PayData, TargetAmount: target, LockedAmulet: tr.Outputs[0],
			Round: ledger.RoundRefOf(x.Round().Number), Reference: cid,
		}, d.Sender, d.Receiver, d.Provider)
		x.Record(d.Sender, ledger.HistoryTransfer, "SubscriptionRequest_AcceptAndMakePayment", d.Receiver, tr.Cost(lock).Neg(),
			tr.Fees.Add(tr.HoldingFees), d.Description, ledger.HistoryDetails{Provider: d.Provider, HoldingFees: tr.HoldingFees, Fees: tr.Fees, ContractID: paid})
		x.SaveCommand(commands.Command{Key: key}, actor, "accept-subscription-request", string(paid))
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("accept subscription request %s: %w", cid, err)
	}
	return paid, nil
}

// RejectSubscriptionRequest is SubscriptionRequest_Reject by the sender
// (or, by the receiver, SubscriptionRequest_Withdraw).
func (s *Service) RejectSubscriptionRequest(ctx context.Context, actor coin.PartyID, cid coin.ContractID) error {
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		var p SubscriptionRequestPayload
		role, choice := senderOf, "SubscriptionRequest_Reject"
		if probe, err := s.SubscriptionRequest(ctx, "", cid); err == nil && actor != "" && actor == probe.Data.Receiver {
			role, choice = receiverOf, "SubscriptionRequest_Withdraw"
		}
		d, err := s.subscriptionStep(ctx, x, cid, payments.TemplateSubscriptionRequest, actor, role, &p)
		if err != nil {
			return err
		}
		if err := x.Begin(ctx, "reject-subscription-request"); err != nil {
			return err
		}
		x.Archive(cid)
		x.Create(payments.TemplateTerminatedSubscription, subscriptionPayload{SubscriptionData: *d, Reference: cid}, d.Sender, d.Receiver, d.Provider)
		x.Record(d.Sender, ledger.HistoryNotification, choice, d.Provider, coin.Zero, coin.Zero, d.Description, ledger.HistoryDetails{
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
func (s *Service) CancelSubscription(ctx context.Context, actor coin.PartyID, cid coin.ContractID) error {
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		var p SubscriptionIdlePayload
		d, err := s.subscriptionStep(ctx, x, cid, payments.TemplateSubscriptionIdleState, actor, senderOf, &p)
		if err != nil {
			return err
		}
		if err := x.Begin(ctx, "cancel-subscription"); err != nil {
			return err
		}
		endSubscription(x, cid, *d, p, "SubscriptionIdleState_CancelSubscription")
		return nil
	})
	if err != nil {
		return fmt.Errorf("cancel subscription %s: %w", cid, err)
	}
	return nil
}

// endSubscription archives the idle state cid and its subscription and
// creates the TerminatedSubscription.
func endSubscription(x *ledger.Tx, cid coin.ContractID, d SubscriptionData, p SubscriptionIdlePayload, choice string) {
	x.Archive(cid, p.Subscription)
	x.Create(payments.TemplateTerminatedSubscription, subscriptionPayload{SubscriptionData: d, Reference: p.Reference}, d.Sender, d.Receiver, d.Provider)
	x.Record(d.Sender, ledger.HistoryNotification, choice, d.Provider, coin.Zero, coin.Zero, d.Description, ledger.HistoryDetails{
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
func (s *Service) finishPayment(ctx context.Context, x *ledger.Tx, cid coin.ContractID, tmpl string, p subscriptionPayment, out paymentOutcome) (coin.ContractID, error) {
	d := p.SubscriptionData
	value, holdingFee, locked, err := x.ReleaseLock(ctx, p.LockedAmulet, cid)
	if err != nil {
		return "", err
	}
	if !locked {
		return "", fault.NotFoundf("LockedAmulet '%s' of %s '%s' is gone", p.LockedAmulet, ledger.TemplateName(tmpl), cid)
	}
	if err := x.UsingRules(ctx, cid, p.LockedAmulet); err != nil {
		return "", err
	}
	x.Archive(cid)
	initial := tmpl == payments.TemplateSubscriptionInitialPayment
	choice := ledger.TemplateName(tmpl) + map[paymentOutcome]string{paymentCollect: "_Collect", paymentRefuse: "_Reject", paymentExpire: "_Expire"}[out]
	dh := ledger.HistoryDetails{Provider: d.Provider, HoldingFees: holdingFee, ContractID: cid}
	sub := p.Subscription
	switch {
	case out == paymentCollect:
		if initial {
			sub = x.Create(payments.TemplateSubscription, subscriptionPayload{SubscriptionData: d, Reference: p.Reference}, d.Sender, d.Receiver, d.Provider)
		}
		next := x.Now().Add(p.PayData.PaymentInterval.Duration())
		if !initial {
			due, _ := time.Parse(time.RFC3339Nano, p.ThisPaymentDueAt)
			next = due.Add(p.PayData.PaymentInterval.Duration())
		}
		x.Create(payments.TemplateSubscriptionIdleState, SubscriptionIdlePayload{
			Subscription: sub, SubscriptionData: d, PayData: p.PayData, NextPaymentDueAt: ledger.FormatTime(next), Reference: p.Reference,
		}, d.Sender, d.Receiver, d.Provider)
		// unlockAndTransfer: the receiver gets the target amount, the
		// transfer's fee is burned, the rest is the sender's change. A lock
		// eaten into by holding fees (rounds jumped on a development
		// network) pays what it can, fee first.
		fee := coin.Min(value, x.Rules().OutputFee(p.TargetAmount, x.Round().Price, false))
		got := coin.Min(p.TargetAmount, value.Sub(fee))
		change := value.Sub(fee).Sub(got)
		if got.IsPositive() {
			x.NewHolding(d.Receiver, got, nil)
		}
		if change.IsPositive() {
			x.NewHolding(d.Sender, change, nil)
		}
		x.Burn(fee)
		dh.Fees = fee
		// The sender's coin left its available balance when it was
		// locked; the change comes back.
		x.RecordPair(d.Sender, d.Receiver, ledger.HistoryTransfer, choice, change, fee.Add(holdingFee), got, coin.Zero, d.Description, dh)
	default:
		if value.IsPositive() {
			x.NewHolding(d.Sender, value, nil)
		}
		if initial {
			sub = ""
			x.Create(payments.TemplateTerminatedSubscription, subscriptionPayload{SubscriptionData: d, Reference: p.Reference}, d.Sender, d.Receiver, d.Provider)
		} else {
			// The payment is undone: the subscription is idle again,
			// with the same payment due.
			x.Create(payments.TemplateSubscriptionIdleState, SubscriptionIdlePayload{
				Subscription: sub, SubscriptionData: d, PayData: p.PayData, NextPaymentDueAt: p.ThisPaymentDueAt, Reference: p.Reference,
			}, d.Sender, d.Receiver, d.Provider)
		}
		x.Record(d.Sender, ledger.HistoryBalanceChange, choice, d.Receiver, value, holdingFee, d.Description, dh)
	}
	return sub, nil
}

// appOf returns the hooks of the subscription whose request is ref (nil
// when it names none or none is registered).
func (s *Service) appOf(ctx context.Context, db bun.IDB, ref coin.ContractID) (App, error) {
	a, err := store.SubscriptionAppByRef(ctx, db, ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil || a.App == "" {
		return nil, err
	}
	app := s.apps[a.App]
	if app == nil {
		return nil, fmt.Errorf("subscription %s: app %q is not registered", ref, a.App)
	}
	return app, nil
}

// SettlePayment makes outcome happen to the initial or later payment cid
// for actor: collect by the receiver (or "" for the provider's
// automation), refuse by the receiver, expire by anyone once its lock
// expired. A collection runs the app's hook in the same change.
func (s *Service) settlePayment(ctx context.Context, actor coin.PartyID, cid coin.ContractID, tmpl string, out paymentOutcome) error {
	return s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		var p subscriptionPayment
		if _, err := s.subscriptionStep(ctx, x, cid, tmpl, actor, receiverOf, &p); err != nil {
			return err
		}
		if err := x.Begin(ctx, "subscription-payment"); err != nil {
			return err
		}
		if out == paymentExpire && !s.lockExpired(ctx, x.DB(), p.LockedAmulet, x.Now()) {
			return fmt.Errorf("%w: the payment's lock has not expired", fault.ErrConflict)
		}
		sub, err := s.finishPayment(ctx, x, cid, tmpl, p, out)
		if err != nil || out != paymentCollect {
			return err
		}
		app, err := s.appOf(ctx, x.DB(), p.Reference)
		if err != nil || app == nil {
			return err
		}
		if tmpl == payments.TemplateSubscriptionInitialPayment {
			return app.InitialPaid(ctx, x, p.Reference, sub)
		}
		return app.RenewalPaid(ctx, x, p.Reference, sub)
	})
}

// lockExpired reports whether the locked holding cid's lock has expired
// at now (a holding already gone counts as expired).
func (s *Service) lockExpired(ctx context.Context, db bun.IDB, cid coin.ContractID, now time.Time) bool {
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
func (s *Service) CollectSubscriptions(ctx context.Context) (int, error) {
	n := 0
	var errs []error
	for _, tmpl := range []string{payments.TemplateSubscriptionInitialPayment, payments.TemplateSubscriptionPayment} {
		cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), tmpl, "")
		if err != nil {
			return n, err
		}
		for _, c := range cs {
			var p subscriptionPayment
			if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
				return n, fmt.Errorf("subscription payment %s: %w", c.ContractID, err)
			}
			out := paymentCollect
			if s.lockExpired(ctx, s.l.DB(), p.LockedAmulet, s.l.Now()) {
				out = paymentExpire
			} else if !s.l.Hosted(ctx, p.SubscriptionData.Provider) {
				continue
			}
			err := s.settlePayment(ctx, "", c.ContractID, tmpl, out)
			if out == paymentCollect && errors.Is(err, ErrSubscriptionRefused) {
				err = s.settlePayment(ctx, "", c.ContractID, tmpl, paymentRefuse)
			}
			switch {
			case err == nil:
				n++
			case errors.Is(err, ErrSubscriptionFinished), errors.Is(err, ledger.ErrReassigning):
				// Ended meanwhile, or on a later run.
			default:
				errs = append(errs, fmt.Errorf("subscription payment %s: %w", c.ContractID, err))
			}
		}
	}
	return n, errors.Join(errs...)
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
func (s *Service) PaySubscriptions(ctx context.Context) (SubscriptionPayReport, error) {
	var rep SubscriptionPayReport
	cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), payments.TemplateSubscriptionIdleState, "")
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
		now := s.l.Now()
		if !s.l.Hosted(ctx, p.SubscriptionData.Sender) {
			// Its wallet pays elsewhere; a provider hosted here expires it
			// once a payment is missed (any signatory may).
			if due.Before(now) && s.l.Hosted(ctx, p.SubscriptionData.Provider) {
				switch err := s.expireSubscription(ctx, c.ContractID); {
				case err == nil:
					rep.Expired++
				case errors.Is(err, ErrSubscriptionFinished), errors.Is(err, ledger.ErrReassigning):
				default:
					errs = append(errs, fmt.Errorf("expire subscription %s: %w", p.Subscription, err))
				}
			}
			continue
		}
		if now.Add(p.PayData.PaymentDuration.Duration()).Before(due) {
			continue
		}
		err = s.makePayment(ctx, c.ContractID)
		switch {
		case err == nil:
			rep.Paid++
			continue
		case errors.Is(err, ErrSubscriptionFinished), errors.Is(err, ledger.ErrReassigning):
			continue
		case errors.Is(err, fault.ErrInsufficientFunds):
			rep.Unpaid++
			if err := s.noteUnpaid(ctx, p); err != nil {
				errs = append(errs, err)
			}
		default:
			errs = append(errs, fmt.Errorf("pay subscription %s: %w", p.Subscription, err))
			continue
		}
		if due.Before(now) {
			switch err := s.expireSubscription(ctx, c.ContractID); {
			case err == nil:
				rep.Expired++
			case errors.Is(err, ErrSubscriptionFinished), errors.Is(err, ledger.ErrReassigning):
			default:
				errs = append(errs, fmt.Errorf("expire subscription %s: %w", p.Subscription, err))
			}
		}
	}
	return rep, errors.Join(errs...)
}

// noteUnpaid records why the automation could not pay p's next payment.
func (s *Service) noteUnpaid(ctx context.Context, p SubscriptionIdlePayload) error {
	b, err := s.l.Balance(ctx, p.SubscriptionData.Sender)
	if err != nil {
		return err
	}
	amount, unit := ledger.HumanCC(p.PayData.PaymentAmount.Amount), "CC"
	if p.PayData.PaymentAmount.Unit == payments.UnitUSD {
		unit = "USD"
	}
	note := fmt.Sprintf("could not pay subscription %s: balance %s CC, payment %s %s plus fees", p.Subscription, ledger.HumanCC(b.EffectiveUnlocked), amount, unit)
	return store.SetSubscriptionUnpaid(ctx, s.l.DB(), p.Reference, note, s.l.Now())
}

// makePayment is SubscriptionIdleState_MakePayment on the idle state cid.
func (s *Service) makePayment(ctx context.Context, cid coin.ContractID) error {
	return s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		var p SubscriptionIdlePayload
		d, err := s.subscriptionStep(ctx, x, cid, payments.TemplateSubscriptionIdleState, "", senderOf, &p)
		if err != nil {
			return err
		}
		if err := x.Begin(ctx, "subscription-make-payment"); err != nil {
			return err
		}
		due, err := time.Parse(time.RFC3339Nano, p.NextPaymentDueAt)
		if err != nil {
			return err
		}
		if x.Now().Add(p.PayData.PaymentDuration.Duration()).Before(due) {
			return fmt.Errorf("%w: the next payment can be made from %s", fault.ErrConflict, ledger.FormatTime(due.Add(-p.PayData.PaymentDuration.Duration())))
		}
		if err := x.UsingRules(ctx, cid); err != nil {
			return err
		}
		paid := coin.NewContractID()
		target, lock, tr, err := s.lockPayment(ctx, x, paid, *d, p.PayData)
		if err != nil {
			return err
		}
		x.Archive(cid)
		x.CreateWithID(paid, payments.TemplateSubscriptionPayment, subscriptionPayment{
			Subscription: p.Subscription, SubscriptionData: *d, PayData: p.PayData, ThisPaymentDueAt: p.NextPaymentDueAt,
			TargetAmount: target, LockedAmulet: tr.Outputs[0], Round: ledger.RoundRefOf(x.Round().Number), Reference: p.Reference,
		}, d.Sender, d.Receiver, d.Provider)
		x.Record(d.Sender, ledger.HistoryTransfer, "SubscriptionIdleState_MakePayment", d.Receiver, tr.Cost(lock).Neg(),
			tr.Fees.Add(tr.HoldingFees), d.Description, ledger.HistoryDetails{Provider: d.Provider, HoldingFees: tr.HoldingFees, Fees: tr.Fees, ContractID: paid})
		return store.SetSubscriptionUnpaid(ctx, x.DB(), p.Reference, "", x.Now())
	})
}

// expireSubscription is SubscriptionIdleState_ExpireSubscription: the
// payment due at nextPaymentDueAt was missed.
func (s *Service) expireSubscription(ctx context.Context, cid coin.ContractID) error {
	return s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		var p SubscriptionIdlePayload
		d, err := s.subscriptionStep(ctx, x, cid, payments.TemplateSubscriptionIdleState, "", senderOf, &p)
		if err != nil {
			return err
		}
		if err := x.Begin(ctx, "expire-subscription"); err != nil {
			return err
		}
		due, err := time.Parse(time.RFC3339Nano, p.NextPaymentDueAt)
		if err != nil {
			return err
		}
		if !due.Before(x.Now()) {
			return fmt.Errorf("%w: the payment due at %s is not missed yet", fault.ErrConflict, p.NextPaymentDueAt)
		}
		endSubscription(x, cid, *d, p, "SubscriptionIdleState_ExpireSubscription")
		app, err := s.appOf(ctx, x.DB(), p.Reference)
		if err != nil || app == nil {
			return err
		}
		return app.Expired(ctx, x, p.Reference, p.Subscription)
	})
}

// SubscriptionRequestView is a subscription request as the wallet shows
// it.
type SubscriptionRequestView struct {
	Contract ledger.Contract
	Data     SubscriptionData
	PayData  SubscriptionPayData
	// Origins are the origins the confirm page may redirect to.
	Origins []string
}

// SubscriptionRequest returns the request cid, active or not, if viewer
// ("" for anyone) is one of its parties.
func (s *Service) SubscriptionRequest(ctx context.Context, viewer coin.PartyID, cid coin.ContractID) (SubscriptionRequestView, error) {
	var p SubscriptionRequestPayload
	c, err := subscriptionContract(ctx, s.l.DB(), cid, payments.TemplateSubscriptionRequest, viewer, &p)
	if err != nil {
		return SubscriptionRequestView{}, err
	}
	v := SubscriptionRequestView{Contract: s.l.ContractView(c), Data: p.SubscriptionData, PayData: p.PayData}
	if s, err := store.SubscriptionAppByRef(ctx, s.l.DB(), cid); err == nil && s.Origins != "" {
		v.Origins = strings.Fields(s.Origins)
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return SubscriptionRequestView{}, err
	}
	return v, nil
}

// sendersContracts lists the active contracts of tmpl party is the
// sender of, oldest first.
func (s *Service) sendersContracts(ctx context.Context, tmpl string, party coin.PartyID) ([]ledger.Contract, []SubscriptionIdlePayload, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), tmpl, party)
	if err != nil {
		return nil, nil, err
	}
	out, ps := []ledger.Contract{}, []SubscriptionIdlePayload{}
	for i := range cs {
		// Every subscription payload has subscriptionData, and the idle
		// state's fields are a subset of the payment's.
		var p SubscriptionIdlePayload
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", ledger.TemplateName(tmpl), cs[i].ContractID, err)
		}
		if p.SubscriptionData.Sender == party {
			out, ps = append(out, s.l.ContractView(&cs[i])), append(ps, p)
		}
	}
	return out, ps, nil
}

// SubscriptionRequests lists the active requests party is asked to pay.
func (s *Service) SubscriptionRequests(ctx context.Context, party coin.PartyID) ([]ledger.Contract, error) {
	cs, _, err := s.sendersContracts(ctx, payments.TemplateSubscriptionRequest, party)
	return cs, err
}

// SubscriptionsAsked lists, as SubscriptionRequests and
// SubscriptionInitialPayments do (by tmpl), what the requests or initial
// payments ask of party, for the wallet's page.
func (s *Service) SubscriptionsAsked(ctx context.Context, tmpl string, party coin.PartyID) ([]SubscriptionRequestView, error) {
	if tmpl != payments.TemplateSubscriptionRequest && tmpl != payments.TemplateSubscriptionInitialPayment {
		return nil, fmt.Errorf("%s: not a subscription request or initial payment", tmpl)
	}
	cs, ps, err := s.sendersContracts(ctx, tmpl, party)
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
func (s *Service) SubscriptionInitialPayments(ctx context.Context, party coin.PartyID) ([]ledger.Contract, error) {
	cs, _, err := s.sendersContracts(ctx, payments.TemplateSubscriptionInitialPayment, party)
	return cs, err
}

// SubscriptionView is a running subscription of the sender's: the
// Subscription and its state, idle (Idle) or with a payment in flight
// (Payment).
type SubscriptionView struct {
	Subscription ledger.Contract
	Idle         *ledger.Contract
	Payment      *ledger.Contract
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
func (s *Service) Subscriptions(ctx context.Context, party coin.PartyID) ([]SubscriptionView, error) {
	subs, _, err := s.sendersContracts(ctx, payments.TemplateSubscription, party)
	if err != nil {
		return nil, err
	}
	idle, idleP, err := s.sendersContracts(ctx, payments.TemplateSubscriptionIdleState, party)
	if err != nil {
		return nil, err
	}
	pay, _, err := s.sendersContracts(ctx, payments.TemplateSubscriptionPayment, party)
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
	notes, err := store.SubscriptionAppsOf(ctx, s.l.DB(), party)
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
	if len(raw) > payments.MaxReturnURL {
		return ""
	}
	for _, o := range v.Origins {
		if payments.RedirectAllowed(o, raw) { // the app payments' rule, one for both
			return raw
		}
	}
	return ""
}
