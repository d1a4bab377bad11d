// Package apppayments is Splice's app payments (splice-wallet-payments'
// Payment.daml) on the ledger's core: an app's payment request, its
// acceptance, collection, refund and expiry, and the read model the
// wallet's confirm page shows.
package apppayments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
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

// App payments (splice-wallet-payments' Payment.daml): an app (its
// provider party) asks a sender for coin to one or more receivers with an
// AppPaymentRequest; the sender accepts, which locks the total plus the
// receivers' transfer fees in one change and creates the
// AcceptedAppPayment holding the lock, or rejects. The app then collects
// (the receivers get their amounts, the fees burn) or refunds (the coin
// returns to the sender). A request not accepted by its expiresAt
// expires; an accepted payment not collected by its lock's expiry (the
// accepting round's targetClosesAt, at least one tick) expires and its
// coin returns to the sender. Both are contracts of the generic contract
// store with their Daml-JSON payloads: active while pending, archived
// once ended. Unlike the real network no TerminatedAppPayment is created:
// an ended request or payment is its archived contract.

// Service is the app payments of one ledger.
type Service struct{ l *ledger.Ledger }

// New builds the app payments of l.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// MaxAppPaymentReceivers bounds the receivers of one payment request.
const MaxAppPaymentReceivers = 16

// ReceiverAmount is Payment.daml's ReceiverAmount.
type ReceiverAmount struct {
	Receiver coin.PartyID         `json:"receiver"`
	Amount   ledger.PaymentAmount `json:"amount"`
}

// AppPaymentRequest is Payment.daml's AppPaymentRequest, in Daml-JSON.
type AppPaymentRequest struct {
	Sender          coin.PartyID     `json:"sender"`
	ReceiverAmounts []ReceiverAmount `json:"receiverAmounts"`
	Provider        coin.PartyID     `json:"provider"`
	DSO             coin.PartyID     `json:"dso"`
	ExpiresAt       string           `json:"expiresAt"`
	Description     string           `json:"description"`
}

// ReceiverAmuletAmount is Payment.daml's ReceiverAmuletAmount.
type ReceiverAmuletAmount struct {
	Receiver     coin.PartyID `json:"receiver"`
	AmuletAmount coin.Amount  `json:"amuletAmount"`
}

// AcceptedAppPayment is Payment.daml's AcceptedAppPayment, in Daml-JSON.
type AcceptedAppPayment struct {
	Sender                coin.PartyID           `json:"sender"`
	AmuletReceiverAmounts []ReceiverAmuletAmount `json:"amuletReceiverAmounts"`
	Provider              coin.PartyID           `json:"provider"`
	DSO                   coin.PartyID           `json:"dso"`
	LockedAmulet          coin.ContractID        `json:"lockedAmulet"`
	Round                 ledger.RoundRef        `json:"round"`
	Reference             coin.ContractID        `json:"reference"`
}

// receivers are the request's receivers, in its order.
func (p *AppPaymentRequest) receivers() []coin.PartyID {
	out := make([]coin.PartyID, 0, len(p.ReceiverAmounts))
	for _, r := range p.ReceiverAmounts {
		out = append(out, r.Receiver)
	}
	return out
}

// stakeholders are the request's signatories: sender, receivers, provider.
func (p *AppPaymentRequest) stakeholders() []coin.PartyID {
	return append([]coin.PartyID{p.Sender, p.Provider}, p.receivers()...)
}

// receivers are the accepted payment's receivers, in its order.
func (p *AcceptedAppPayment) receivers() []coin.PartyID {
	out := make([]coin.PartyID, 0, len(p.AmuletReceiverAmounts))
	for _, r := range p.AmuletReceiverAmounts {
		out = append(out, r.Receiver)
	}
	return out
}

// stakeholders are the accepted payment's signatories.
func (p *AcceptedAppPayment) stakeholders() []coin.PartyID {
	return append([]coin.PartyID{p.Sender, p.Provider}, p.receivers()...)
}

