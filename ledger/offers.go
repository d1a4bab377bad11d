package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Transfer offer templates, as on the real network (splice-wallet's
// Splice.Wallet.TransferOffer module).
const (
	TemplateTransferOffer         = "#splice-wallet:Splice.Wallet.TransferOffer:TransferOffer"
	TemplateAcceptedTransferOffer = "#splice-wallet:Splice.Wallet.TransferOffer:AcceptedTransferOffer"
)

// Offer statuses, named as getTransferOfferStatus reports them.
const (
	OfferCreated   = "created"
	OfferAccepted  = "accepted"
	OfferCompleted = "completed"
	OfferFailed    = "failed"
)

// Failure kinds of a failed offer (wallet-external.yaml failure_kind).
const (
	OfferExpired   = "expired"
	OfferRejected  = "rejected"
	OfferWithdrawn = "withdrawn"
)

// WithdrawnBySender is the withdrawn_reason of an offer its sender withdrew,
// the text the real wallet uses.
const WithdrawnBySender = "Withdrawn by sender"

// Offers are the core's transfer offers (splice-wallet's TransferOffer):
// their creation, acceptance, rejection, withdrawal and expiry, and the
// limits they are held to (offer_limits.go).
type Offers struct{ l *Ledger }

// Offers returns l's transfer offers.
func (l *Ledger) Offers() Offers { return Offers{l} }

// PaymentAmount is splice-wallet-payments' PaymentAmount.
type PaymentAmount struct {
	Amount coin.Amount `json:"amount"`
	Unit   string      `json:"unit"`
}

type transferOfferPayload struct {
	Sender      coin.PartyID  `json:"sender"`
	Receiver    coin.PartyID  `json:"receiver"`
	DSO         coin.PartyID  `json:"dso"`
	Amount      PaymentAmount `json:"amount"`
	Description string        `json:"description"`
	ExpiresAt   string        `json:"expiresAt"`
	TrackingID  string        `json:"trackingId"`
}

type acceptedTransferOfferPayload struct {
	Sender     coin.PartyID  `json:"sender"`
	Receiver   coin.PartyID  `json:"receiver"`
	DSO        coin.PartyID  `json:"dso"`
	Amount     PaymentAmount `json:"amount"`
	ExpiresAt  string        `json:"expiresAt"`
	TrackingID string        `json:"trackingId"`
}

// OfferRequest asks for a new transfer offer.
type OfferRequest struct {
	Sender      coin.PartyID
	Receiver    coin.PartyID
	Amount      coin.Amount
	Description string
	ExpiresAt   time.Time
	TrackingID  string
}

// Offer is a transfer offer and where it stands.
type Offer struct {
	ContractID      coin.ContractID
	TrackingID      string
	Sender          coin.PartyID
	Receiver        coin.PartyID
	Amount          coin.Amount
	Description     string
	ExpiresAt       time.Time
	Status          string
	FailureKind     string
	WithdrawnReason string
	AcceptedCID     coin.ContractID
	// CompletedCID is the receiver's new holding once completed.
	CompletedCID coin.ContractID
	CreatedTx    string
	AcceptedTx   string
	CompletedTx  string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// OfferView is a stored transfer offer as the wallet shows it.
func OfferView(o *store.TransferOffer) Offer {
	return Offer{
		ContractID: o.ContractID, TrackingID: o.TrackingID, Sender: o.Sender, Receiver: o.Receiver, Amount: o.Amount,
		Description: o.Description, ExpiresAt: o.ExpiresAt, Status: o.Status, FailureKind: o.FailureKind,
		WithdrawnReason: o.WithdrawnReason, AcceptedCID: o.AcceptedCID, CompletedCID: o.CompletedCID,
		CreatedTx: o.CreatedTx, AcceptedTx: o.AcceptedTx, CompletedTx: o.CompletedTx, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
	}
}

func (r OfferRequest) same(o *store.TransferOffer) bool {
	return r.Receiver == o.Receiver && r.Amount.Equal(o.Amount) && r.Description == o.Description && r.ExpiresAt.Equal(o.ExpiresAt)
}

func (of Offers) validate(ctx context.Context, r *OfferRequest) error {
	l := of.l
	r.TrackingID = strings.TrimSpace(r.TrackingID)
	if r.TrackingID == "" {
		return fault.Invalid("tracking_id", "must not be empty")
	}
	if err := bounds.CheckText("tracking_id", r.TrackingID); err != nil {
		return err
	}
	if err := bounds.CheckAmount("amount", r.Amount); err != nil {
		return err
	}
	if err := of.checkFloor(r.Amount); err != nil {
		return err
	}
	if err := bounds.CheckTime("expires_at", r.ExpiresAt); err != nil {
		return err
	}
	if err := bounds.CheckText("description", r.Description); err != nil {
		return err
	}
	if r.Receiver == r.Sender {
		return fault.Invalid("receiver_party_id", "is the sender's own party")
	}
	// The sender's wallet exists (the caller resolved it), so an unknown
	// receiver is bad input (400), not a missing wallet (404).
	if err := l.KnownParty(ctx, r.Receiver); err != nil {
		if errors.Is(err, fault.ErrNotFound) {
			return fault.Invalid("receiver_party_id", "no party %s is known on this network", r.Receiver)
		}
		return err
	}
	return nil
}

// Create creates a transfer offer from r.Sender. It does not lock
// funds: the sender pays only when the receiver accepts, as on the real
// network. The tracking id makes it idempotent per sender: the same id with
// the same parameters returns the existing offer and creates nothing
// (created is false); with other parameters it fails with fault.ErrDuplicate; while
// another request with the id is in flight it fails with fault.ErrInFlight.
func (of Offers) Create(ctx context.Context, r OfferRequest) (o Offer, created bool, err error) {
	return of.create(ctx, r, nil)
}

// CreateGuarded is Create with guard run in the offer's transaction
// just before it is created; its error aborts the creation.
func (of Offers) CreateGuarded(ctx context.Context, r OfferRequest, guard func(ctx context.Context, tx bun.Tx) error) (Offer, bool, error) {
	return of.create(ctx, r, guard)
}

// create is Create with an optional guard, run in the offer's
// transaction just before it is created; its error aborts the creation.
func (of Offers) create(ctx context.Context, r OfferRequest, guard func(ctx context.Context, tx bun.Tx) error) (o Offer, created bool, err error) {
	l := of.l
	r.ExpiresAt = r.ExpiresAt.UTC().Truncate(time.Microsecond)
	if err := of.validate(ctx, &r); err != nil {
		return Offer{}, false, err
	}
	key := "offer:" + string(r.Sender) + ":" + r.TrackingID
	err = l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		created = false
		prev, err := l.claimCommand(ctx, tx, key)
		if err != nil {
			return err
		}
		if prev != nil {
			row, err := store.TransferOfferByID(ctx, tx, coin.ContractID(prev.Result))
			if err != nil {
				return err
			}
			if !r.same(row) {
				return fmt.Errorf("%w: tracking id %q was used for a different offer %s; check its status", fault.ErrDuplicate, r.TrackingID, row.ContractID)
			}
			o = OfferView(row)
			return nil
		}
		// Checked after deduplication, so a client retrying a created
		// offer gets it back even once its expiry has passed.
		if !r.ExpiresAt.After(l.Now()) {
			return fault.Invalid("expires_at", "must be in the future")
		}
		if err := of.afford(ctx, tx, r.Sender, r.Amount); err != nil {
			return err
		}
		if err := of.checkCap(ctx, tx, r.Sender, r.Receiver); err != nil {
			return err
		}
		if guard != nil {
			if err := guard(ctx, tx); err != nil {
				return err
			}
		}
		t, err := c.begin(ctx, "create-transfer-offer")
		if err != nil {
			return err
		}
		// The submission costs the validator traffic, as every
		// transaction does on the network.
		t.traffic += l.rules.TrafficBytes(0)
		cid := t.create(TemplateTransferOffer, transferOfferPayload{
			Sender: r.Sender, Receiver: r.Receiver, DSO: l.dso, Amount: PaymentAmount{Amount: r.Amount, Unit: "AmuletUnit"},
			Description: r.Description, ExpiresAt: FormatTime(r.ExpiresAt), TrackingID: r.TrackingID,
		}, r.Sender, r.Receiver)
		row := &store.TransferOffer{
			ContractID: cid, TrackingID: r.TrackingID, Sender: r.Sender, Receiver: r.Receiver, Amount: r.Amount,
			Description: r.Description, ExpiresAt: r.ExpiresAt, Status: OfferCreated, CreatedTx: t.update,
			CreatedAt: t.now, UpdatedAt: t.now,
		}
		t.afterCommit(func(ctx context.Context) error {
			if err := store.InsertTransferOffer(ctx, tx, row); err != nil {
				return err
			}
			return l.saveCommand(ctx, t, commands.Command{Key: key}, r.Sender, "create-transfer-offer", string(cid))
		})
		o, created = OfferView(row), true
		return nil
	})
	if err != nil {
		return Offer{}, false, fmt.Errorf("create transfer offer %q: %w", r.TrackingID, err)
	}
	return o, created, nil
}

