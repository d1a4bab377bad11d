package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// TestMigrateConcurrently starts four "replicas" migrating one empty
// database at once: every migration is applied exactly once.
func TestMigrateConcurrently(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			url := ledgertest.DBURL(t, e)
			if e == store.Postgres {
				// DBURL clones the migrated template; start from an empty one.
				db, err := store.Open(ctx, store.Config{URL: url}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, "DROP SCHEMA public CASCADE; CREATE SCHEMA public"); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			var wg sync.WaitGroup
			applied := make([][]string, 4)
			errs := make([]error, 4)
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					db, err := store.Open(ctx, store.Config{URL: url}, nil)
					if err != nil {
						errs[i] = err
						return
					}
					defer db.Close()
					applied[i], errs[i] = db.Migrate(ctx)
				}()
			}
			wg.Wait()
			total := 0
			for i := range 4 {
				if errs[i] != nil {
					t.Fatalf("replica %d: %v", i, errs[i])
				}
				total += len(applied[i])
			}
			ms, _ := store.Migrations()
			if total != len(ms) {
				t.Errorf("applied %d migrations in all, want %d (each once)", total, len(ms))
			}
		})
	}
}

func TestGuardsAndErrors(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := ledgertest.DB(t, e)
			if err := store.InsertMeta(ctx, db, "k", "v"); err != nil {
				t.Fatal(err)
			}
			if err := store.InsertMeta(ctx, db, "k", "w"); !errors.Is(err, store.ErrAlreadyExists) {
				t.Errorf("duplicate key = %v, want ErrAlreadyExists", err)
			}
			if _, err := store.MetaValue(ctx, db, "missing"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("missing key = %v, want ErrNotFound", err)
			}
			a, b := coin.NewContractID(), coin.NewContractID()
			hs := []store.Holding{
				{ContractID: a, Owner: "o::x", Amount: coin.MustParse("1.5"), Rate: coin.MustParse("0.1")},
				{ContractID: b, Owner: "o::x", Amount: coin.MustParse("2"), Rate: coin.MustParse("0.1"), LockHolder: "lock"},
			}
			if err := store.InsertHoldings(ctx, db, hs); err != nil {
				t.Fatal(err)
			}
			got, err := store.HoldingsByOwner(ctx, db, "o::x")
			if err != nil || len(got) != 2 {
				t.Fatalf("holdings = %v, %v", got, err)
			}
			spend := func(ids []coin.ContractID) error {
				return db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { return store.SpendHoldings(ctx, tx, ids, 5) })
			}
			spent := func() []store.SpentHolding {
				var ss []store.SpentHolding
				if err := db.NewSelect().Model(&ss).Order("contract_id").Scan(ctx); err != nil {
					t.Fatal(err)
				}
				return ss
			}
			// A locked holding cannot be spent as unlocked, and the failed
			// transaction leaves the unlocked one in place, unrecorded.
			if err := spend([]coin.ContractID{a, b}); !errors.Is(err, store.ErrStale) {
				t.Errorf("spend incl. locked = %v, want ErrStale", err)
			}
			if got, _ := store.HoldingsByOwner(ctx, db, "o::x"); len(got) != 2 {
				t.Fatalf("after a refused spend %d holdings remain, want 2", len(got))
			}
			if ss := spent(); len(ss) != 0 {
				t.Fatalf("a refused spend recorded %v", ss)
			}
			if err := spend([]coin.ContractID{a}); err != nil {
				t.Fatal(err)
			}
			if ss := spent(); len(ss) != 1 || ss[0].ContractID != a || ss[0].SpentOffset != 5 || !ss[0].Amount.Equal(coin.MustParse("1.5")) {
				t.Errorf("spent holdings = %+v, want a at offset 5", ss)
			}
			if err := spend([]coin.ContractID{a}); !errors.Is(err, store.ErrStale) {
				t.Errorf("second spend = %v, want ErrStale", err)
			}
			if err := store.DeleteHoldings(ctx, db, []coin.ContractID{b}, ""); err == nil {
				t.Error("DeleteHoldings of unlocked holdings succeeded; they must be spent")
			}
			if err := store.DeleteHoldings(ctx, db, []coin.ContractID{b}, "other"); !errors.Is(err, store.ErrStale) {
				t.Errorf("delete by another lock holder = %v, want ErrStale", err)
			}
			if err := store.DeleteHoldings(ctx, db, []coin.ContractID{b}, "lock"); err != nil {
				t.Errorf("delete by lock holder: %v", err)
			}
		})
	}
}

