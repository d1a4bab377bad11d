package store

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// The stable ledger end. On Postgres a transaction draws its offset from
// a sequence when it begins and commits later, so transactions commit
// out of offset order: while one that drew offset 7 still runs, another
// commits offset 8, and MAX(offset_id) says 8. A client that takes 8 as
// its begin offset (the wallet SDK reads the ledger end before it
// executes, then waits for the completion after it) never sees offset 7
// when it commits. Canton's ledger end only passes an offset once every
// offset up to it is written, so a stream from any ledger end it handed
// out replays every later commit; StableEnd gives the same promise.
//
// How: every write transaction of this process holds a ticket from just
// before it draws its first offset to its end (InTx, TrackWrite), holding
// the highest offset known issued then, below every offset it can draw.
// StableEnd reads the sequence's last value D and MAX(offset_id) M in one
// statement, then the tickets, and answers min(M, D, lowest ticket). An
// offset at or below that was drawn before D was read, so by a
// transaction that took its ticket before the tickets were read: either
// it has ended by then (committed, or rolled back: a gap that stays), or
// its ticket holds the answer below it. So every offset up to the answer
// is written when it is handed out, though one may have committed after
// the statement's snapshot (M only caps the answer at what exists). The
// answer never goes back. Once a transaction's own offsets come back its
// ticket rises to just below the lowest (Drew): it can draw none lower.
// Another replica's transactions are not covered: their tickets live in
// their own process. (Migration 0436 marked every draw with an advisory
// lock all replicas could see; it cut sends tenfold and 0437 took it out.)
// SQLite's write transactions are exclusive and take max + 1, so its
// MAX(offset_id) is stable already.
type writeWatch struct {
	mu   sync.Mutex
	next uint64
	// live maps each running write transaction's ticket to the offset
	// below all that it may draw.
	live map[uint64]int64
	// floor is the highest offset known to be issued.
	floor int64
	// committed is the highest offset known committed: by a transaction
	// of this process (Committed), or read as MAX(offset_id) (StableEnd).
	committed int64
	// epoch counts ForgetEnds: a StableEnd whose read began before one
	// read the old network and keeps what it learned to itself. Written
	// under mu, read before the read without it (no second lock a read).
	epoch atomic.Uint64
}

// writeSlot is a transaction's place in the watch: its ticket, once it
// draws an offset.
type writeSlot struct {
	id  uint64
	set bool
}

type writeSlotKey struct{}

// TrackWrite returns ctx for a transaction about to begin, and the
// function that ends its registration, to call once it has committed or
// rolled back. The transaction takes its ticket when it first draws an
// offset (BeginUpdate, BeginClaims, pgbatch), so reads hold the end back not at
// all. InTx calls it; a transaction begun otherwise that draws offsets
// (store/pgbatch's pipelined one) calls it itself.
func (db *DB) TrackWrite(ctx context.Context) (context.Context, func()) {
	if db.Engine != Postgres {
		return ctx, func() {}
	}
	slot := &writeSlot{}
	return context.WithValue(ctx, writeSlotKey{}, slot), func() {
		if slot.set {
			w := &db.watch
			w.mu.Lock()
			delete(w.live, slot.id)
			w.mu.Unlock()
			slot.set = false
		}
	}
}

// Drawing registers ctx's transaction, before it draws its first offset,
// with the floor as its bound.
func (db *DB) Drawing(ctx context.Context) {
	slot, _ := ctx.Value(writeSlotKey{}).(*writeSlot)
	if db.Engine != Postgres || slot == nil || slot.set {
		return
	}
	w := &db.watch
	w.mu.Lock()
	if w.live == nil {
		w.live = map[uint64]int64{}
	}
	w.next++
	slot.id, slot.set = w.next, true
	w.live[slot.id] = w.floor
	w.mu.Unlock()
}

