package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

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
			spend := func(ids []coin.ContractID, lockedBy string) error {
				return db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { return store.DeleteHoldings(ctx, tx, ids, lockedBy) })
			}
			// A locked holding cannot be spent as unlocked, and the failed
			// transaction leaves the unlocked one in place.
			if err := spend([]coin.ContractID{a, b}, ""); !errors.Is(err, store.ErrStale) {
				t.Errorf("spend incl. locked = %v, want ErrStale", err)
			}
			if got, _ := store.HoldingsByOwner(ctx, db, "o::x"); len(got) != 2 {
				t.Fatalf("after a refused spend %d holdings remain, want 2", len(got))
			}
			if err := spend([]coin.ContractID{a}, ""); err != nil {
				t.Fatal(err)
			}
			if err := spend([]coin.ContractID{a}, ""); !errors.Is(err, store.ErrStale) {
				t.Errorf("second spend = %v, want ErrStale", err)
			}
			if err := store.DeleteHoldings(ctx, db, []coin.ContractID{b}, "lock"); err != nil {
				t.Errorf("spend by lock holder: %v", err)
			}
		})
	}
}