// afford refuses an offer of more than the sender's available
// balance. An offer locks nothing, so the ledger could take one the sender
// cannot pay, and it would fail only at acceptance, after the receiver
// acted on it; every caller (web form, API, sweep) is held to this. The
// fees are not known until acceptance, so only the amount is compared.
func (of Offers) afford(ctx context.Context, tx bun.Tx, sender coin.PartyID, amount coin.Amount) error {
	l := of.l
	b, err := l.balanceIn(ctx, tx, sender)
	if err != nil {
		return err
	}
	if avail := b.EffectiveUnlocked; amount.Cmp(avail) > 0 {
		return problem(fault.ErrInsufficientFunds, "insufficient funds: the offer of %s CC is more than your available %s CC; offer less, or wait for incoming coin",
			HumanCC(amount), HumanCC(avail))
	}
	return nil
}

// offerRole checks that actor may perform an action reserved to role
// ("sender" or "receiver") on o: a stakeholder in the other role gets
// fault.ErrForbidden, anyone else fault.ErrNotFound (the offer is not theirs to see).
func offerRole(o *store.TransferOffer, actor coin.PartyID, role string) error {
	want := o.Receiver
	if role == "sender" {
		want = o.Sender
	}
	if actor == want {
		return nil
	}
	if actor == o.Sender || actor == o.Receiver {
		return fmt.Errorf("%w: only the offer's %s may do this", fault.ErrForbidden, role)
	}
	return fmt.Errorf("transfer offer %s: %w", o.ContractID, fault.ErrNotFound)
}

