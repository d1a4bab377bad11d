package store_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
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
				return db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
					_, err := store.SpendHoldings(ctx, tx, ids, 5)
					return err
				})
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

// TestSessionDefaults: every Postgres connection runs the store's prepared
// statements on generic plans (left to choose, Postgres planned the write
// again on every call, and the transfer primitive lost a third of its
// rate) and compiles none (JIT compiled the send batch's read, costed by
// its generic plan over a large holdings table, on every call: 175 ms),
// and a URL's own choice is kept.
func TestSessionDefaults(t *testing.T) {
	ctx := context.Background()
	showSetting := func(db *store.DB, name string) string {
		var v string
		if err := db.NewRaw("SHOW "+name).Scan(ctx, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	show := func(db *store.DB) string { return showSetting(db, "plan_cache_mode") }
	url := ledgertest.DBURL(t, store.Postgres)
	db := ledgertest.DB(t, store.Postgres)
	if got := show(db); got != "force_generic_plan" {
		t.Errorf("plan_cache_mode = %q, want force_generic_plan", got)
	}
	if got := showSetting(db, "jit"); got != "off" {
		t.Errorf("jit = %q, want off", got)
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
	// ccwallet_claim draws through ccwallet_draw_offset (0436, 0437),
	// which names the sequence.
	if err := db.NewRaw("SELECT prosrc FROM pg_proc WHERE proname = 'ccwallet_claim'").Scan(ctx, &body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "ccwallet_draw_offset()") || strings.Contains(body, "nextval") {
		t.Errorf("ccwallet_claim draws offsets with: %s", body)
	}
	if err := db.NewRaw("SELECT prosrc FROM pg_proc WHERE proname = 'ccwallet_draw_offset'").Scan(ctx, &body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "nextval('"+store.OffsetSequence+"'::regclass)") || strings.Contains(body, "pg_get_serial_sequence") {
		t.Errorf("ccwallet_draw_offset draws offsets with: %s", body)
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
			db := migratedUpTo(t, e, "0017")
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

// migratedUpTo opens an empty database of engine migrated up to and
// including version, for a test of the migrations after it.
func migratedUpTo(t *testing.T, e store.Dialect, version string) *store.DB {
	t.Helper()
	db := emptyDB(t, e)
	if _, err := db.MigrateUpTo(context.Background(), version); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestMigrationTimeRange: migration 0020 brings the times past 9999 that
// were stored before requests were bounded (issue 21) back to the end of
// the range, so SQLite can read the rows again (it could not: "hour out
// of range"); times inside the range and absent lock expiries stay.
func TestMigrationTimeRange(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := migratedUpTo(t, e, "0019")
			far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
			in := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
			end := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`INSERT INTO transfer_offers (contract_id, tracking_id, sender, receiver, amount, expires_at, status, created_at, updated_at)
					VALUES ('00o1', 't1', 'a::1', 'b::1', 1, ?, 'created', ?, ?), ('00o2', 't2', 'a::1', 'b::1', 1, ?, 'created', ?, ?)`,
					[]any{far, in, in, in, in, in}},
				{`INSERT INTO transfer_instructions (contract_id, sender, receiver, amount, locked_holding_cid, requested_at, execute_before, status, created_offset)
					VALUES ('00i1', 'a::1', 'b::1', 1, '00h1', ?, ?, 'pending', 1)`, []any{in, far}},
				{`INSERT INTO holdings (contract_id, owner, amount, created_round, rate, lock_holder, lock_expires_at)
					VALUES ('00h1', 'a::1', 1, 1, 0, '00i1', ?), ('00h2', 'a::1', 1, 1, 0, NULL, NULL)`, []any{far}},
			} {
				if _, err := db.ExecContext(ctx, q.sql, q.args...); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			var os []store.TransferOffer
			if err := db.NewSelect().Model(&os).Order("contract_id").Scan(ctx); err != nil {
				t.Fatal(err)
			}
			if len(os) != 2 || !os[0].ExpiresAt.Equal(end) || !os[1].ExpiresAt.Equal(in) {
				t.Errorf("offers after the migration: %+v", os)
			}
			var is []store.TransferInstruction
			if err := db.NewSelect().Model(&is).Scan(ctx); err != nil {
				t.Fatal(err)
			}
			if len(is) != 1 || !is[0].ExecuteBefore.Equal(end) {
				t.Errorf("instructions after the migration: %+v", is)
			}
			var hs []store.Holding
			if err := db.NewSelect().Model(&hs).Order("contract_id").Scan(ctx); err != nil {
				t.Fatal(err)
			}
			if len(hs) != 2 || !hs[0].LockExpiresAt.Time.Equal(end) || !hs[1].LockExpiresAt.IsZero() {
				t.Errorf("holdings after the migration: %+v", hs)
			}
		})
	}
}