// AppPaymentQuote is what paying a request costs the sender at a price:
// the receivers' amounts, their transfer fees, and the total the
// acceptance locks.
type AppPaymentQuote struct {
	Amount, Fees, Total coin.Amount
}

// quoteAppPayment is the one rule for a payment's fees: each receiver's
// output fee at price (none for the sender paying itself), as Splice's
// AppPaymentRequest_Accept precomputes them into the lock.
func quote(r ledger.Rules, sender coin.PartyID, amounts []ReceiverAmuletAmount, price coin.Amount) AppPaymentQuote {
	q := AppPaymentQuote{Amount: coin.Zero, Fees: coin.Zero}
	for _, a := range amounts {
		q.Amount = q.Amount.Add(a.AmuletAmount)
		q.Fees = q.Fees.Add(r.OutputFee(a.AmuletAmount, price, a.Receiver == sender))
	}
	q.Total = q.Amount.Add(q.Fees)
	return q
}

// amuletAmounts are the request's amounts in coin (every unit is
// AmuletUnit: checkAppPaymentRequest refused the others).
func (p *AppPaymentRequest) amuletAmounts() []ReceiverAmuletAmount {
	out := make([]ReceiverAmuletAmount, 0, len(p.ReceiverAmounts))
	for _, r := range p.ReceiverAmounts {
		out = append(out, ReceiverAmuletAmount{Receiver: r.Receiver, AmuletAmount: r.Amount.Amount})
	}
	return out
}

// checkAppPaymentRequest bounds a request and writes its times in the
// ledger's form.
func (s *Service) checkAppPaymentRequest(ctx context.Context, p *AppPaymentRequest, now time.Time) error {
	if n := len(p.ReceiverAmounts); n == 0 || n > MaxAppPaymentReceivers {
		return fault.Invalid("receiverAmounts", "a payment request has 1 to %d receivers, not %d", MaxAppPaymentReceivers, n)
	}
	if p.DSO == "" {
		p.DSO = s.l.DSO()
	}
	if p.DSO != s.l.DSO() {
		return fault.Invalid("dso", "%s is not this network's DSO party %s", p.DSO, s.l.DSO())
	}
	total := coin.Zero
	for i, r := range p.ReceiverAmounts {
		field := "receiverAmounts[" + strconv.Itoa(i) + "]"
		if r.Amount.Unit != payments.UnitAmulet {
			return fault.Invalid(field+".amount.unit", "%q is not taken here: app payments are in CC only (unit %q); convert the amount to CC first", r.Amount.Unit, payments.UnitAmulet)
		}
		if err := bounds.CheckAmount(field+".amount.amount", r.Amount.Amount); err != nil {
			return err
		}
		total = total.Add(r.Amount.Amount)
	}
	if err := bounds.CheckFits("receiverAmounts", total); err != nil {
		return err
	}
	if err := bounds.CheckText("description", p.Description); err != nil {
		return err
	}
	expires, err := bounds.ParseTime("expiresAt", p.ExpiresAt)
	if err != nil {
		return err
	}
	if err := bounds.CheckExpiry("expiresAt", expires, now); err != nil {
		return err
	}
	p.ExpiresAt = ledger.FormatTime(expires)
	ps := append([]coin.PartyID{p.Sender, p.Provider}, p.receivers()...)
	slices.Sort(ps)
	for _, party := range slices.Compact(ps) {
		if err := s.l.KnownParty(ctx, party); err != nil {
			return err
		}
	}
	return nil
}

// AppPaymentResult is what an app payment command made.
type AppPaymentResult struct {
	// Created is the request (on creation) or the accepted payment (on
	// acceptance); empty for the moves that only end one.
	Created coin.ContractID
	// SenderChangeCIDs are the sender's new holdings (change, or the
	// returned coin); ReceiverHoldingCIDs the receivers' on collection.
	SenderChangeCIDs    []coin.ContractID
	ReceiverHoldingCIDs []coin.ContractID
	Offset              int64
}

func (r *AppPaymentResult) Committed(offset int64) coin.ContractID {
	r.Offset = offset
	return r.Created
}