// TestWriteSpendGuard: the write's spend (Postgres) is guarded like
// DeleteHoldings: a locked, missing or already spent holding fails the
// whole write with ErrStale and the transaction's other rows roll back.
func TestWriteSpendGuard(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.Postgres)
	a, b, c := coin.NewContractID(), coin.NewContractID(), coin.NewContractID()
	hs := []store.Holding{
		{ContractID: a, Owner: "o::x", Amount: coin.MustParse("1.5"), Rate: coin.MustParse("0.1")},
		{ContractID: b, Owner: "o::x", Amount: coin.MustParse("2"), Rate: coin.MustParse("0.1"), LockHolder: "lock"},
		{ContractID: c, Owner: "o::x", Amount: coin.MustParse("3"), Rate: coin.MustParse("0.1")},
	}
	if err := store.InsertHoldings(ctx, db, hs); err != nil {
		t.Fatal(err)
	}
	spend := func(name string, ids ...coin.ContractID) error {
		return db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			at := make([]int64, len(ids))
			for i := range at {
				at[i] = 9
			}
			return store.WriteTx(ctx, tx, &store.Writes{Spend: ids, SpendAt: at, Commands: []store.Command{
				{DedupKey: "spent-" + name, Party: "o::x", Kind: "test", Result: "{}", CreatedAt: time.Now()},
			}})
		})
	}
	tests := []struct {
		name   string
		ids    []coin.ContractID
		stale  bool
		remain int
	}{
		{"locked", []coin.ContractID{a, b}, true, 3},
		{"missing", []coin.ContractID{a, coin.NewContractID()}, true, 3},
		{"unlocked", []coin.ContractID{a, c}, false, 1},
		{"again", []coin.ContractID{a}, true, 1},
	}
	for _, tt := range tests {
		err := spend(tt.name, tt.ids...)
		if got := errors.Is(err, store.ErrStale); got != tt.stale || (!tt.stale && err != nil) {
			t.Errorf("%s: spend = %v, want stale %v", tt.name, err, tt.stale)
		}
		got, err := store.HoldingsByOwner(ctx, db, "o::x")
		if err != nil || len(got) != tt.remain {
			t.Errorf("%s: %d holdings remain (%v), want %d", tt.name, len(got), err, tt.remain)
		}
		_, err = store.CommandByKey(ctx, db, "spent-"+tt.name)
		if tt.stale != errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: the write's other row: %v, want it only when the spend succeeded", tt.name, err)
		}
	}
	// The one spend that went through is recorded, with the holdings as
	// they were; a second record of a holding would break the key.
	var ss []store.SpentHolding
	if err := db.NewSelect().Model(&ss).Order("contract_id").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	want := []store.SpentHolding{
		{ContractID: a, Owner: "o::x", Amount: coin.MustParse("1.5"), Rate: coin.MustParse("0.1"), SpentOffset: 9},
		{ContractID: c, Owner: "o::x", Amount: coin.MustParse("3"), Rate: coin.MustParse("0.1"), SpentOffset: 9},
	}
	slices.SortFunc(want, func(x, y store.SpentHolding) int { return strings.Compare(string(x.ContractID), string(y.ContractID)) })
	if wj, gj := mustJSONString(t, want), mustJSONString(t, ss); wj != gj {
		t.Errorf("spent holdings:\n got %s\nwant %s", gj, wj)
	}
}

func mustJSONString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBeginClaim: a claim key held by another transaction is refused at
// once (claimed false), taking no offset; once released it is claimed.
func TestBeginClaim(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := ledgertest.DB(t, e)
			if err := store.InsertRound(ctx, db, &store.Round{Number: 1, Price: coin.MustParse("0.005")}); err != nil {
				t.Fatal(err)
			}
			claim := func() (bool, int64, error) {
				var ok bool
				var off int64
				err := db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
					_, o, c, err := db.BeginClaim(ctx, tx, "cmd:k", "party:p")
					ok, off = c, o
					return err
				})
				return ok, off, err
			}
			if ok, off, err := claim(); err != nil || !ok || off == 0 {
				t.Fatalf("free key: claimed %v at offset %d, %v", ok, off, err)
			}
			if e != store.Postgres {
				return // SQLite write transactions are exclusive: nothing to race.
			}
			held := make(chan struct{})
			release := make(chan struct{})
			done := make(chan error)
			go func() {
				done <- db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
					if err := db.LockKey(ctx, tx, "cmd:k"); err != nil {
						return err
					}
					close(held)
					<-release
					return nil
				})
			}()
			<-held
			ok, off, err := claim()
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if err != nil || ok || off != 0 {
				t.Errorf("held key: claimed %v at offset %d, %v; want refused", ok, off, err)
			}
			if ok, _, err := claim(); err != nil || !ok {
				t.Errorf("released key: claimed %v, %v", ok, err)
			}
		})
	}
}