// ErrOfferFinished is returned for an action on an offer that is no longer
// open (completed, rejected, withdrawn or expired): its contract is
// archived, so like the real wallet we answer that it is not found, the
// one error the spec declares for accept, reject and withdraw.
var ErrOfferFinished = fmt.Errorf("transfer offer is no longer open: %w", fault.ErrNotFound)

func offerOpen(o *store.TransferOffer) error {
	if o.Status == OfferCreated {
		return nil
	}
	state := o.Status
	if o.FailureKind != "" {
		state = o.FailureKind
	}
	return &fault.Problem{Err: ErrOfferFinished, Msg: fmt.Sprintf("this transfer offer is %s already, so there is nothing left to do; reload the list", state)}
}

// change runs fn on an open offer that actor may act on as role, in
// one ledger change that also archives the offer and moves its row to the
// state fn set (finishOffer).
func (of Offers) change(ctx context.Context, actor coin.PartyID, cid coin.ContractID, role, kind string, fn func(t *txn, o *store.TransferOffer) error) error {
	l := of.l
	return l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		o, err := store.TransferOfferByID(ctx, tx, cid)
		if err != nil {
			return err
		}
		if err := offerRole(o, actor, role); err != nil {
			return err
		}
		if err := l.LockParties(ctx, tx, o.Sender, o.Receiver); err != nil {
			return err
		}
		// Re-read under the parties' locks: a concurrent change waits above.
		if o, err = store.TransferOfferByID(ctx, tx, cid); err != nil {
			return err
		}
		if err := offerOpen(o); err != nil {
			return err
		}
		t, err := c.begin(ctx, kind)
		if err != nil {
			return err
		}
		if err := l.Reassignments().refuse(ctx, tx, o.ContractID); err != nil {
			return err
		}
		t.archive(o.ContractID)
		if err := fn(t, o); err != nil {
			return err
		}
		t.finishOffer(o)
		return nil
	})
}

// finishOffer moves o from created to its new state once t commits.
func (t *txn) finishOffer(o *store.TransferOffer) {
	t.afterCommit(func(ctx context.Context) error {
		o.UpdatedAt = t.now
		if o.AcceptedCID != "" && o.AcceptedTx == "" {
			o.AcceptedTx = t.update
		}
		if o.Status == OfferCompleted {
			o.CompletedTx = t.update
		}
		return store.UpdateTransferOffer(ctx, t.tx, o, OfferCreated)
	})
}