// RequestAppPayment creates an AppPaymentRequest: the app's provider asks
// the sender to pay the receivers. The provider and every receiver sign it
// (they must be among actAs); the sender consents when it accepts, which
// is the only step that moves its coin. cmd's key, when set, deduplicates
// the command, and its completion is written with it.
func (s *Service) RequestAppPayment(ctx context.Context, actAs []coin.PartyID, p AppPaymentRequest, cmd commands.Command) (*AppPaymentResult, error) {
	if err := s.checkAppPaymentRequest(ctx, &p, s.l.Now()); err != nil {
		return nil, fmt.Errorf("app payment request: %w", err)
	}
	if err := ledger.Authorized(actAs, "creating an AppPaymentRequest", append([]coin.PartyID{p.Provider}, p.receivers()...)...); err != nil {
		return nil, err
	}
	return s.appPaymentTx(ctx, cmd, "create-app-payment-request", "", "", func(x *ledger.Tx, _ *store.Contract) (*AppPaymentResult, error) {
		return &AppPaymentResult{Created: x.Create(payments.TemplateAppPaymentRequest, p, p.stakeholders()...)}, nil
	})
}

// appPaymentTx runs one app payment command as one ledger update
// (ledger.ContractCommand) on the active contract cid of template, if set,
// recording cmd.
func (s *Service) appPaymentTx(ctx context.Context, cmd commands.Command, kind string, cid coin.ContractID, template string, fn func(x *ledger.Tx, c *store.Contract) (*AppPaymentResult, error)) (*AppPaymentResult, error) {
	return ledger.ContractCommand(ctx, s.l, "app-payment:", cmd, kind, cid, func(ctx context.Context, tx bun.IDB) (*store.Contract, error) {
		return activeContractOf(ctx, tx, cid, template)
	}, fn)
}

// ErrAppPaymentFinished is returned for a move on a request or accepted
// payment that has ended already (or never existed).
var ErrAppPaymentFinished = fmt.Errorf("the app payment is no longer pending: %w", fault.ErrNotFound)

// activeContractOf reads the active contract cid of template inside db.
func activeContractOf(ctx context.Context, db bun.IDB, cid coin.ContractID, template string) (*store.Contract, error) {
	c, err := store.ContractByID(ctx, db, cid)
	if err == nil && (c.TemplateID != template || c.ArchivedOffset != nil) {
		err = ErrAppPaymentFinished
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", ledger.TemplateName(template), cid, err)
	}
	return c, nil
}

// decodePayload reads a stored contract's payload into v.
func decodePayload(c *store.Contract, v any) error {
	if err := json.Unmarshal([]byte(c.Payload), v); err != nil {
		return fmt.Errorf("contract %s: %w", c.ContractID, err)
	}
	return nil
}

// invisible is the error for a party that is no stakeholder of c: to it
// the contract does not exist.
func invisible(c *store.Contract) error {
	return fmt.Errorf("%s: %w", c.ContractID, ErrAppPaymentFinished)
}

