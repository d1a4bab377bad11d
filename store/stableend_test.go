package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// TestStableEnd: on Postgres, where transactions commit out of offset
// order, the ledger end stays below an offset drawn by a transaction
// still running while a later offset commits, so a reader starting from
// it meets that update when it commits; then it moves on. On both
// engines it is the last offset once nothing runs.
func TestStableEnd(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			db := roundOneDB(t, e)
			commit := func() int64 { return commitUpdate(t, db) }
			end := func() int64 { return stableEnd(t, db) }
			first := commit()
			if got := end(); got != first {
				t.Fatalf("ledger end %d after offset %d committed, want it", got, first)
			}
			if e != store.Postgres {
				return // SQLite's write transactions are exclusive: in offset order.
			}
			slow, release := runningUpdate(t, db)
			fast := commit()
			if fast <= slow {
				t.Fatalf("offsets %d then %d, want increasing", slow, fast)
			}
			if got := end(); got >= slow {
				t.Errorf("ledger end %d while offset %d runs and %d committed: a reader from it would miss %d", got, slow, fast, slow)
			}
			release()
			if got := end(); got != fast {
				t.Errorf("ledger end %d once both committed, want %d", got, fast)
			}
		})
	}
}

// TestKnownEnd: the end this process knows without a read is never above
// the stable end and, like it, stays below an offset a transaction of
// this process still runs while a later one commits (a completions stream
// that took it would skip that offset for good); it rises with the
// commits noted (store.DB.Committed, as the send batches note theirs)
// and with the stable end's reads. SQLite has none (0).
func TestKnownEnd(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			db := roundOneDB(t, e)
			end := func() int64 { return stableEnd(t, db) }
			first := commitUpdate(t, db)
			if e != store.Postgres {
				db.Committed(first)
				if got := db.KnownEnd(); got != 0 {
					t.Fatalf("known end %d on SQLite, want 0 (none)", got)
				}
				return
			}
			if got := db.KnownEnd(); got != 0 {
				t.Fatalf("known end %d before any commit was noted or the end read, want 0", got)
			}
			if got, want := end(), first; got != want {
				t.Fatalf("stable end %d, want %d", got, want)
			}
			if got := db.KnownEnd(); got != first {
				t.Fatalf("known end %d after the stable end read %d, want it", got, first)
			}
			slow, release := runningUpdate(t, db)
			fast := commitUpdate(t, db)
			db.Committed(fast)
			if got := db.KnownEnd(); got >= slow {
				t.Errorf("known end %d while offset %d runs and %d committed: a reader from it would miss %d", got, slow, fast, slow)
			}
			if got, stable := db.KnownEnd(), end(); got > stable {
				t.Errorf("known end %d above the stable end %d", got, stable)
			}
			release()
			if got := db.KnownEnd(); got != fast {
				t.Errorf("known end %d once both committed, want %d", got, fast)
			}
		})
	}
}

// TestForgetEndsDuringARead: a read of the end that began before a
// restore forgot the offsets (store.DB.ForgetEnds) read the old network:
// what it learned is not kept, or the known end would answer past the
// restored network's end.
func TestForgetEndsDuringARead(t *testing.T) {
	db := roundOneDB(t, store.Postgres)
	commitUpdate(t, db)
	store.SetAfterEndRead(func(db *store.DB) { db.ForgetEnds() })
	t.Cleanup(func() { store.SetAfterEndRead(nil) })
	stableEnd(t, db)
	if got := db.KnownEnd(); got != 0 {
		t.Errorf("known end %d after a read that began before the offsets were forgotten, want 0", got)
	}
}

// roundOneDB is a database of engine e with round 1 in it.
func roundOneDB(t *testing.T, e store.Dialect) *store.DB {
	t.Helper()
	db := ledgertest.DB(t, e)
	if err := store.InsertRound(context.Background(), db, &store.Round{Number: 1, Price: coin.MustParse("0.005")}); err != nil {
		t.Fatal(err)
	}
	return db
}

