package ledger

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// changes are what one ledger transaction writes, collected in memory:
// the contracts it creates and archives, the holdings it adds and spends,
// the coin it mints and burns, and its history, coupons and command
// records. Rules that work on what was read already (a one-step send's,
// sendPreapprovedCommand) are methods of changes, and so cannot reach the
// database; commitVia writes changes, all or nothing.
type changes struct {
	l    *Ledger
	kind string
	// actedBy is the admin acting as another party (ledger/impersonation).
	actedBy string
	round   *store.Round
	now     time.Time

	created  []store.Contract
	archived []coin.ContractID
	holdings []store.Holding
	history  []store.HistoryEntry
	// inputs are unlocked holdings spent as inputs, moved to spent_holdings
	// by commit's write, guarded (one spent meanwhile fails it with
	// ErrStale); selectInputs skips them. txn.spendNow moves them at once.
	inputs []coin.ContractID
	// touched are the owners of the holdings spendHoldings and
	// archiveHolding took out before commit's write, which raises their
	// holding versions with those of every holding it writes or spends
	// (store.Writes.Touched).
	touched []coin.PartyID
	// coupons and commands are inserted by commit's write too.
	coupons  []store.RewardCoupon
	commands []store.Command
	// completions are the Ledger API completions of commands (their
	// offset set at commit).
	completions []store.Completion
	// completedBy are the users whose completions the change writes at
	// its offset (CompletionMark), however it writes them.
	completedBy []string
	// forget are deduplication keys whose window has passed; their old
	// records are deleted by commit's write before commands are inserted.
	forget []string
	// after are the steps change runs after commit (afterCommit).
	after []func(ctx context.Context) error
	// reference says the change archives a contract, opens a round, or
	// creates a featured-app right or a transfer preapproval: once it
	// commits, the ledger's ReferenceVersion moves, for what remembers
	// them.
	reference bool

	minted  coin.Amount
	burned  coin.Amount
	traffic int64
	offset  int64
	update  string
	started time.Time // wall clock, for Observer
}

// txn is a ledger transaction inside a database transaction: its changes,
// and tx, where its rules read and lock.
type txn struct {
	changes
	tx bun.Tx
}

func (l *Ledger) newChanges(kind string, round *store.Round) changes {
	// The update id is drawn up front so a command record can name it
	// before commit (it rides commit's write).
	return changes{l: l, kind: kind, round: round, now: l.Now(), started: time.Now(), update: "1220" + UUIDHex()}
}

// create records a new contract and returns its ID.
func (t *changes) create(templateID string, payload any, stakeholders ...coin.PartyID) coin.ContractID {
	cid := coin.NewContractID()
	t.createWithID(cid, templateID, payload, stakeholders...)
	return cid
}

// contract is a contract of this ledger as it is stored: the payload as
// JSON, the stakeholders listed for lookup, on the ledger's synchronizer,
// created at time at (its offset is its creating update's, set at commit).
// New contracts and the ones built from holdings' and coupons' rows are
// made by it alike.
func (l *Ledger) contract(id coin.ContractID, templateID string, payload any, at time.Time, stakeholders ...coin.PartyID) store.Contract {
	return store.Contract{
		ContractID: id, TemplateID: templateID, Payload: mustJSON(payload),
		Stakeholders: stakeholderList(stakeholders), SynchronizerID: l.synchronizerID, CreatedAt: at,
	}
}

// spendHoldings spends unlocked holdings now, at t's offset: each moves
// to spent_holdings (store.SpendHoldings, guarded).
func (t *txn) spendHoldings(ctx context.Context, ids []coin.ContractID) error {
	if err := t.ensureOffset(ctx); err != nil {
		return err
	}
	owners, err := store.SpendHoldings(ctx, t.tx, ids, t.offset)
	t.touched = append(t.touched, owners...)
	return err
}

// archiveHolding takes h out of the live holdings in t: an unlocked one is
// spent (its row is its contract); a locked one is deleted, guarded by its
// lock holder, and its LockedAmulet contract archived.
func (t *txn) archiveHolding(ctx context.Context, h store.Holding) error {
	if h.LockHolder == "" {
		return t.spendHoldings(ctx, []coin.ContractID{h.ContractID})
	}
	if err := store.DeleteHoldings(ctx, t.tx, []coin.ContractID{h.ContractID}, h.LockHolder); err != nil {
		return err
	}
	t.touched = append(t.touched, h.Owner)
	t.archive(h.ContractID)
	return nil
}