// AcceptAppPayment is AppPaymentRequest_Accept by the sender: in one
// change it locks the receivers' amounts plus their transfer fees
// (at the open round's price) until the lock's expiry, and replaces the
// request with the AcceptedAppPayment holding the lock.
func (s *Service) AcceptAppPayment(ctx context.Context, sender coin.PartyID, cid coin.ContractID, cmd commands.Command) (*AppPaymentResult, error) {
	return s.appPaymentTx(ctx, cmd, "accept-app-payment-request", cid, payments.TemplateAppPaymentRequest, func(x *ledger.Tx, c *store.Contract) (*AppPaymentResult, error) {
		var p AppPaymentRequest
		if err := decodePayload(c, &p); err != nil {
			return nil, err
		}
		if !slices.Contains(p.stakeholders(), sender) {
			return nil, invisible(c)
		}
		if sender != p.Sender {
			return nil, fmt.Errorf("%w: only the sender %s may accept this payment request", fault.ErrForbidden, p.Sender)
		}
		expires, err := time.Parse(time.RFC3339Nano, p.ExpiresAt)
		if err != nil {
			return nil, err
		}
		if !x.Now().Before(expires) {
			return nil, &fault.Problem{Err: fault.ErrExpired, Msg: fmt.Sprintf("this payment request expired at %s and can no longer be accepted; ask the app for a new one", p.ExpiresAt)}
		}
		if err := x.UsingRules(ctx); err != nil {
			return nil, err
		}
		amounts := p.amuletAmounts()
		q := quote(x.Rules(), p.Sender, amounts, x.Round().Price)
		// Splice locks until the accepting round closes, at least one tick.
		lockUntil := x.Now().Add(x.Rules().TickDuration)
		if x.Round().TargetClosesAt.After(lockUntil) {
			lockUntil = x.Round().TargetClosesAt
		}
		accepted := coin.NewContractID()
		text, _ := payments.AppOrigin(p.Description)
		tr, err := x.Transfer(ctx, p.Sender, []ledger.Output{{Receiver: p.Sender, Amount: q.Total, Lock: &ledger.Lock{
			Holder: string(accepted), ExpiresAt: lockUntil, Context: "amulet-payment-request: " + text,
		}}})
		if err != nil {
			return nil, err
		}
		x.Archive(c.ContractID)
		x.CreateWithID(accepted, payments.TemplateAcceptedAppPayment, AcceptedAppPayment{
			Sender: p.Sender, AmuletReceiverAmounts: amounts, Provider: p.Provider, DSO: s.l.DSO(),
			LockedAmulet: tr.Outputs[0], Round: ledger.RoundRefOf(x.Round().Number), Reference: c.ContractID,
		}, p.stakeholders()...)
		x.Record(p.Sender, ledger.HistoryTransfer, "AppPaymentRequest_Accept", p.Provider, tr.Cost(q.Total).Neg(), tr.Fees.Add(tr.HoldingFees), text,
			ledger.HistoryDetails{Provider: p.Provider, HoldingFees: tr.HoldingFees, Fees: tr.Fees, ContractID: accepted})
		res := &AppPaymentResult{Created: accepted, SenderChangeCIDs: []coin.ContractID{}}
		if tr.Change != "" {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, tr.Change)
		}
		return res, nil
	})
}

// RejectAppPayment is AppPaymentRequest_Reject by the sender: the request
// ends and nothing moves.
func (s *Service) RejectAppPayment(ctx context.Context, sender coin.PartyID, cid coin.ContractID, cmd commands.Command) (*AppPaymentResult, error) {
	return s.endAppPaymentRequest(ctx, cmd, cid, "AppPaymentRequest_Reject", func(p *AppPaymentRequest, now time.Time) error {
		if sender != p.Sender {
			if !slices.Contains(p.stakeholders(), sender) {
				return ErrAppPaymentFinished
			}
			return fmt.Errorf("%w: only the sender %s may reject this payment request", fault.ErrForbidden, p.Sender)
		}
		return nil
	})
}

// WithdrawAppPayment is AppPaymentRequest_Withdraw: the receivers (all
// among actAs) take their request back.
func (s *Service) WithdrawAppPayment(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, cmd commands.Command) (*AppPaymentResult, error) {
	return s.endAppPaymentRequest(ctx, cmd, cid, "AppPaymentRequest_Withdraw", func(p *AppPaymentRequest, now time.Time) error {
		return ledger.Authorized(actAs, "AppPaymentRequest_Withdraw", p.receivers()...)
	})
}