// Drew notes the offsets ctx's transaction drew (0s, claims not taken,
// left out): the floor rises to the highest, and the transaction's
// ticket to just below the lowest. The sequence hands out increasing
// values, so whatever the transaction draws later is above that too, and
// an offset below it is another transaction's, held back by that one's
// own ticket. So a transaction whose ticket was taken while another's
// offsets were being drawn (the floor did not know them yet) stops
// holding those back once its own come: a reader need not wait for its
// commit to see the other's.
func (db *DB) Drew(ctx context.Context, offsets ...int64) {
	if db.Engine != Postgres {
		return
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, o := range offsets {
		if o > 0 {
			lo, hi = min(lo, o), max(hi, o)
		}
	}
	if hi == 0 {
		return
	}
	w := &db.watch
	w.mu.Lock()
	w.floor = max(w.floor, hi)
	if slot, _ := ctx.Value(writeSlotKey{}).(*writeSlot); slot != nil && slot.set {
		if t, ok := w.live[slot.id]; ok {
			w.live[slot.id] = max(t, lo-1)
		}
	}
	w.mu.Unlock()
}

// afterEndRead, set by tests only, runs in StableEnd between its read and
// what it learns from it.
var afterEndRead atomic.Pointer[func(db *DB)]

// stableEndSQL reads the highest offset drawn and the highest committed.
const stableEndSQL = "SELECT (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM " + OffsetSequence +
	"), (SELECT COALESCE(MAX(offset_id), 0) FROM updates)"

// StableEnd is the ledger end a reader may start from: the highest offset
// at or below which every update of this process is committed (or rolled
// back for good). On SQLite it is LedgerEnd.
func (db *DB) StableEnd(ctx context.Context) (int64, error) {
	if db.Engine != Postgres {
		return LedgerEnd(ctx, db)
	}
	var issued, end int64
	w := &db.watch
	epoch := w.epoch.Load()
	// Prepared once per connection: every Ledger API read and completions
	// stream asks for it, and planning it costs more than running it.
	err := db.DB.DB.QueryRowContext(ctx, stableEndSQL, CachedStatement()...).Scan(&issued, &end)
	if err != nil {
		return 0, fmt.Errorf("ledger end: %w", Normalize(err))
	}
	if hook := afterEndRead.Load(); hook != nil {
		(*hook)(db)
	}
	w.mu.Lock()
	if w.epoch.Load() == epoch {
		w.floor = max(w.floor, issued)
		w.committed = max(w.committed, min(end, issued))
	}
	lowest := w.lowestLocked()
	w.mu.Unlock()
	return min(end, issued, lowest), nil
}

// lowestLocked is the lowest bound of the running write transactions,
// MaxInt64 with none; w.mu is held.
func (w *writeWatch) lowestLocked() int64 {
	lowest := int64(math.MaxInt64)
	for _, lb := range w.live {
		lowest = min(lowest, lb)
	}
	return lowest
}

// Committed notes offsets of a transaction of this process that has
// committed (its COMMIT answered), for KnownEnd. A caller that does not
// note its commits only keeps KnownEnd lower.
func (db *DB) Committed(offsets ...int64) {
	if db.Engine != Postgres {
		return
	}
	hi := int64(0)
	for _, o := range offsets {
		hi = max(hi, o)
	}
	w := &db.watch
	w.mu.Lock()
	w.committed = max(w.committed, hi)
	w.mu.Unlock()
}

// ForgetEnds forgets the offsets known issued and committed, for a
// restore or reset of a development network, which moves the offsets
// back: a floor or known end from the old network would hold no new
// transaction back (StableEnd) or answer past the restored end
// (KnownEnd), and a reader would skip what commits below it. The
// network's gate is closed meanwhile, so no write transaction runs; a
// read of the end may (the streams' hub polls), and what one that began
// before is not kept.
func (db *DB) ForgetEnds() {
	w := &db.watch
	w.mu.Lock()
	w.floor, w.committed = 0, 0
	w.epoch.Add(1)
	w.mu.Unlock()
}

// KnownEnd is a stable ledger end known without reading the database, 0
// when none is (and always on SQLite): the highest offset known
// committed (Committed, and StableEnd's reads of MAX(offset_id)), held
// below every running write transaction of this process as StableEnd
// holds its answer. What it knows committed was committed before the
// tickets are read here, so it is never above what StableEnd would
// answer now, and an end below a true one is true. What it lacks is what
// other replicas committed since this process last read the end, so a
// reader takes it only where a poll of StableEnd catches up on those
// (the completions stream: ledger/apiread's CompletionsPageKnown).
func (db *DB) KnownEnd() int64 {
	if db.Engine != Postgres {
		return 0
	}
	w := &db.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	return min(w.committed, w.lowestLocked())
}
