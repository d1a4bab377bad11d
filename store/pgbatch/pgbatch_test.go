package pgbatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/store/pgbatch"
	"github.com/uptrace/bun"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// TestWriteSpendGuard: the write's spend is guarded like DeleteHoldings,
// on either engine's writer: a locked, missing or already spent holding
// fails the whole write with ErrStale and the transaction's other rows
// roll back.
func TestWriteSpendGuard(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) { testWriteSpendGuard(t, e) })
	}
}

func testWriteSpendGuard(t *testing.T, e store.Dialect) {
	ctx := context.Background()
	db := ledgertest.DB(t, e)
	a, b, c := coin.NewContractID(), coin.NewContractID(), coin.NewContractID()
	hs := []store.Holding{
		{ContractID: a, Owner: "o::x", Amount: coin.MustParse("1.5"), Rate: coin.MustParse("0.1")},
		{ContractID: b, Owner: "o::x", Amount: coin.MustParse("2"), Rate: coin.MustParse("0.1"), LockHolder: "lock"},
		{ContractID: c, Owner: "o::x", Amount: coin.MustParse("3"), Rate: coin.MustParse("0.1")},
	}
	if err := insertRows(ctx, db, hs); err != nil {
		t.Fatal(err)
	}
	spend := func(name string, ids ...coin.ContractID) error {
		return db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			at := make([]int64, len(ids))
			for i := range at {
				at[i] = 9
			}
			return pgbatch.For(db).WriteTx(ctx, tx, &store.Writes{Spend: ids, SpendAt: at, Commands: []store.Command{
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
		fn      func(ctx context.Context, p store.SendTx) error
		wantErr error // nil: committed
	}{
		{"committed", func(ctx context.Context, p store.SendTx) error {
			r, offsets, _, err := p.Begin(ctx, claims, nil, "")
			if err != nil {
				return err
			}
			if r.Number != 1 || len(offsets) != 2 || offsets[0] == 0 || offsets[1] != offsets[0]+1 {
				return fmt.Errorf("round %d, offsets %v", r.Number, offsets)
			}
			return p.Write(ctx, commands("committed"))
		}, nil},
		{"statement fails", func(ctx context.Context, p store.SendTx) error {
			if _, _, _, err := p.Begin(ctx, claims, nil, ""); err != nil {
				return err
			}
			return p.Write(ctx, commands("statement fails", "committed"))
		}, store.ErrAlreadyExists},
		{"fn fails", func(ctx context.Context, p store.SendTx) error {
			sends := []store.PreapprovalSendKey{{Key: "k", Sender: "s::1", Receiver: "r::1"}, {Key: "k2", Sender: "s::2", Receiver: "r::1"}}
			_, _, reads, err := p.Begin(ctx, claims, sends, "t")
			if err != nil {
				return err
			}
			if len(reads) != 2 || !reads[0].CommandAt.IsZero() || len(reads[1].Holdings) != 0 {
				return fmt.Errorf("reads of sends with no rows: %+v", reads)
			}
			return boom
		}, boom},
		{"no commit", func(ctx context.Context, p store.SendTx) error {
			_, _, _, err := p.Begin(ctx, claims, nil, "")
			return err
		}, errors.New("returned without committing")},
	}
	var pid0 int
	if err := db.NewRaw("SELECT pg_backend_pid()").Scan(ctx, &pid0); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		err := pgbatch.For(db).InSendTx(ctx, tt.fn)
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
// on Postgres (PipeTx.Begin, whose rows are decoded by hand): the
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
			err = pgbatch.For(db).InSendTx(ctx, func(ctx context.Context, p store.SendTx) error {
				if _, _, reads, err = p.Begin(ctx, []store.Claim{{Key: "cmd:x"}}, sends, "T:Featured"); err != nil {
					return err
				}
				return p.Write(ctx, &store.Writes{})
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
			must(insertRows(ctx, db, []store.Contract{
				{ContractID: "00f1", TemplateID: "T:Featured", Payload: "{}", Stakeholders: ",dso::1,v::featured,", SynchronizerID: "s", CreatedOffset: 1, CreatedAt: at},
			}))
			must(insertRows(ctx, db, []store.Holding{
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
	// Each batch's claim brings its settings, even when it claims
	// nothing; the fast batch's claim checks the round too.
	claim := strings.NewReplacer("$1", "'{}'", "$2", "'{}'", "$3", "'{}'").Replace(pgbatch.ClaimSendsSQL)
	fastClaim := strings.NewReplacer("$1", "'{}'", "$2", "'{}'", "$3", "'{}'", "$4", "1", "$5", "now()").Replace(pgbatch.ClaimFastSQL)
	tests := []struct {
		name, seed, claim, query, args string
		indexes                        []string
	}{
		{"read", "", claim, pgbatch.ReadSendsQuery, "'{k}', '{s}', '{r}', 'T:Featured'",
			[]string{"commands_pkey", "transfer_preapprovals_live", "contracts_active_template", "holdings_owner_contract"}},
		{"write", "INSERT INTO holdings SELECT 'h' || i, 'o' || i % 100, 1, 0, 0 FROM generate_series(1, 1000) i", claim,
			pgbatch.WriteSQL, "'{h}', '{1}'" + strings.Repeat(", '{}'", pgbatch.WriteParams-2),
			[]string{"holdings_pkey"}},
		{"fastwrite", "INSERT INTO transfer_preapprovals (contract_id, receiver, provider, valid_from, last_renewed_at, expires_at) " +
			"SELECT 'p' || i, 'r' || i, 'v', now(), now(), now() FROM generate_series(1, 1000) i; " +
			"INSERT INTO rounds (number, contract_id, price, opens_at, target_closes_at) VALUES (1, 'r1', 1, now() - interval '1 minute', now() + interval '10 minutes')",
			fastClaim, pgbatch.FastWriteSQL, "'{h}', '{1}'" + strings.Repeat(", '{}'", pgbatch.WriteParams-2) + ", '{p1}', '{now}', '{}', '{}', 'T:Featured'",
			[]string{"holdings_pkey", "transfer_preapprovals_pkey", "contracts_active_template"}},
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
			if _, err := conn.ExecContext(ctx, tt.claim); err != nil {
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
			// A function in FROM gathers its rows in a tuplestore, whose
			// memory cost a page fault per statement (rowsOf).
			if strings.Contains(plan.String(), "Function Scan") {
				t.Errorf("plan unnests in FROM:\n%s", plan.String())
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
				Updates: []store.Update{{OffsetID: off, UpdateID: "u1", Kind: "k", Submitter: "op::1", Round: 3, RecordTime: at, ActedBy: "admin",
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
					Amount: coin.MustParse("3.3"), Fees: coin.MustParse("0.01"), Description: `d "q" {a,b} \ é`, Round: 3, RecordTime: at, Details: `{"k":"v"}`},
					{OffsetID: off, Party: "p::2", Kind: "send", Subtype: "y", Counterparty: "p::1", Amount: coin.MustParse("-4"), Fees: coin.MustParse("0.02"),
						Round: 3, RecordTime: at, Details: `{}`, CounterAmount: ptr(coin.MustParse("4")), CounterFees: ptr(coin.MustParse("0.0000000001"))}},
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
				Completions: []store.Completion{{OffsetID: off, UserID: "u", CommandID: "c", ActAs: "p::1,p::2", SubmissionID: "s",
					UpdateID: "up", StatusCode: 6, Message: `E(10,x): "q"`, RecordTime: at, Exercise: `{"choice":"C"}`}},
			}
			var err error
			if tc.pipe {
				err = pgbatch.For(db).InSendTx(ctx, func(ctx context.Context, p store.SendTx) error {
					if _, _, _, err := p.Begin(ctx, nil, nil, ""); err != nil {
						return err
					}
					return p.Write(ctx, w)
				})
			} else {
				err = db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { return pgbatch.For(db).WriteTx(ctx, tx, w) })
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
			coversEveryColumn(t, w)
			w.History[0].ID, w.History[1].ID = 1, 2
			check("history", &w.History, &[]store.HistoryEntry{}, "id")
			check("commands", &w.Commands, &[]store.Command{}, "dedup_key DESC")
			check("completions", &w.Completions, &[]store.Completion{}, "offset_id")
		})
	}
}

// byID is rows sorted by their contract id, as the check reads them.
func byID[T any](rows []T, id func(T) coin.ContractID) *[]T {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(string(id(a)), string(id(b))) })
	return &out
}

// insertRows stores rows as they are (the store's own inserts of these
// tables are the ledger's write).
func insertRows[T any](ctx context.Context, db *store.DB, rows []T) error {
	_, err := db.NewInsert().Model(&rows).Exec(ctx)
	return err
}

// TestWriteColumns: the write fills every column of the tables it writes,
// on both engines' schemas, and nothing else: its column lists come from
// the store's models, so a column a migration adds without its model's
// field, or a field with no column, fails here. (history.id is the
// database's to assign.)
func TestWriteColumns(t *testing.T) {
	ctx := context.Background()
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			db := ledgertest.DB(t, e)
			q := "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position"
			if e == store.SQLite {
				q = "SELECT name FROM pragma_table_info(?) ORDER BY cid"
			}
			for table, cols := range pgbatch.Columns() {
				var schema []string
				if err := db.NewRaw(q, table).Scan(ctx, &schema); err != nil {
					t.Fatalf("%s: %v", table, err)
				}
				schema = slices.DeleteFunc(schema, func(c string) bool { return table == "history" && c == "id" })
				written := slices.Sorted(slices.Values(cols))
				if slices.Sort(schema); !slices.Equal(written, schema) {
					t.Errorf("%s: the write fills %v, the schema has %v", table, written, schema)
				}
			}
		})
	}
}

// coversEveryColumn fails unless every column the write fills is set (not
// zero) in some row of w, so that the round trip checks it: a field a
// model gains is a column of the write at once, and of this test only
// once its fixture sets it.
func coversEveryColumn(t *testing.T, w *store.Writes) {
	t.Helper()
	cols := pgbatch.Columns()
	for _, rows := range []any{w.Updates, w.Contracts, w.Holdings, w.History, w.Coupons, w.Commands, w.Completions} {
		v := reflect.ValueOf(rows)
		table := pgbatch.Model(v.Type().Elem())
		for _, name := range cols[table.Name] {
			f, err := table.Field(name)
			if err != nil {
				t.Fatal(err)
			}
			set := false
			for i := range v.Len() {
				set = set || !f.HasZeroValue(v.Index(i))
			}
			if !set {
				t.Errorf("the fixture leaves %s.%s unset in every row: set it, so the round trip checks it", table.Name, name)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestChangeWritePlanFollowsTheTables: a change's write (WriteTx) is a
// prepared statement. On a generic plan, made once per connection while
// holdings held a few rows and kept until an analyze, it scanned the whole
// table on every later write (75 ms each at 137,000 holdings); planned for
// each call it finds the grown table's rows by an index.
func TestChangeWritePlanFollowsTheTables(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.Postgres)
	db.DB.DB.SetMaxOpenConns(1) // one session: the second write meets the first one's plan
	seed := func(prefix string, n int) {
		t.Helper()
		stmt := fmt.Sprintf("INSERT INTO holdings (contract_id, owner, amount, created_round, rate, created_offset) "+
			"SELECT '%s' || i, 'o' || i %% 100, 1, 0, 0, 1 FROM generate_series(1, %d) i", prefix, n)
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// This session's sequential scans of holdings, flushed or not.
	scans := func(tx bun.Tx) (n int64) {
		t.Helper()
		if err := tx.NewRaw("SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'holdings'").Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	write := func(off int64, spend coin.ContractID) (seq int64) {
		t.Helper()
		w := &store.Writes{Spend: []coin.ContractID{spend}, SpendAt: []int64{off},
			Updates: []store.Update{{OffsetID: off, UpdateID: fmt.Sprint("u", off), Kind: "k", Submitter: "op::1", RecordTime: time.Now().UTC()}}}
		err := db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			before := scans(tx)
			if err := pgbatch.For(db).WriteTx(ctx, tx, w); err != nil {
				return err
			}
			seq = scans(tx) - before
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}
	seed("h", 5)
	if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	write(2, "h1")
	seed("g", 20000)
	if seq := write(3, "g7"); seq != 0 {
		t.Errorf("the write scanned the 20,004 holdings whole to spend one (%d sequential scans)", seq)
	}
}