// TestPipeTx: a pipelined transaction commits its write batch with the
// COMMIT riding it, and rolls back everything when a statement of the
// batch fails, when fn fails after BEGIN, or when fn forgets to commit;
// every connection goes back to the pool outside a transaction.
func TestPipeTx(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.Postgres)
	db.SetMaxOpenConns(1) // every run reuses the one connection
	if err := store.InsertRound(ctx, db, &store.Round{Number: 1, Price: coin.MustParse("0.005")}); err != nil {
		t.Fatal(err)
	}
	// commands is a write of a command row per key.
	commands := func(keys ...string) *store.Writes {
		w := &store.Writes{}
		for _, k := range keys {
			w.Commands = append(w.Commands, store.Command{DedupKey: k, Party: "p::1", Kind: "test", Result: "{}", CreatedAt: time.Now()})
		}
		return w
	}
	claims := []store.Claim{{Key: "cmd:a", Locks: []string{"party:p"}}, {Key: "cmd:b", Locks: []string{"party:q"}}}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		fn      func(ctx context.Context, p *store.PipeTx) error
		wantErr error // nil: committed
	}{
		{"committed", func(ctx context.Context, p *store.PipeTx) error {
			r, offsets, _, err := p.BeginSends(ctx, claims, nil, "")
			if err != nil {
				return err
			}
			if r.Number != 1 || len(offsets) != 2 || offsets[0] == 0 || offsets[1] != offsets[0]+1 {
				return fmt.Errorf("round %d, offsets %v", r.Number, offsets)
			}
			return p.Commit(ctx, commands("committed"))
		}, nil},
		{"statement fails", func(ctx context.Context, p *store.PipeTx) error {
			if _, _, _, err := p.BeginSends(ctx, claims, nil, ""); err != nil {
				return err
			}
			return p.Commit(ctx, commands("statement fails", "committed"))
		}, store.ErrAlreadyExists},
		{"fn fails", func(ctx context.Context, p *store.PipeTx) error {
			sends := []store.PreapprovalSendKey{{Key: "k", Sender: "s::1", Receiver: "r::1"}, {Key: "k2", Sender: "s::2", Receiver: "r::1"}}
			_, _, reads, err := p.BeginSends(ctx, claims, sends, "t")
			if err != nil {
				return err
			}
			if len(reads) != 2 || !reads[0].CommandAt.IsZero() || len(reads[1].Holdings) != 0 {
				return fmt.Errorf("reads of sends with no rows: %+v", reads)
			}
			return boom
		}, boom},
		{"no commit", func(ctx context.Context, p *store.PipeTx) error {
			_, _, _, err := p.BeginSends(ctx, claims, nil, "")
			return err
		}, errors.New("returned without committing")},
	}
	var pid0 int
	if err := db.NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid0); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		err := db.InPipeTx(ctx, tt.fn)
		switch {
		case tt.wantErr == nil && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != nil && (err == nil || (!errors.Is(err, tt.wantErr) && !strings.Contains(err.Error(), tt.wantErr.Error()))):
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.wantErr)
		}
		if _, err := store.CommandByKey(ctx, db, tt.name); (tt.wantErr == nil) != (err == nil) {
			t.Errorf("%s: its row: %v, want it only when committed", tt.name, err)
		}
		// The one connection came back to the pool outside any
		// transaction (one left inside would have been discarded, and a
		// new server process would answer), and the claims' locks went
		// with the transaction.
		var pid int
		if err := db.NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid); err != nil {
			t.Fatal(err)
		}
		if pid != pid0 {
			t.Errorf("%s: the connection was replaced (server process %d, then %d)", tt.name, pid0, pid)
		}
		if err := db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, _, ok, err := db.BeginClaim(ctx, tx, "cmd:a", "party:p")
			if err == nil && !ok {
				err = errors.New("cmd:a is still held")
			}
			return err
		}); err != nil {
			t.Errorf("%s: claim after it: %v", tt.name, err)
		}
	}
}