// archive consumes contracts; commit fails (and retries) if any was
// consumed by someone else meanwhile.
func (t *changes) archive(ids ...coin.ContractID) {
	t.archived = append(t.archived, ids...)
	t.reference = t.reference || len(ids) > 0
}

// Lock describes a lock on a new holding.
type Lock struct {
	Holder    string
	ExpiresAt time.Time
	Context   string
}

// newHolding creates a holding for owner at the current round; lock may be
// nil. An unlocked holding's contract is its holdings row alone
// (HoldingContract builds it when read); a locked one has a LockedAmulet
// contract as well, which choice contexts disclose.
func (t *changes) newHolding(owner coin.PartyID, amount coin.Amount, lock *Lock) coin.ContractID {
	h := store.Holding{Owner: owner, Amount: amount, CreatedRound: t.round.Number, Rate: t.l.rules.HoldingRate(t.round.Price), CreatedAt: t.now}
	if lock == nil {
		h.ContractID = coin.NewContractID()
	} else {
		ctxText := lock.Context
		h.ContractID = t.create(TemplateLockedAmulet, LockedAmuletPayload{Amulet: t.l.amuletOf(h), Lock: timeLock{
			Holders: []string{string(t.l.dso)}, ExpiresAt: FormatTime(lock.ExpiresAt), OptContext: &ctxText,
		}}, t.l.dso, owner)
		h.LockHolder, h.LockContext = lock.Holder, lock.Context
		h.LockExpiresAt = bun.NullTime{Time: lock.ExpiresAt}
	}
	t.holdings = append(t.holdings, h)
	return h.ContractID
}

// amuletOf is the Amulet payload of h, locked or not.
func (l *Ledger) amuletOf(h store.Holding) AmuletPayload {
	return AmuletPayload{DSO: l.dso, Owner: h.Owner, Amount: expiringAmount{
		InitialAmount: h.Amount, CreatedAt: RoundRefOf(h.CreatedRound), RatePerRound: rateRef{Rate: h.Rate},
	}}
}

// HoldingContract is the Amulet contract of an unlocked holding, built from
// its row as newHolding would have written it.
func (l *Ledger) HoldingContract(h store.Holding) *store.Contract {
	c := l.contract(h.ContractID, TemplateAmulet, l.amuletOf(h), h.CreatedAt, l.dso, h.Owner)
	c.CreatedOffset = h.CreatedOffset
	return &c
}

// mint adds newly issued coin as a holding of owner.
func (t *changes) mint(owner coin.PartyID, amount coin.Amount) coin.ContractID {
	t.minted = t.minted.Add(amount)
	return t.newHolding(owner, amount, nil)
}

// burn records coin destroyed by this transaction (fees, expiry, traffic).
func (t *changes) burn(amount coin.Amount) { t.burned = t.burned.Add(amount) }

// HistoryDetails is the rest of the record of one transaction as a party's
// history shows it, in the wallet API's transaction shape. Who sent and
// received what is not here: history.Item's Sender and Receivers are built
// from the amounts of the row (ledger/history's legs), so they add up to its Amount.
// (Rows written before carry sender and receivers too; they are ignored.)
type HistoryDetails struct {
	Provider     coin.PartyID    `json:"provider,omitempty"`
	HoldingFees  coin.Amount     `json:"holding_fees"`
	Fees         coin.Amount     `json:"fees"`
	Price        coin.Amount     `json:"amulet_price"`
	ContractID   coin.ContractID `json:"contract_id,omitempty"`
	TrackingID   string          `json:"tracking_id,omitempty"`
	Notification string          `json:"details,omitempty"`
	// Instructed is a transfer instruction's amount, on its creation's
	// row, whose amount is the lock: the amount and its fee reserve.
	Instructed *coin.Amount `json:"instructed,omitempty"`
}

// PartyAmount is a party and the amount it sent or received.
type PartyAmount struct {
	Party  coin.PartyID `json:"party"`
	Amount coin.Amount  `json:"amount"`
}