// endAppPaymentRequest ends the request cid by choice once allowed says
// so; the sender's history notes it.
func (s *Service) endAppPaymentRequest(ctx context.Context, cmd commands.Command, cid coin.ContractID, choice string, allowed func(p *AppPaymentRequest, now time.Time) error) (*AppPaymentResult, error) {
	return s.appPaymentTx(ctx, cmd, strings.ToLower(choice), cid, payments.TemplateAppPaymentRequest, func(x *ledger.Tx, c *store.Contract) (*AppPaymentResult, error) {
		var p AppPaymentRequest
		if err := decodePayload(c, &p); err != nil {
			return nil, err
		}
		if err := allowed(&p, x.Now()); err != nil {
			return nil, fmt.Errorf("%s: %w", cid, err)
		}
		x.Archive(c.ContractID)
		text, _ := payments.AppOrigin(p.Description)
		what := map[string]string{"AppPaymentRequest_Reject": "rejected", "AppPaymentRequest_Withdraw": "withdrawn by the app", "AppPaymentRequest_Expire": "expired"}[choice]
		x.Record(p.Sender, ledger.HistoryNotification, choice, p.Provider, coin.Zero, coin.Zero, text,
			ledger.HistoryDetails{Provider: p.Provider, ContractID: c.ContractID, Notification: "app payment request " + what})
		return &AppPaymentResult{}, nil
	})
}

// AcceptedAppPaymentMove is something that ends an accepted payment.
type AcceptedAppPaymentMove string

// The moves of an accepted payment.
const (
	AppPaymentCollect AcceptedAppPaymentMove = "collect"
	AppPaymentRefund  AcceptedAppPaymentMove = "refund"
	AppPaymentExpire  AcceptedAppPaymentMove = "expire"
)

// CheckAppPaymentMove is an accepted payment's rules: the provider
// collects, in the round it was accepted in and before its lock expires
// (Splice requires the same round, so the fees precomputed into the lock
// are exact and the lock has accrued no holding fee); the provider or the
// receivers (all among actAs) refund any time; anyone (actAs nil: the
// expiry automation; or the sender) expires it once the lock has expired.
func CheckAppPaymentMove(p *AcceptedAppPayment, move AcceptedAppPaymentMove, actAs []coin.PartyID, round coin.Round, lockUntil, now time.Time) error {
	switch move {
	case AppPaymentCollect:
		if err := ledger.Authorized(actAs, "AcceptedAppPayment_Collect", p.Provider); err != nil {
			return err
		}
		if got := ledger.RoundRefOf(round).Number; got != p.Round.Number {
			return &fault.Problem{Err: fault.ErrExpired, Msg: fmt.Sprintf("this payment was accepted in round %s and can only be collected in that round (the open round is %s); it expires and its coin returns to the sender", p.Round.Number, got)}
		}
		if !now.Before(lockUntil) {
			return &fault.Problem{Err: fault.ErrExpired, Msg: fmt.Sprintf("this payment had to be collected before %s; it expires and its coin returns to the sender", ledger.FormatTime(lockUntil))}
		}
	case AppPaymentRefund:
		if ledger.Authorized(actAs, "", p.Provider) != nil && ledger.Authorized(actAs, "", p.receivers()...) != nil {
			return fmt.Errorf("%w: only the provider %s or the receivers may refund an accepted app payment", fault.ErrForbidden, p.Provider)
		}
	case AppPaymentExpire:
		if actAs != nil {
			if err := ledger.Authorized(actAs, "AcceptedAppPayment_Expire", p.Sender); err != nil {
				return err
			}
		}
		if now.Before(lockUntil) {
			return fmt.Errorf("%w: the accepted payment does not expire before %s", fault.ErrConflict, ledger.FormatTime(lockUntil))
		}
	default:
		return fault.Invalid("move", "unknown app payment move %q", move)
	}
	return nil
}