// TestReadPreapprovalSends: the read of a batch of sends answers the same
// on SQLite (DB.ReadPreapprovalSends) and inside a pipelined transaction
// on Postgres (PipeTx.BeginSends, whose rows are decoded by hand): the
// command record, the receiver's live preapproval, the provider's featured
// right and the sender's holdings, locked ones included, by contract id.
func TestReadPreapprovalSends(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 24, 19, 0, 0, 123456000, time.UTC)
	sends := []store.PreapprovalSendKey{
		{Key: "used", Sender: "s::1", Receiver: "r::1"},
		{Key: "fresh", Sender: "s::2", Receiver: "r::2"},
		{Key: "none", Sender: "s::3", Receiver: "r::3"},
	}
	read := map[store.Dialect]func(db *store.DB) ([]store.PreapprovalSendReads, error){
		store.SQLite: func(db *store.DB) (reads []store.PreapprovalSendReads, err error) {
			err = db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				reads, err = db.ReadPreapprovalSends(ctx, tx, sends, "T:Featured")
				return err
			})
			return reads, err
		},
		store.Postgres: func(db *store.DB) (reads []store.PreapprovalSendReads, err error) {
			err = db.InPipeTx(ctx, func(ctx context.Context, p *store.PipeTx) error {
				if _, _, reads, err = p.BeginSends(ctx, []store.Claim{{Key: "cmd:x"}}, sends, "T:Featured"); err != nil {
					return err
				}
				return p.Commit(ctx, &store.Writes{})
			})
			return reads, err
		},
	}
	for engine, read := range read {
		t.Run(string(engine), func(t *testing.T) {
			db := ledgertest.DB(t, engine)
			if err := store.InsertRound(ctx, db, &store.Round{Number: 1, Price: coin.MustParse("0.005")}); err != nil {
				t.Fatal(err)
			}
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(store.InsertCommand(ctx, db, &store.Command{DedupKey: "used", Party: "s::1", Kind: "send", Result: "{}", CreatedAt: at}))
			for _, p := range []store.TransferPreapproval{
				{ContractID: "00p1", Receiver: "r::1", Provider: "v::featured", ValidFrom: at, LastRenewedAt: at, ExpiresAt: at.Add(time.Hour)},
				{ContractID: "00p2", Receiver: "r::2", Provider: "v::plain", ValidFrom: at, LastRenewedAt: at, ExpiresAt: at.Add(time.Hour)},
				{ContractID: "00p3", Receiver: "r::3", Provider: "v::plain", ValidFrom: at, LastRenewedAt: at, ExpiresAt: at, ArchivedAt: bun.NullTime{Time: at}},
			} {
				must(store.InsertTransferPreapproval(ctx, db, &p))
			}
			must(store.InsertContracts(ctx, db, []store.Contract{
				{ContractID: "00f1", TemplateID: "T:Featured", Payload: "{}", Stakeholders: " dso::1 v::featured ", SynchronizerID: "s", CreatedOffset: 1, CreatedAt: at},
			}))
			must(store.InsertHoldings(ctx, db, []store.Holding{
				{ContractID: "00h2", Owner: "s::1", Amount: coin.MustParse("2.5"), CreatedRound: 1, Rate: coin.MustParse("0.0001")},
				{ContractID: "00h1", Owner: "s::1", Amount: coin.MustParse("1"), CreatedRound: 1, Rate: coin.MustParse("0"),
					LockHolder: "instr", LockExpiresAt: bun.NullTime{Time: at.Add(time.Hour)}, LockContext: "ctx"},
				{ContractID: "00h3", Owner: "s::2", Amount: coin.MustParse("7.0000000001"), CreatedRound: 1, Rate: coin.MustParse("0")},
			}))
			reads, err := read(db)
			must(err)
			if len(reads) != 3 {
				t.Fatalf("%d reads for 3 sends", len(reads))
			}
			r := reads[0]
			if !r.CommandAt.Equal(at) || r.Preapproval == nil || r.Preapproval.ContractID != "00p1" || r.Preapproval.Provider != "v::featured" ||
				!r.Preapproval.ExpiresAt.Equal(at.Add(time.Hour)) || !r.Featured || len(r.Holdings) != 2 {
				t.Fatalf("send 1 read %+v", r)
			}
			h0, h1 := r.Holdings[0], r.Holdings[1]
			if h0.ContractID != "00h1" || h0.LockHolder != "instr" || h0.LockContext != "ctx" || !h0.LockExpiresAt.Equal(at.Add(time.Hour)) ||
				h1.ContractID != "00h2" || h1.Amount.String() != "2.5000000000" || h1.Rate.String() != "0.0001000000" || h1.LockHolder != "" {
				t.Errorf("send 1 holdings %+v", r.Holdings)
			}
			r = reads[1]
			if !r.CommandAt.IsZero() || r.Preapproval == nil || r.Preapproval.ContractID != "00p2" || r.Featured ||
				len(r.Holdings) != 1 || r.Holdings[0].Amount.String() != "7.0000000001" || r.Holdings[0].Owner != "s::2" {
				t.Errorf("send 2 read %+v", r)
			}
			if r = reads[2]; !r.CommandAt.IsZero() || r.Preapproval != nil || r.Featured || len(r.Holdings) != 0 {
				t.Errorf("send 3 read %+v", r)
			}
		})
	}
}