// record adds a history row for party.
func (t *changes) record(party coin.PartyID, kind HistoryKind, subtype string, counterparty coin.PartyID, amount, fees coin.Amount, description string, d HistoryDetails) {
	d.Price = t.round.Price
	var buf [512]byte
	b := d.appendJSON(buf[:0])
	t.history = append(t.history, store.HistoryEntry{
		Party: party, Kind: string(kind), Subtype: subtype, Counterparty: string(counterparty), Amount: amount,
		Fees: fees, Description: description, Round: t.round.Number, RecordTime: t.now, Details: string(b),
	})
}

// recordPair records a transaction that sender and receiver both see with
// the same kind, subtype, description and details, each with its own
// amount and fees, in one row: the sender's view, carrying the receiver's
// as its counter view (store.HistoryEntry). A party on both sides gets a
// row per side, as separate views.
func (t *changes) recordPair(sender, receiver coin.PartyID, kind HistoryKind, subtype string, senderAmount, senderFees, receiverAmount, receiverFees coin.Amount, description string, d HistoryDetails) {
	t.record(sender, kind, subtype, receiver, senderAmount, senderFees, description, d)
	if receiver == sender {
		t.record(receiver, kind, subtype, sender, receiverAmount, receiverFees, description, d)
		return
	}
	e := &t.history[len(t.history)-1]
	e.CounterAmount, e.CounterFees = &receiverAmount, &receiverFees
}

// commit writes the transaction: the update row, the contracts it created
// and archived, its holdings and history. The guarded archive runs on its
// own (its row count is the double-spend check); the rest goes to the
// database in one round trip.
func (t *txn) commit(ctx context.Context) error {
	if err := t.ensureOffset(ctx); err != nil {
		t.observe(err)
		return err
	}
	return commitVia(ctx, txWriter{t.tx, t.l.w}, []*changes{&t.changes})
}

// batchWriter is where commit writes: a bun.Tx, or the transaction of a
// batch of sends (whose write ends it).
type batchWriter interface {
	// archive is the guarded archive of contracts that existed before
	// the transaction (ErrStale when any was archived meanwhile).
	archive(ctx context.Context, ids []coin.ContractID, offset int64) error
	// write writes w in one round trip.
	write(ctx context.Context, w *store.Writes) error
}

// txWriter is batchWriter on a bun.Tx, writing through the ledger's
// store.Writer.
type txWriter struct {
	tx bun.Tx
	w  store.Writer
}

func (w txWriter) archive(ctx context.Context, ids []coin.ContractID, offset int64) error {
	return store.ArchiveContracts(ctx, w.tx, ids, offset)
}

func (w txWriter) write(ctx context.Context, ws *store.Writes) error {
	return w.w.WriteTx(ctx, w.tx, ws)
}

