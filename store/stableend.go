package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sync"
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
// StableEnd reads the sequence's last value D first, then the tickets,
// then MAX(offset_id) M, and answers min(M, D, lowest ticket). An offset
// at or below that was drawn before D was read, so by a transaction that
// took its ticket before the tickets were read: either it has ended (committed,
// and visible to the later read of M, or rolled back: a gap that stays),
// or its ticket holds the answer below it. The answer never goes back.
//
// Another replica's tickets live in its own process, so every draw also
// leaves a mark all replicas can see: the database function that draws
// (ccwallet_draw_offset, migration 0436) first takes, once per
// transaction, a shared transaction-scoped advisory lock whose key holds
// the highest offset issued before the draw. StableEnd reads the lowest
// such key in pg_locks after D, with M, and answers below it too: the
// same argument, with the lock for the ticket. A lock is released only
// once its transaction's commit is visible.
//
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

// noteIssued raises the floor to offset, which the sequence has issued.
func (db *DB) noteIssued(offset int64) {
	w := &db.watch
	w.mu.Lock()
	w.floor = max(w.floor, offset)
	w.mu.Unlock()
}

// StableEnd is the ledger end a reader may start from: the highest offset
// at or below which every update of this process is committed (or rolled
// back for good). On SQLite it is LedgerEnd.
func (db *DB) StableEnd(ctx context.Context) (int64, error) {
	if db.Engine != Postgres {
		return LedgerEnd(ctx, db)
	}
	var issued int64
	err := db.NewRaw("SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM "+OffsetSequence).Scan(ctx, &issued)
	if err != nil {
		return 0, fmt.Errorf("ledger end: %w", Normalize(err))
	}
	w := &db.watch
	w.mu.Lock()
	w.floor = max(w.floor, issued)
	lowest := int64(math.MaxInt64)
	for _, lb := range w.live {
		lowest = min(lowest, lb)
	}
	w.mu.Unlock()
	// Read after issued: every offset drawn by then was drawn under a
	// lock this sees if its transaction still runs.
	var end int64
	var locked sql.NullInt64
	if err := db.QueryRowContext(ctx, stableEndSQL).Scan(&end, &locked); err != nil {
		return 0, fmt.Errorf("ledger end: %w", Normalize(err))
	}
	if locked.Valid {
		lowest = min(lowest, locked.Int64)
	}
	return min(end, issued, lowest), nil
}

// offsetFloorSpace is the high bits of the offset-floor locks' keys
// (migration 0436): key = offsetFloorSpace<<40 + floor.
const offsetFloorSpace = 6078625

// stableEndSQL reads MAX(offset_id) and the lowest offset floor locked by
// a running transaction of this database (pg_locks shows a bigint key's
// high and low 32 bits as classid and objid, objsubid 1).
var stableEndSQL = fmt.Sprintf(`SELECT
	(SELECT COALESCE(MAX(offset_id), 0) FROM updates),
	(SELECT min(((classid::int8 << 32) | objid::int8) - (%[1]d::int8 << 40)) FROM pg_locks
		WHERE locktype = 'advisory' AND objsubid = 1
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND classid::int8 >= (%[1]d::int8 << 8) AND classid::int8 < ((%[1]d::int8 + 1) << 8))`, offsetFloorSpace)