// TestArrayStatementPlansUseIndexes: the read of a send batch and the
// write run on generic plans, made once per connection and kept until an
// ANALYZE of their tables, so they must not depend on the tables' sizes
// when they are made. Made on a fresh database (every table empty, as at
// a wallet's first sends) the read must still find each row by an index:
// a sequential scan there would scan the grown tables on every later call
// until autovacuum analyzes them. The write's plan is made after the first
// analyze of holdings: on an empty table Postgres may take the owner index
// for the spend, with the contract id its second column (the whole index);
// from the first analyze on, the key.
func TestArrayStatementPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.Postgres)
	tests := []struct {
		name, seed, query, args string
		indexes                 []string
	}{
		{"read", "", store.ReadSendsQuery, "'{k}', '{s}', '{r}', 'T:Featured'",
			[]string{"commands_pkey", "transfer_preapprovals_live", "contracts_active_template", "holdings_owner_contract"}},
		{"write", "INSERT INTO holdings SELECT 'h' || i, 'o' || i % 100, 1, 0, 0 FROM generate_series(1, 1000) i",
			store.WriteSQL, "'{h}', '{1}'" + strings.Repeat(", '{}'", 56),
			[]string{"holdings_pkey"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for _, stmt := range []string{tt.seed, "ANALYZE", "BEGIN"} {
				if stmt == "" {
					continue
				}
				if _, err := conn.ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			defer conn.ExecContext(ctx, "ROLLBACK")
			// The batch's claim brings its settings, even when it
			// claims nothing.
			claim := strings.NewReplacer("$1", "'{}'", "$2", "'{}'", "$3", "'{}'").Replace(store.ClaimSendsSQL)
			if _, err := conn.ExecContext(ctx, claim); err != nil {
				t.Fatal(err)
			}
			var seq, bitmap string
			if err := conn.QueryRowContext(ctx, "SELECT current_setting('enable_seqscan'), current_setting('enable_bitmapscan')").Scan(&seq, &bitmap); err != nil || seq != "off" || bitmap != "off" {
				t.Fatalf("after the claim: enable_seqscan %q, enable_bitmapscan %q, %v; want both off", seq, bitmap, err)
			}
			if _, err := conn.ExecContext(ctx, "PREPARE plan_"+tt.name+" AS "+tt.query); err != nil {
				t.Fatal(err)
			}
			rows, err := conn.QueryContext(ctx, "EXPLAIN (COSTS OFF) EXECUTE plan_"+tt.name+"("+tt.args+")")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan strings.Builder
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan.WriteString(line + "\n")
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			// An index scan with no condition reads the whole index.
			lines := strings.Split(plan.String(), "\n")
			for i, l := range lines {
				if strings.Contains(l, "Index Scan") && (i+1 == len(lines) || !strings.Contains(lines[i+1], "Index Cond")) {
					t.Errorf("an index scan without a condition:\n%s", plan.String())
				}
			}
			for _, want := range tt.indexes {
				if !strings.Contains(plan.String(), "Index Scan using "+want) {
					t.Errorf("plan does not use index %s:\n%s", want, plan.String())
				}
			}
			if strings.Contains(plan.String(), "Seq Scan") || strings.Contains(plan.String(), "Bitmap") {
				t.Errorf("plan scans a table whole or by bitmap:\n%s", plan.String())
			}
		})
	}
}