// MoveAcceptedAppPayment makes move on the accepted payment cid for actAs
// (nil: the expiry automation): collect gives each receiver its amount and
// burns the fees (a featured provider earns the featured app reward);
// refund and expire give the locked coin back to the sender. A refused
// move changes nothing.
func (s *Service) MoveAcceptedAppPayment(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, move AcceptedAppPaymentMove, cmd commands.Command) (*AppPaymentResult, error) {
	return s.appPaymentTx(ctx, cmd, string(move)+"-app-payment", cid, payments.TemplateAcceptedAppPayment, func(x *ledger.Tx, c *store.Contract) (*AppPaymentResult, error) {
		var p AcceptedAppPayment
		if err := decodePayload(c, &p); err != nil {
			return nil, err
		}
		if actAs != nil && !slices.ContainsFunc(actAs, func(a coin.PartyID) bool { return slices.Contains(p.stakeholders(), a) }) {
			return nil, invisible(c)
		}
		hs, err := store.HoldingsByIDs(ctx, x.DB(), []coin.ContractID{p.LockedAmulet})
		if err != nil {
			return nil, err
		}
		var lockUntil time.Time
		if len(hs) == 1 {
			lockUntil = hs[0].LockExpiresAt.Time
		} else if move == AppPaymentCollect {
			// Its lock expired and the coin went (dust expiry): nothing to collect.
			return nil, &fault.Problem{Err: fault.ErrExpired, Msg: "this payment's locked coin is gone (its lock expired); it can no longer be collected"}
		}
		if err := CheckAppPaymentMove(&p, move, actAs, x.Round().Number, lockUntil, x.Now()); err != nil {
			return nil, fmt.Errorf("%s: %w", cid, err)
		}
		return s.finishAppPayment(ctx, x, c.ContractID, &p, move)
	})
}

// finishAppPayment carries out an allowed move inside t.
func (s *Service) finishAppPayment(ctx context.Context, x *ledger.Tx, cid coin.ContractID, p *AcceptedAppPayment, move AcceptedAppPaymentMove) (*AppPaymentResult, error) {
	res := &AppPaymentResult{SenderChangeCIDs: []coin.ContractID{}, ReceiverHoldingCIDs: []coin.ContractID{}}
	value, fee, locked, err := x.ReleaseLock(ctx, p.LockedAmulet, cid)
	if err != nil {
		return nil, err
	}
	if !locked && move == AppPaymentCollect {
		return nil, fault.NotFoundf("LockedAmulet '%s' not found for AcceptedAppPayment '%s'", p.LockedAmulet, cid)
	}
	if err := x.UsingRules(ctx, cid); err != nil {
		return nil, err
	}
	x.Archive(cid)
	d := ledger.HistoryDetails{Provider: p.Provider, HoldingFees: fee, ContractID: cid}
	if move != AppPaymentCollect {
		if value.IsPositive() {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, x.NewHolding(p.Sender, value, nil))
		}
		subtype := map[AcceptedAppPaymentMove]string{AppPaymentRefund: "AcceptedAppPayment_Reject", AppPaymentExpire: "AcceptedAppPayment_Expire"}[move]
		x.Record(p.Sender, ledger.HistoryBalanceChange, subtype, p.Provider, value, fee, "", d)
		return res, nil
	}
	q := quote(x.Rules(), p.Sender, p.AmuletReceiverAmounts, x.Round().Price)
	change := value.Sub(q.Total)
	if change.IsNegative() {
		return nil, fmt.Errorf("%w: the locked %s CC do not cover the payment's %s CC", fault.ErrConflict, value, q.Total)
	}
	for _, a := range p.AmuletReceiverAmounts {
		res.ReceiverHoldingCIDs = append(res.ReceiverHoldingCIDs, x.NewHolding(a.Receiver, a.AmuletAmount, nil))
		outFee := x.Rules().OutputFee(a.AmuletAmount, x.Round().Price, a.Receiver == p.Sender)
		// The locked coin left the sender's available balance at
		// acceptance; each receiver's grows.
		x.RecordPair(p.Sender, a.Receiver, ledger.HistoryTransfer, "AcceptedAppPayment_Collect", coin.Zero, outFee, a.AmuletAmount, coin.Zero, "", d)
		d.HoldingFees = coin.Zero // counted once
	}
	x.Burn(q.Fees)
	if change.IsPositive() {
		res.SenderChangeCIDs = append(res.SenderChangeCIDs, x.NewHolding(p.Sender, change, nil))
		x.Record(p.Sender, ledger.HistoryBalanceChange, "AcceptedAppPayment_Collect", p.Provider, change, coin.Zero, "", ledger.HistoryDetails{Provider: p.Provider, ContractID: cid})
	}
	// An app's payment is an app transfer: a featured provider earns the
	// featured app reward, as a featured preapproval provider does.
	featured, err := ledger.IsFeatured(ctx, x.DB(), p.Provider)
	if err != nil {
		return nil, err
	}
	if featured {
		x.AddRewardCoupon(ledger.RewardApp, p.Provider, ledger.USDToCoin(x.Rules().ExtraFeaturedAppRewardUSD, x.Round().Price), true)
	}
	return res, nil
}