// Accept accepts an offer as its receiver. In the same transaction the
// sender's wallet completes the accepted offer at once (the real wallet's
// AcceptedTransferOfferTrigger): the amount moves to the receiver and both
// histories record a P2PPaymentCompleted transfer. If the sender cannot pay,
// the acceptance stands and the offer fails as "withdrawn" with the reason,
// as the real sender automation withdraws it. After expires_at it fails with
// fault.ErrExpired and changes nothing.
func (of Offers) Accept(ctx context.Context, actor coin.PartyID, cid coin.ContractID) (coin.ContractID, error) {
	var accepted coin.ContractID
	err := of.change(ctx, actor, cid, "receiver", "accept-transfer-offer", func(t *txn, o *store.TransferOffer) error {
		if !t.now.Before(o.ExpiresAt) {
			// Not yet expired by the automation, but no longer open all the same.
			return &fault.Problem{Err: fmt.Errorf("%w (%w)", fault.ErrExpired, ErrOfferFinished),
				Msg: fmt.Sprintf("this transfer offer expired at %s and can no longer be accepted; ask the sender for a new one", FormatTime(o.ExpiresAt))}
		}
		// The payment is a transfer under the rules at the open round.
		if err := t.usingRules(ctx); err != nil {
			return err
		}
		amount := PaymentAmount{Amount: o.Amount, Unit: "AmuletUnit"}
		accepted = t.create(TemplateAcceptedTransferOffer, acceptedTransferOfferPayload{
			Sender: o.Sender, Receiver: o.Receiver, DSO: t.l.dso, Amount: amount, ExpiresAt: FormatTime(o.ExpiresAt), TrackingID: o.TrackingID,
		}, o.Sender, o.Receiver)
		o.AcceptedCID = accepted
		// The accepted offer is consumed either way: completed or withdrawn.
		t.archive(accepted)
		r, err := t.transfer(ctx, o.Sender, []Output{{Receiver: o.Receiver, Amount: o.Amount}})
		switch {
		case err == nil:
			t.recordTransfer(o.Sender, o.Receiver, o.Amount, r, "P2PPaymentCompleted", o.Description)
			o.Status, o.CompletedCID = OfferCompleted, r.Outputs[0]
		case errors.Is(err, fault.ErrInsufficientFunds):
			// transfer fails before it writes anything, so t is still clean.
			o.Status, o.FailureKind, o.WithdrawnReason = OfferFailed, OfferWithdrawn, err.Error()
			note := fmt.Sprintf("transfer offer %s of %s withdrawn: %s", o.TrackingID, o.Amount, err)
			t.recordPair(o.Sender, o.Receiver, HistoryNotification, "TransferOfferWithdrawn", coin.Zero, coin.Zero, coin.Zero, coin.Zero, o.Description, HistoryDetails{Notification: note})
		default:
			return err
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("accept transfer offer %s: %w", cid, err)
	}
	return accepted, nil
}

// Reject rejects an open offer as its receiver.
func (of Offers) Reject(ctx context.Context, actor coin.PartyID, cid coin.ContractID) error {
	err := of.change(ctx, actor, cid, "receiver", "reject-transfer-offer", func(t *txn, o *store.TransferOffer) error {
		o.Status, o.FailureKind = OfferFailed, OfferRejected
		// Both see it: the receiver did it, the sender's offer ended.
		t.recordPair(o.Sender, o.Receiver, HistoryNotification, "TransferOfferRejected", coin.Zero, coin.Zero, coin.Zero, coin.Zero, o.Description,
			HistoryDetails{Notification: fmt.Sprintf("transfer offer %s of %s rejected by the receiver", o.TrackingID, o.Amount)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("reject transfer offer %s: %w", cid, err)
	}
	return nil
}

// Withdraw withdraws an open offer as its sender.
func (of Offers) Withdraw(ctx context.Context, actor coin.PartyID, cid coin.ContractID) error {
	err := of.change(ctx, actor, cid, "sender", "withdraw-transfer-offer", func(t *txn, o *store.TransferOffer) error {
		o.Status, o.FailureKind, o.WithdrawnReason = OfferFailed, OfferWithdrawn, WithdrawnBySender
		// Both see it: the sender did it, the receiver's offer ended.
		t.recordPair(o.Sender, o.Receiver, HistoryNotification, "TransferOfferWithdrawn", coin.Zero, coin.Zero, coin.Zero, coin.Zero, o.Description,
			HistoryDetails{Notification: fmt.Sprintf("transfer offer %s of %s withdrawn by the sender", o.TrackingID, o.Amount)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("withdraw transfer offer %s: %w", cid, err)
	}
	return nil
}

// ExpireOne ends sender's open offer cid once its expiry has passed
// (ledger/expiry's automation runs it on the offers due): fault.ErrConflict
// before, ErrOfferFinished when it ended meanwhile.
func (of Offers) ExpireOne(ctx context.Context, sender coin.PartyID, cid coin.ContractID) error {
	return of.change(ctx, sender, cid, "sender", "expire-transfer-offer", func(t *txn, o *store.TransferOffer) error {
		if t.now.Before(o.ExpiresAt) {
			return fmt.Errorf("%w: transfer offer %s has not expired", fault.ErrConflict, o.ContractID)
		}
		o.Status, o.FailureKind = OfferFailed, OfferExpired
		return nil
	})
}