// TestWriteRoundTrip: every column of every table a write fills comes back
// as written, on both engines (Postgres writes one statement of arrays,
// SQLite a statement per table) and through a pipelined transaction (its
// own encoding of the arrays), nullable columns both set and NULL, text
// that an array literal would have to quote; and a forgotten command key
// can be used again in the same write.
func TestWriteRoundTrip(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 24, 10, 30, 15, 123456000, time.UTC)
	off := int64(7)
	for _, tc := range []struct {
		name   string
		engine store.Dialect
		pipe   bool
	}{{"sqlite", store.SQLite, false}, {"postgres", store.Postgres, false}, {"postgres pipelined", store.Postgres, true}} {
		t.Run(tc.name, func(t *testing.T) {
			db := ledgertest.DB(t, tc.engine)
			old := store.Command{DedupKey: "reused", Party: "p::1", Kind: "old", Result: "{}", CreatedAt: at}
			if err := store.InsertCommand(ctx, db, &old); err != nil {
				t.Fatal(err)
			}
			live, archived := coin.NewContractID(), coin.NewContractID()
			w := &store.Writes{
				Updates: []store.Update{{OffsetID: off, UpdateID: "u1", Kind: "k", Submitter: "op::1", Round: 3, RecordTime: at,
					Minted: coin.MustParse("1.25"), Burned: coin.MustParse("0.0000000001"), TrafficBytes: 99}},
				Contracts: []store.Contract{
					{ContractID: live, TemplateID: "T:A", Payload: `{"a":"x, y}", "b":"NULL"}`, Stakeholders: "p::1", SynchronizerID: "sync::1", CreatedOffset: off, CreatedAt: at},
					{ContractID: archived, TemplateID: "T:B", Payload: `{}`, Stakeholders: "p::1,p::2", SynchronizerID: "sync::1", CreatedOffset: off, ArchivedOffset: &off, CreatedAt: at},
				},
				Holdings: []store.Holding{
					{ContractID: live, Owner: "p::1", Amount: coin.MustParse("10.5"), CreatedRound: 3, Rate: coin.MustParse("0.0001"), CreatedOffset: off, CreatedAt: at},
					{ContractID: archived, Owner: "p::2", Amount: coin.MustParse("2"), CreatedRound: 3, Rate: coin.MustParse("0.0001"),
						LockHolder: "lk::1", LockExpiresAt: bun.NullTime{Time: at}, LockContext: "ctx", CreatedOffset: off, CreatedAt: at},
				},
				History: []store.HistoryEntry{{OffsetID: off, Party: "p::1", Kind: "send", Subtype: "x", Counterparty: "p::2",
					Amount: coin.MustParse("3.3"), Fees: coin.MustParse("0.01"), Description: `d "q" {a,b} \ é`, Round: 3, RecordTime: at, Details: `{"k":"v"}`}},
				Coupons: []store.RewardCoupon{
					{ContractID: coin.NewContractID(), Kind: "app", Beneficiary: "p::1", Amount: coin.MustParse("0.5"), Round: 3, Featured: true, CreatedOffset: off, CreatedAt: at},
					{ContractID: coin.NewContractID(), Kind: "validator", Beneficiary: "p::2", Amount: coin.MustParse("0.7"), Round: 3, CollectedAt: bun.NullTime{Time: at},
						CreatedOffset: off, CreatedAt: at, CollectedOffset: &off},
				},
				Forget: []string{"reused"},
				Commands: []store.Command{
					{DedupKey: "reused", Party: "p::1", Kind: "new", OffsetID: &off, Result: `{"r":1}`, CreatedAt: at},
					{DedupKey: "plain", Party: "p::2", Kind: "new", Result: "{}", CreatedAt: at},
				},
			}
			var err error
			if tc.pipe {
				err = db.InPipeTx(ctx, func(ctx context.Context, p *store.PipeTx) error {
					if _, _, _, err := p.BeginSends(ctx, nil, nil, ""); err != nil {
						return err
					}
					return p.Commit(ctx, w)
				})
			} else {
				err = db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { return store.WriteTx(ctx, tx, w) })
			}
			if err != nil {
				t.Fatal(err)
			}
			check := func(name string, want, got any, order string) {
				t.Helper()
				if err := db.NewSelect().Model(got).Order(order).Scan(ctx); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				wj, _ := json.Marshal(want)
				gj, _ := json.Marshal(got)
				if string(wj) != string(gj) {
					t.Errorf("%s read back:\n got %s\nwant %s", name, gj, wj)
				}
			}
			check("updates", &w.Updates, &[]store.Update{}, "offset_id")
			check("contracts", byID(w.Contracts, func(c store.Contract) coin.ContractID { return c.ContractID }), &[]store.Contract{}, "contract_id")
			check("holdings", byID(w.Holdings, func(h store.Holding) coin.ContractID { return h.ContractID }), &[]store.Holding{}, "contract_id")
			check("coupons", byID(w.Coupons, func(c store.RewardCoupon) coin.ContractID { return c.ContractID }), &[]store.RewardCoupon{}, "contract_id")
			w.History[0].ID = 1
			check("history", &w.History, &[]store.HistoryEntry{}, "id")
			check("commands", &w.Commands, &[]store.Command{}, "dedup_key DESC")
		})
	}
}