// commitVia commits several ledger transactions' changes, each with its
// offset drawn, through w: each keeps its own
// offset, update row and history, and their rows go to the database
// together, in one round trip. With no transactions it still writes
// (nothing), which ends a batch of sends' transaction.
func commitVia(ctx context.Context, w batchWriter, ts []*changes) (err error) {
	var ws store.Writes
	if len(ts) == 0 {
		return w.write(ctx, &ws)
	}
	defer func() {
		for _, t := range ts {
			t.observe(err)
		}
	}()
	reserveWrites(&ws, ts)
	for _, t := range ts {
		// The last guard of the amount limit: an amount no column can hold
		// fails on Postgres (numeric field overflow) and, stored on
		// SQLite, breaks the reads that parse it. Entry points check their
		// inputs; this catches a sum. The update's totals are columns too.
		for _, h := range t.holdings {
			if err := bounds.CheckFits("amount", h.Amount); err != nil {
				return err
			}
		}
		for _, total := range []coin.Amount{t.minted, t.burned} {
			if err := bounds.CheckFits("amount", total); err != nil {
				return err
			}
		}
		existing, err := t.settleArchives()
		if err != nil {
			return err
		}
		if err := w.archive(ctx, existing, t.offset); err != nil {
			return err
		}
		ws.Updates = append(ws.Updates, store.Update{
			OffsetID: t.offset, UpdateID: t.update, Kind: t.kind, Submitter: string(t.l.operator), Round: t.round.Number,
			RecordTime: t.now, Minted: t.minted, Burned: t.burned, TrafficBytes: t.traffic, ActedBy: t.actedBy,
		})
		ws.Spend = append(ws.Spend, t.inputs...)
		for range t.inputs {
			ws.SpendAt = append(ws.SpendAt, t.offset)
		}
		for i := range t.created {
			t.created[i].CreatedOffset = t.offset
		}
		ws.Contracts = append(ws.Contracts, t.created...)
		for i := range t.holdings {
			t.holdings[i].CreatedOffset = t.offset
		}
		ws.Holdings = append(ws.Holdings, t.holdings...)
		for i := range t.history {
			t.history[i].OffsetID = t.offset
		}
		ws.History = append(ws.History, t.history...)
		for i := range t.coupons {
			t.coupons[i].CreatedOffset = t.offset
		}
		ws.Coupons = append(ws.Coupons, t.coupons...)
		for i := range t.commands {
			t.commands[i].OffsetID = &t.offset
		}
		ws.Commands = append(ws.Commands, t.commands...)
		for i := range t.completions {
			t.completions[i].OffsetID = t.offset
		}
		ws.Completions = append(ws.Completions, t.completions...)
		ws.Forget = append(ws.Forget, t.forget...)
		ws.Touched = append(ws.Touched, t.touched...)
	}
	return w.write(ctx, &ws)
}

// reserveWrites makes ws's slices at the size ts fill: growing them by
// append was a fifth of the bytes a send batch allocated.
func reserveWrites(ws *store.Writes, ts []*changes) {
	var spend, contracts, holdings, history, coupons, commands, completions int
	for _, t := range ts {
		spend += len(t.inputs)
		contracts += len(t.created)
		holdings += len(t.holdings)
		history += len(t.history)
		coupons += len(t.coupons)
		commands += len(t.commands)
		completions += len(t.completions)
	}
	ws.Updates = make([]store.Update, 0, len(ts))
	ws.Spend, ws.SpendAt = make([]coin.ContractID, 0, spend), make([]int64, 0, spend)
	ws.Contracts = make([]store.Contract, 0, contracts)
	ws.Holdings = make([]store.Holding, 0, holdings)
	ws.History = make([]store.HistoryEntry, 0, history)
	ws.Coupons = make([]store.RewardCoupon, 0, coupons)
	ws.Commands = make([]store.Command, 0, commands)
	ws.Completions = make([]store.Completion, 0, completions)
}

// settleArchives marks the contracts t both created and archived; it
// returns the archived contracts that existed before t, which need the
// guarded archive.
func (t *changes) settleArchives() ([]coin.ContractID, error) {
	if t.offset == 0 {
		return nil, errors.New("commit of a ledger transaction without its offset")
	}
	createdHere := make(map[coin.ContractID]int, len(t.created))
	for i, c := range t.created {
		createdHere[c.ContractID] = i
	}
	existing := t.archived[:0:0]
	for _, id := range t.archived {
		if i, ok := createdHere[id]; ok {
			if t.created[i].ArchivedOffset != nil {
				return nil, fmt.Errorf("contract %s archived twice in one transaction: %w", id, store.ErrStale)
			}
			off := t.offset
			t.created[i].ArchivedOffset = &off
			continue
		}
		existing = append(existing, id)
	}
	return existing, nil
}

// ensureOffset draws t's offset if it has none yet: transactions begun
// without a claim (bootstrap, the round clock's) take it when they first
// need it, to record an archive or at commit.
func (t *txn) ensureOffset(ctx context.Context) error {
	if t.offset != 0 {
		return nil
	}
	_, off, err := t.l.db.BeginUpdate(ctx, t.tx)
	if err != nil {
		return err
	}
	t.offset = off
	return nil
}

// UUIDHex is a fresh update ID's hex: a version 7 UUID, time-ordered, so
// that the updates' unique index takes new IDs at its right edge instead
// of at random leaves.
func UUIDHex() string {
	u := uuid.Must(uuid.NewV7())
	return hex.EncodeToString(u[:])
}
