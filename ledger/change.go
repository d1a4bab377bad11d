package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/impersonation"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// change is one ledger change being made: the database transaction it
// runs in and the txn it has begun there, if any (at most one).
type change struct {
	l  *Ledger
	tx bun.Tx
	t  *txn
	// actor is the admin acting as another party (ActingAs), "".
	actor string
}

// change runs body as one ledger change, in one database transaction that
// store.DB.InTx retries on serialization failures and lost races (so body
// must be safe to run again: it re-reads what it needs, through c.tx).
// body checks and reads what it needs, begins the change's txn (c.begin,
// c.beginAt) once it knows there is something to change, and records the
// effects on it. change then commits the txn (txn.commit: the update row
// and all its rows in one round trip, reported to the Observer), runs the
// steps body left for after the commit (txn.afterCommit), and commits the
// database transaction. An error or a panic anywhere rolls all of it
// back. A body that begins no txn, or drops it, writes only what it wrote
// itself through c.tx: a deduplicated retry writes nothing.
//
// Every database transaction of the ledger runs here, and every txn is
// begun here, except two: the grouped one-step sends (sendbatch.go),
// whose batch commits several txns together through commitVia, and the
// conservation audit's read-only snapshot (conservation.go).
func (l *Ledger) change(ctx context.Context, body func(ctx context.Context, c *change) error) error {
	wrote, reference := false, false
	var completed []string
	var offset int64
	err := l.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		c := &change{l: l, tx: tx, actor: impersonation.ActorOf(ctx)}
		wrote, reference, completed = false, false, nil
		if err := body(ctx, c); err != nil {
			return err
		}
		if c.t == nil {
			return nil
		}
		wrote, reference = true, c.t.reference
		if err := c.t.commit(ctx); err != nil {
			return err
		}
		for _, step := range c.t.after {
			if err := step(ctx); err != nil {
				return err
			}
		}
		completed, offset = c.t.completedBy, c.t.offset
		return nil
	})
	if err == nil && wrote {
		if reference {
			l.referenceVersion.Add(1)
		}
		for _, u := range completed {
			l.completionMarks.note(u, offset)
		}
		l.committed()
	}
	return err
}

// begin begins the change's txn at the latest open round and claims its
// offset, first taking the parties' locks, all in one round trip
// (store.DB.BeginUpdate), so operations on one party queue.
func (c *change) begin(ctx context.Context, kind string, parties ...coin.PartyID) (*txn, error) {
	c.once(kind)
	r, offset, err := c.l.db.BeginUpdate(ctx, c.tx, partyLockKeys(parties)...)
	if err != nil {
		return nil, err
	}
	if r, err = c.l.Rounds().usable(ctx, c.tx, r); err != nil {
		return nil, err
	}
	t := c.beginAt(kind, r)
	t.offset = offset
	return t, nil
}

// beginAt begins the change's txn at round r, which may be one the
// change itself opens (bootstrap, the round clock). It claims no offset:
// the txn draws one when it first needs it (ensureOffset).
func (c *change) beginAt(kind string, r *store.Round) *txn {
	c.once(kind)
	c.t = &txn{changes: c.l.newChanges(kind, r), tx: c.tx}
	c.t.actedBy = c.actor
	return c.t
}

// once refuses a second txn in one change: one change is one update.
func (c *change) once(kind string) {
	if c.t != nil {
		panic(fmt.Sprintf("ledger change %q begun twice (already %q)", kind, c.t.kind))
	}
}

// drop forgets the txn begun: the body found nothing to change after all
// and recorded nothing, so no update is written.
func (c *change) drop() { c.t = nil }

// afterCommit leaves step to run after t's commit, in the same database
// transaction: the writes that need t's update row and offset first (the
// read models' rows, a command's stored result). Steps run in order; an
// error rolls the whole change back. Only change runs them: the grouped
// sends' commitVia does not.
func (t *txn) afterCommit(step func(ctx context.Context) error) {
	t.after = append(t.after, step)
}