// byID is rows sorted by their contract id, as the check reads them.
func byID[T any](rows []T, id func(T) coin.ContractID) *[]T {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(string(id(a)), string(id(b))) })
	return &out
}

// TestSessionDefaults: every Postgres connection runs the store's prepared
// statements on generic plans (left to choose, Postgres planned the write
// again on every call, and the transfer primitive lost a third of its
// rate), and a URL's own choice is kept.
func TestSessionDefaults(t *testing.T) {
	ctx := context.Background()
	show := func(db *store.DB) string {
		var mode string
		if err := db.NewRaw("SHOW plan_cache_mode").Scan(ctx, &mode); err != nil {
			t.Fatal(err)
		}
		return mode
	}
	url := ledgertest.DBURL(t, store.Postgres)
	db := ledgertest.DB(t, store.Postgres)
	if got := show(db); got != "force_generic_plan" {
		t.Errorf("plan_cache_mode = %q, want force_generic_plan", got)
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	own, err := store.Open(ctx, store.Config{URL: url + sep + "plan_cache_mode=auto"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	if got := show(own); got != "auto" {
		t.Errorf("with the URL's plan_cache_mode=auto: %q", got)
	}
}

// TestOffsetSequenceName: the sequence that BeginUpdate and ccwallet_claim
// (migration 0017) name is the one behind updates.offset_id, and the
// claim no longer looks it up in the catalog on every call.
func TestOffsetSequenceName(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.Postgres)
	var seq, body string
	if err := db.NewRaw("SELECT pg_get_serial_sequence('updates', 'offset_id')").Scan(ctx, &seq); err != nil {
		t.Fatal(err)
	}
	if seq != "public."+store.OffsetSequence {
		t.Errorf("updates.offset_id draws from %s, the code names %s", seq, store.OffsetSequence)
	}
	if err := db.NewRaw("SELECT prosrc FROM pg_proc WHERE proname = 'ccwallet_claim'").Scan(ctx, &body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "nextval('"+store.OffsetSequence+"'::regclass)") || strings.Contains(body, "pg_get_serial_sequence") {
		t.Errorf("ccwallet_claim draws offsets with: %s", body)
	}
}

// TestMigrationRowContracts: migration 0018 gives live holdings their
// contract's offset and time, drops the contracts rows of unlocked ones
// (their row is their contract now) and keeps locked holdings' contracts
// and archived ones; 0019 does the same for reward coupons, whose
// collection's offset is their contract's archive, or the last pruned
// offset when pruning removed the contract.
func TestMigrationRowContracts(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := emptyDB(t, e)
			if _, err := db.MigrateUpTo(ctx, "0017"); err != nil {
				t.Fatal(err)
			}
			at := time.Date(2026, 11, 25, 9, 0, 0, 123456000, time.UTC)
			for _, c := range []struct {
				id, template string
				created      int64
				archived     *int64
			}{{"00u", "T:Amulet", 3, nil}, {"00l", "T:LockedAmulet", 4, nil}, {"00a", "T:Amulet", 2, ptr(int64(3))},
				{"00c1", "T:AppRewardCoupon", 5, nil}, {"00c2", "T:AppRewardCoupon", 5, ptr(int64(8))}} {
				if _, err := db.ExecContext(ctx, `INSERT INTO contracts (contract_id, template_id, payload, stakeholders, synchronizer_id, created_offset, archived_offset, created_at)
					VALUES (?, ?, '{}', ' o::1 ', 's', ?, ?, ?)`, c.id, c.template, c.created, c.archived, at.Add(time.Duration(c.created)*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO holdings (contract_id, owner, amount, created_round, rate, lock_holder)
				VALUES ('00u', 'o::1', 1, 1, 0, NULL), ('00l', 'o::1', 2, 1, 0, 'instr')`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO reward_coupons (contract_id, kind, beneficiary, amount, round, featured, collected_at)
				VALUES ('00c1', 'app', 'o::1', 1, 1, TRUE, NULL), ('00c2', 'app', 'o::1', 1, 1, TRUE, ?), ('00c3', 'app', 'o::1', 1, 1, TRUE, ?)`, at, at); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `UPDATE pruned_totals SET last_offset = 6`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			var cs []store.RewardCoupon
			if err := db.NewSelect().Model(&cs).Order("contract_id").Scan(ctx); err != nil {
				t.Fatal(err)
			}
			if len(cs) != 3 || cs[0].CreatedOffset != 5 || !cs[0].CreatedAt.Equal(at.Add(5*time.Second)) || cs[0].CollectedOffset != nil ||
				cs[1].CollectedOffset == nil || *cs[1].CollectedOffset != 8 || cs[2].CollectedOffset == nil || *cs[2].CollectedOffset != 6 {
				t.Errorf("coupons after the migration: %+v", cs)
			}
			var hs []store.Holding
			if err := db.NewSelect().Model(&hs).Order("contract_id").Scan(ctx); err != nil {
				t.Fatal(err)
			}
			if len(hs) != 2 || hs[0].ContractID != "00l" || hs[0].CreatedOffset != 4 || !hs[0].CreatedAt.Equal(at.Add(4*time.Second)) ||
				hs[1].ContractID != "00u" || hs[1].CreatedOffset != 3 || !hs[1].CreatedAt.Equal(at.Add(3*time.Second)) {
				t.Errorf("holdings after the migration: %+v", hs)
			}
			var ids []string
			if err := db.NewSelect().Table("contracts").Column("contract_id").Order("contract_id").Scan(ctx, &ids); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids, []string{"00a", "00l"}) {
				t.Errorf("contracts after the migration: %v, want the archived and the locked holding's", ids)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestMigrationPrunedTraffic: migration 0030 adds pruned_traffic to a
// database that has an update log already; nothing was carried before it
// (the log still holds all the traffic of a database that never pruned),
// so every submitter starts with no carried use, and a carried meter is
// written and rewritten in place.
func TestMigrationPrunedTraffic(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := emptyDB(t, e)
			if _, err := db.MigrateUpTo(ctx, "0029"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO updates (update_id, kind, submitter, round, record_time, minted, burned, traffic_bytes)
				VALUES ('u1', 'transfer', 'op::1', 0, ?, 0, 0, 2500)`, time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
			applied, err := db.Migrate(ctx)
			if err != nil || !slices.Contains(applied, "0030") {
				t.Fatalf("migrate = %v, %v; want 0030 applied", applied, err)
			}
			p, err := store.PrunedTrafficOf(ctx, db, "op::1")
			if err != nil || p.Consumed != 0 || p.ExtraConsumed != 0 || p.WindowIndex != -1 {
				t.Fatalf("carried traffic after the migration = %+v, %v; want none", p, err)
			}
			for _, used := range []int64{2500, 4000} {
				if err := store.SavePrunedTraffic(ctx, db, []store.PrunedTraffic{{Submitter: "op::1", Consumed: used, WindowIndex: 7, WindowUsed: used}}); err != nil {
					t.Fatal(err)
				}
			}
			if p, err := store.PrunedTrafficOf(ctx, db, "op::1"); err != nil || p.Consumed != 4000 || p.WindowIndex != 7 || p.WindowUsed != 4000 {
				t.Errorf("carried traffic = %+v, %v; want the second write", p, err)
			}
		})
	}
}