// ExpireAppPayments ends every payment request past its expiresAt and
// every accepted payment past its lock's expiry (the real wallet's
// ExpireAppPaymentRequestsTrigger and the sender's expiry of accepted
// payments): their locked coin returns to the sender. It returns how many
// it ended; the expiry automation calls it periodically.
func (s *Service) ExpireAppPayments(ctx context.Context) (int, error) {
	now, n := s.l.Now(), 0
	reqs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), payments.TemplateAppPaymentRequest, "")
	if err != nil {
		return 0, err
	}
	for i := range reqs {
		var p AppPaymentRequest
		if err := decodePayload(&reqs[i], &p); err != nil {
			return n, err
		}
		if exp, err := time.Parse(time.RFC3339Nano, p.ExpiresAt); err != nil || now.Before(exp) {
			continue
		}
		_, err := s.endAppPaymentRequest(ctx, commands.Command{}, reqs[i].ContractID, "AppPaymentRequest_Expire", func(p *AppPaymentRequest, now time.Time) error {
			if exp, _ := time.Parse(time.RFC3339Nano, p.ExpiresAt); now.Before(exp) {
				return fmt.Errorf("%w: the request does not expire before %s", fault.ErrConflict, p.ExpiresAt)
			}
			return nil
		})
		if n, err = countExpired(n, err); err != nil {
			return n, fmt.Errorf("expire app payment request %s: %w", reqs[i].ContractID, err)
		}
	}
	acc, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), payments.TemplateAcceptedAppPayment, "")
	if err != nil {
		return n, err
	}
	for i := range acc {
		var p AcceptedAppPayment
		if err := decodePayload(&acc[i], &p); err != nil {
			return n, err
		}
		hs, err := store.HoldingsByIDs(ctx, s.l.DB(), []coin.ContractID{p.LockedAmulet})
		if err != nil {
			return n, err
		}
		if len(hs) == 1 && now.Before(hs[0].LockExpiresAt.Time) {
			continue
		}
		_, err = s.MoveAcceptedAppPayment(ctx, nil, acc[i].ContractID, AppPaymentExpire, commands.Command{})
		if n, err = countExpired(n, err); err != nil {
			return n, fmt.Errorf("expire accepted app payment %s: %w", acc[i].ContractID, err)
		}
	}
	return n, nil
}

// countExpired counts an expiry that happened; one that another change
// won meanwhile, or that waits for a reassignment, is no error.
func countExpired(n int, err error) (int, error) {
	switch {
	case err == nil:
		return n + 1, nil
	case errors.Is(err, ErrAppPaymentFinished), errors.Is(err, ledger.ErrReassigning), errors.Is(err, fault.ErrConflict):
		return n, nil
	}
	return n, err
}

// AppPayment is the read model of a payment request or an accepted
// payment, with what it costs its sender.
type AppPayment struct {
	Contract ledger.Contract
	// Request is set for a request, Accepted for an accepted payment.
	Request  *AppPaymentRequest
	Accepted *AcceptedAppPayment
	// Description is the request's text without its origin; Origin the
	// app's web origin it names ("" when none; see payments.AppOrigin).
	Description, Origin string
	// Quote is what the sender pays: at the open round's price for a
	// request, as locked for an accepted payment.
	Quote AppPaymentQuote
	// ExpiresAt is the request's expiry or the accepted payment's lock
	// expiry.
	ExpiresAt time.Time
}