// stableEnd is db's stable end.
func stableEnd(t *testing.T, db *store.DB) int64 {
	t.Helper()
	got, err := db.StableEnd(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// writeUpdate draws an offset in tx and writes its update row.
func writeUpdate(ctx context.Context, db *store.DB, tx bun.Tx) (int64, error) {
	_, off, err := db.BeginUpdate(ctx, tx)
	if err != nil {
		return 0, err
	}
	u := store.Update{OffsetID: off, UpdateID: "u" + time.Now().Format("150405.000000000"), Kind: "test", Minted: coin.Zero, Burned: coin.Zero, RecordTime: time.Now()}
	_, err = tx.NewInsert().Model(&u).Exec(ctx)
	return off, err
}

// commitUpdate writes an update in a transaction of its own on db and
// returns its offset.
func commitUpdate(t *testing.T, db *store.DB) int64 {
	t.Helper()
	var off int64
	if err := db.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) (err error) {
		off, err = writeUpdate(ctx, db, tx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return off
}

// runningUpdate starts a transaction on db that draws an offset and
// writes its update, and keeps it open until release, which commits it.
func runningUpdate(t *testing.T, db *store.DB) (offset int64, release func()) {
	t.Helper()
	drawn, proceed, done := make(chan int64), make(chan struct{}), make(chan error)
	go func() {
		done <- db.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
			off, err := writeUpdate(ctx, db, tx)
			if err != nil {
				close(drawn)
				return err
			}
			drawn <- off
			<-proceed
			return nil
		})
	}()
	offset, ok := <-drawn
	if !ok {
		t.Fatal(<-done)
	}
	return offset, func() {
		t.Helper()
		close(proceed)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestStableEndRisesWithOwnOffsets: a transaction whose ticket was taken
// before another's offset was drawn holds that offset back only until it
// draws its own: its ticket then rises to just below its own offset, and
// the other's commit is readable while it still runs (a send batch that
// began beside another no longer hides the other's completions).
func TestStableEndRisesWithOwnOffsets(t *testing.T) {
	ctx := context.Background()
	db := roundOneDB(t, store.Postgres)
	end := func() int64 { return stableEnd(t, db) }
	first := commitUpdate(t, db)
	entered, proceed, finish := make(chan struct{}), make(chan struct{}), make(chan struct{})
	drawn, done := make(chan int64, 1), make(chan error, 1)
	go func() {
		done <- db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			db.Drawing(ctx) // the ticket, taken before anything is drawn
			close(entered)
			<-proceed
			off, err := writeUpdate(ctx, db, tx)
			drawn <- off
			<-finish
			return err
		})
	}()
	<-entered
	other := commitUpdate(t, db)
	if got := end(); got != first {
		t.Fatalf("ledger end %d with a ticket taken at %d and %d committed above it, want %d", got, first, other, first)
	}
	close(proceed)
	own := <-drawn
	if got := end(); got != other {
		t.Errorf("ledger end %d once the running transaction drew %d, want %d: its ticket no longer holds back the offsets below its own", got, own, other)
	}
	close(finish)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := end(); got != own {
		t.Errorf("ledger end %d once both committed, want %d", got, own)
	}
}

// TestHotReadsArePrepared: the reads a client waiting for its command's
// completion makes (the stable end, then its completions after an
// offset) run on Postgres as statements prepared once per connection,
// on a generic plan, and read what they did as plain statements.
func TestHotReadsArePrepared(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.Postgres)
	db.DB.DB.SetMaxOpenConns(1) // one session, whose prepared statements the check lists
	if err := store.InsertRound(ctx, db, &store.Round{Number: 1, Price: coin.MustParse("0.005")}); err != nil {
		t.Fatal(err)
	}
	off := commitUpdate(t, db)
	at := time.Date(2026, 11, 30, 1, 2, 3, 456789000, time.UTC)
	c := &store.Completion{OffsetID: off, UserID: "alice", CommandID: "c1", ActAs: ",alice::1,", SubmissionID: "s1",
		UpdateID: "u1", StatusCode: 0, Message: "it's $1 and ?", RecordTime: at}
	if err := store.InsertCompletion(ctx, db, c); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		end, err := db.StableEnd(ctx)
		if err != nil || end != off {
			t.Fatalf("stable end = %d, %v; want %d", end, err, off)
		}
		got, pruned, err := store.CompletionsAfter(ctx, db, "alice", 0, end, 10)
		if err != nil || pruned != 0 {
			t.Fatalf("completions: pruned %d, %v; want 0", pruned, err)
		}
		want := store.PageCompletion{Completion: *c}
		if len(got) != 1 || !got[0].RecordTime.Equal(at) {
			t.Fatalf("completions = %+v, want %+v", got, want)
		}
		got[0].RecordTime = at
		if got[0] != want {
			t.Fatalf("completion = %+v, want %+v", got[0], want)
		}
		if got, pruned, err := store.CompletionsAfter(ctx, db, "alice", off, end, 10); err != nil || len(got) != 0 || pruned != 0 {
			t.Fatalf("completions after the last = %+v, pruned %d, %v; want none", got, pruned, err)
		}
	}
	// Each plan was made on these near-empty tables, the worst case for a
	// generic plan, and must still find its rows by an index.
	for _, c := range []struct{ like, args, index string }{
		{"%updates_offset_id_seq%", "", "Index Only Scan Backward using updates_pkey"},
		{"%FROM completions WHERE user_id = $1%", "('alice', 0, 100, 10)", "Index Scan using completions_user"},
	} {
		var name string
		var generic int64
		err := db.NewRaw("SELECT name, generic_plans FROM pg_prepared_statements WHERE statement LIKE ?", c.like).Scan(ctx, &name, &generic)
		if err != nil {
			t.Errorf("no prepared statement like %s: %v", c.like, err)
			continue
		} else if generic < 3 {
			t.Errorf("statement like %s ran %d times on a generic plan, want every time (3+)", c.like, generic)
		}
		var plan []string
		if err := db.NewRaw("EXPLAIN EXECUTE "+name+c.args).Scan(ctx, &plan); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(plan, "\n"), c.index) {
			t.Errorf("statement like %s: plan\n%s\nwant %s", c.like, strings.Join(plan, "\n"), c.index)
		}
	}
}
