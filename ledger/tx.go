package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Tx is one ledger change as a workflow package (ledger/subscriptions,
// ledger/apppayments, ...) makes it: the database transaction Change runs
// its body in and, once Begin is called, the ledger update it writes. The
// reads and locks (DB, LockParties, LockKey, ClaimCommand) work before
// Begin; the effects (Create, Archive, Record, NewHolding, Transfer, ...)
// need it, and panic without it, as a second Begin does: both are a
// workflow's bug, not a user's.
type Tx struct{ c *change }

// Change runs body as one ledger change (Ledger.change, the one place a
// change begins and commits): one database transaction, retried on
// serialization failures and lost races (body must be safe to run again,
// re-reading what it needs through x.DB()). A body that calls no Begin
// writes only what it wrote itself through x.DB(). An error rolls all of
// it back.
func (l *Ledger) Change(ctx context.Context, body func(ctx context.Context, x *Tx) error) error {
	return l.change(ctx, func(ctx context.Context, c *change) error {
		return body(ctx, &Tx{c: c})
	})
}

// Begin begins the change's update of kind at the open round, first taking
// the parties' locks, so operations on one party queue.
func (x *Tx) Begin(ctx context.Context, kind string, parties ...coin.PartyID) error {
	_, err := x.c.begin(ctx, kind, parties...)
	return err
}

// Begun reports whether the change has begun its update.
func (x *Tx) Begun() bool { return x.c.t != nil }

// Drop forgets the update begun: the body found nothing to change after
// all and recorded nothing, so no update is written.
func (x *Tx) Drop() { x.c.drop() }

// t is the begun update; a verb called before Begin is a bug.
func (x *Tx) t() *txn {
	if x.c.t == nil {
		panic("ledger: Tx effect before Begin")
	}
	return x.c.t
}

// DB is the database transaction, for reads and a workflow's own read
// models' rows: they commit or roll back with the change.
func (x *Tx) DB() bun.IDB { return x.c.tx }

// LockParties takes the parties' locks (the order every change takes
// them in), so this change queues behind the others on them.
func (x *Tx) LockParties(ctx context.Context, parties ...coin.PartyID) error {
	return x.c.l.LockParties(ctx, x.c.tx, parties...)
}

// LockKey takes the named lock until the change ends (e.g. one name of the
// name service).
func (x *Tx) LockKey(ctx context.Context, key string) error {
	return x.c.l.db.LockKey(ctx, x.c.tx, key)
}

// ClaimCommand reserves the deduplication key: it returns the stored
// record when the key was used before (the caller answers with it), and
// fault.ErrInFlight when another change holds it right now.
func (x *Tx) ClaimCommand(ctx context.Context, key string) (*store.Command, error) {
	return x.c.l.claimCommand(ctx, x.c.tx, key)
}

// SaveCommand records cmd's key with its result (and cmd's Ledger API
// completion, if any, as a success) after the update commits, in the
// same change.
func (x *Tx) SaveCommand(cmd commands.Command, party coin.PartyID, kind, result string) {
	t := x.t()
	t.afterCommit(func(ctx context.Context) error { return t.l.saveCommand(ctx, t, cmd, party, kind, result) })
}

// Now is the update's record time (the time of its Begin).
func (x *Tx) Now() time.Time { return x.t().now }

// Round is the open round the update is at: its number, price and target
// close.
func (x *Tx) Round() store.Round { return *x.t().round }

// Rules are the ledger's rules.
func (x *Tx) Rules() Rules { return x.c.l.rules }

// Offset is the update's offset: set once it commits, so for AfterCommit's
// steps.
func (x *Tx) Offset() int64 { return x.t().offset }

// Create records a new contract and returns its ID.
func (x *Tx) Create(templateID string, payload any, stakeholders ...coin.PartyID) coin.ContractID {
	return x.t().create(templateID, payload, stakeholders...)
}

// CreateWithID records a new contract whose ID was drawn before
// (coin.NewContractID), e.g. to name it in a lock first.
func (x *Tx) CreateWithID(cid coin.ContractID, templateID string, payload any, stakeholders ...coin.PartyID) {
	x.t().createWithID(cid, templateID, payload, stakeholders...)
}

// Archive consumes contracts; the commit fails (and the change is
// retried) if another change consumed any meanwhile.
func (x *Tx) Archive(ids ...coin.ContractID) { x.t().archive(ids...) }

// Record adds a history row for party.
func (x *Tx) Record(party coin.PartyID, kind HistoryKind, subtype string, counterparty coin.PartyID, amount, fees coin.Amount, description string, d HistoryDetails) {
	x.t().record(party, kind, subtype, counterparty, amount, fees, description, d)
}

// RecordPair records what sender and receiver both see in one row, each
// with its own amount and fees.
func (x *Tx) RecordPair(sender, receiver coin.PartyID, kind HistoryKind, subtype string, senderAmount, senderFees, receiverAmount, receiverFees coin.Amount, description string, d HistoryDetails) {
	x.t().recordPair(sender, receiver, kind, subtype, senderAmount, senderFees, receiverAmount, receiverFees, description, d)
}

// NewHolding creates a holding of amount for owner at the open round;
// lock may be nil. The coin must come from somewhere in the same update
// (a released lock, a transfer's input): conservation is checked.
func (x *Tx) NewHolding(owner coin.PartyID, amount coin.Amount, lock *Lock) coin.ContractID {
	return x.t().newHolding(owner, amount, lock)
}

// Burn records coin destroyed by the update (fees).
func (x *Tx) Burn(amount coin.Amount) { x.t().burn(amount) }

// BurnNewHolding takes back the last unlocked holding this update created
// for owner and burns its coin, returning the amount (zero, false when
// there is none): an app that is paid to the DSO and burns what it got.
func (x *Tx) BurnNewHolding(owner coin.PartyID) (coin.Amount, bool) {
	t := x.t()
	for i := len(t.holdings) - 1; i >= 0; i-- {
		h := t.holdings[i]
		if h.Owner != owner || h.LockHolder != "" {
			continue
		}
		t.holdings = append(t.holdings[:i], t.holdings[i+1:]...)
		t.burn(h.Amount)
		return h.Amount, true
	}
	return coin.Zero, false
}

// Transfer moves coin from sender to the outputs inside the update
// (inputs selected, fees burned, change returned), as a one-step send.
func (x *Tx) Transfer(ctx context.Context, sender coin.PartyID, outs []Output) (*TransferResult, error) {
	return x.t().transfer(ctx, sender, outs)
}

// ReleaseLock spends the locked holding lockedCID if it is still locked
// for holder, burning its accrued holding fee: it returns the value left
// and the fee, or locked false when the lock is gone.
func (x *Tx) ReleaseLock(ctx context.Context, lockedCID, holder coin.ContractID) (value, fee coin.Amount, locked bool, err error) {
	return x.t().releaseLock(ctx, lockedCID, holder)
}

// UsingRules refuses (ErrReassigning) an update that moves coin while
// ids, AmuletRules or the open round are being reassigned.
func (x *Tx) UsingRules(ctx context.Context, ids ...coin.ContractID) error {
	return x.t().usingRules(ctx, ids...)
}

// AddRewardCoupon issues a reward coupon of kind (RewardApp, ...) to
// beneficiary in the update.
func (x *Tx) AddRewardCoupon(kind string, beneficiary coin.PartyID, amount coin.Amount, featured bool) {
	x.t().addRewardCoupon(kind, beneficiary, amount, featured)
}

// AfterCommit leaves step to run after the update's commit, in the same
// database transaction: the writes that need its offset (a read model's
// rows, a command's result). An error rolls the whole change back.
func (x *Tx) AfterCommit(step func(ctx context.Context) error) { x.t().afterCommit(step) }

// CommandResult is what a contract command (ContractCommand) returns: the
// contract it created (if any) and, once it commits, its update's offset.
type CommandResult interface {
	// Committed records the offset and returns the contract created.
	Committed(offset int64) coin.ContractID
}

// ContractCommand runs one command on a contract workflow (the trading
// app, app payments) as one ledger update: it claims cmd's key (under
// prefix; none when it has none), and when cid is set reads that active
// contract (read), locks its stakeholders (every party whose coin the
// command may move) and reads it again under the locks, then begins an
// update of kind, runs fn and commits; the key's record names the
// contract created, and cmd's completion is written with it.
func ContractCommand[R CommandResult](ctx context.Context, l *Ledger, prefix string, cmd commands.Command, kind string, cid coin.ContractID,
	read func(ctx context.Context, db bun.IDB) (*store.Contract, error), fn func(x *Tx, c *store.Contract) (R, error)) (R, error) {
	var res R
	if err := bounds.CheckID("commandId", cmd.Key); err != nil {
		return res, err
	}
	cmd = cmd.Under(prefix)
	err := l.change(ctx, func(ctx context.Context, ch *change) error {
		tx := ch.tx
		if err := l.claimOnce(ctx, tx, cmd.Key); err != nil {
			return err
		}
		var c *store.Contract
		if cid != "" {
			var err error
			if c, err = read(ctx, tx); err != nil {
				return err
			}
			if err := l.LockParties(ctx, tx, ContractParties(c)...); err != nil {
				return err
			}
			if c, err = read(ctx, tx); err != nil {
				return err
			}
		}
		t, err := ch.begin(ctx, kind)
		if err != nil {
			return err
		}
		if res, err = fn(&Tx{c: ch}, c); err != nil {
			return err
		}
		// The update's offset is drawn at its commit.
		t.afterCommit(func(ctx context.Context) error {
			created := res.Committed(t.offset)
			if cmd.Key == "" {
				return nil
			}
			return l.saveCommand(ctx, t, cmd, "", kind, string(created))
		})
		return nil
	})
	if err != nil {
		var zero R
		return zero, fmt.Errorf("%s: %w", kind, err)
	}
	return res, nil
}

// ClaimOnce reserves the deduplication key of a command that runs once: a
// key used before is fault.ErrDuplicate, one held right now fault.ErrInFlight.
func (x *Tx) ClaimOnce(ctx context.Context, key string) error {
	return x.c.l.claimOnce(ctx, x.c.tx, key)
}

// RefuseReassigning refuses (ErrReassigning) an update that uses ids while
// they are being reassigned (UsingRules adds the rules and open round).
func (x *Tx) RefuseReassigning(ctx context.Context, ids ...coin.ContractID) error {
	return x.c.l.Reassignments().refuse(ctx, x.c.tx, ids...)
}

// UpdateID is the update's id (drawn at Begin).
func (x *Tx) UpdateID() string { return x.t().update }

// ValidPreapproval is receiver's live, unexpired transfer preapproval, or a
// validation error saying it has none.
func (x *Tx) ValidPreapproval(ctx context.Context, receiver coin.PartyID) (*store.TransferPreapproval, error) {
	return x.c.l.Preapprovals().Valid(ctx, x.c.tx, receiver)
}

// PreapprovedSent records a send of amount through preapproval p (r's
// outputs and fees): both sides' history and a featured provider's reward.
func (x *Tx) PreapprovedSent(sender coin.PartyID, p *store.TransferPreapproval, featured bool, amount coin.Amount, r *TransferResult, description string) {
	x.t().preapprovedSent(sender, p, featured, amount, r, description)
}

// MergeDelegated merges owner's holdings ids towards MergeTarget under its
// merge delegation (a featured merge, MergeHistorySubtype): it returns how
// many inputs the merge used.
func (x *Tx) MergeDelegated(ctx context.Context, owner coin.PartyID, ids []coin.ContractID) (int, error) {
	_, used, err := x.t().mergeInputs(ctx, owner, ids, MergeGoal{Target: MergeTarget, Subtype: MergeHistorySubtype, Featured: true})
	return used, err
}

// Mint issues amount of new coin to owner as an unlocked holding at the
// open round: the update counts it as minted, so the ledger's supply
// (CheckConservation: live = minted - burned) grows by it. It is for
// issuance the rules grant (reward coupons collected); coin moved from
// elsewhere is NewHolding's.
func (x *Tx) Mint(owner coin.PartyID, amount coin.Amount) coin.ContractID {
	return x.t().mint(owner, amount)
}