// appPaymentOf builds the read model of c for viewer ("" sees all).
func (s *Service) appPaymentOf(ctx context.Context, c *store.Contract, price coin.Amount) (AppPayment, error) {
	a := AppPayment{Contract: s.l.ContractView(c)}
	switch c.TemplateID {
	case payments.TemplateAppPaymentRequest:
		a.Request = &AppPaymentRequest{}
		if err := decodePayload(c, a.Request); err != nil {
			return a, err
		}
		a.Description, a.Origin = payments.AppOrigin(a.Request.Description)
		a.Quote = quote(s.l.Rules(), a.Request.Sender, a.Request.amuletAmounts(), price)
		a.ExpiresAt, _ = time.Parse(time.RFC3339Nano, a.Request.ExpiresAt)
	case payments.TemplateAcceptedAppPayment:
		a.Accepted = &AcceptedAppPayment{}
		if err := decodePayload(c, a.Accepted); err != nil {
			return a, err
		}
		hs, err := store.HoldingsByIDs(ctx, s.l.DB(), []coin.ContractID{a.Accepted.LockedAmulet})
		if err != nil {
			return a, err
		}
		q := quote(s.l.Rules(), a.Accepted.Sender, a.Accepted.AmuletReceiverAmounts, price)
		if len(hs) == 1 {
			a.ExpiresAt = hs[0].LockExpiresAt.Time
			q.Total = hs[0].Amount
			q.Fees = q.Total.Sub(q.Amount)
		}
		a.Quote = q
		if req, err := store.ContractByID(ctx, s.l.DB(), a.Accepted.Reference); err == nil {
			var p AppPaymentRequest
			if decodePayload(req, &p) == nil {
				a.Description, a.Origin = payments.AppOrigin(p.Description)
			}
		}
	default:
		return a, fmt.Errorf("%s: %w", c.ContractID, fault.ErrNotFound)
	}
	return a, nil
}

// AppPaymentByID returns the request or accepted payment cid, active or
// ended, to one of its stakeholders (viewer "": anyone).
func (s *Service) AppPaymentByID(ctx context.Context, viewer coin.PartyID, cid coin.ContractID) (AppPayment, error) {
	c, err := store.ContractByID(ctx, s.l.DB(), cid)
	if err == nil && c.TemplateID != payments.TemplateAppPaymentRequest && c.TemplateID != payments.TemplateAcceptedAppPayment {
		err = fault.ErrNotFound
	}
	if err == nil && viewer != "" && !slices.Contains(ledger.ContractParties(c), viewer) {
		err = fault.ErrNotFound
	}
	if err != nil {
		return AppPayment{}, fmt.Errorf("app payment %s: %w", cid, err)
	}
	_, price, err := s.l.CurrentRound(ctx)
	if err != nil {
		return AppPayment{}, err
	}
	return s.appPaymentOf(ctx, c, price)
}

// AppPaymentRequestsOf lists the active payment requests party is asked
// to pay, oldest first.
func (s *Service) AppPaymentRequestsOf(ctx context.Context, party coin.PartyID) ([]AppPayment, error) {
	return s.appPaymentsOf(ctx, party, payments.TemplateAppPaymentRequest)
}

// AcceptedAppPaymentsOf lists the active accepted payments party pays,
// oldest first.
func (s *Service) AcceptedAppPaymentsOf(ctx context.Context, party coin.PartyID) ([]AppPayment, error) {
	return s.appPaymentsOf(ctx, party, payments.TemplateAcceptedAppPayment)
}

// appPaymentsOf lists the active contracts of template whose sender is
// party.
func (s *Service) appPaymentsOf(ctx context.Context, party coin.PartyID, template string) ([]AppPayment, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), template, party)
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	_, price, err := s.l.CurrentRound(ctx)
	if err != nil {
		return nil, err
	}
	var out []AppPayment
	for i := range cs {
		a, err := s.appPaymentOf(ctx, &cs[i], price)
		if err != nil {
			return nil, err
		}
		if a.Request != nil && a.Request.Sender == party || a.Accepted != nil && a.Accepted.Sender == party {
			out = append(out, a)
		}
	}
	return out, nil
}
