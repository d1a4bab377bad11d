package store

import (
	"context"
	"fmt"
	"os"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// Internals that the tests of package store_test check.
var (
	// MigrationLockKey serialises migrations (and schema creation).
	MigrationLockKey = migrationLockKey
)

// SetAfterEndRead makes StableEnd run fn between its read and what it
// learns from it, until the test ends (nil: nothing).
func SetAfterEndRead(fn func(db *DB)) {
	if fn == nil {
		afterEndRead.Store(nil)
		return
	}
	afterEndRead.Store(&fn)
}

// MigrateUpTo applies the migrations up to and including version.
func (db *DB) MigrateUpTo(ctx context.Context, version string) ([]string, error) {
	return db.migrate(ctx, version)
}

// MigrateDir applies the migrations of a directory (the landed copies in
// testdata) instead of the embedded ones.
func (db *DB) MigrateDir(ctx context.Context, dir string) ([]string, error) {
	ms, err := readMigrations(os.DirFS(dir), ".")
	if err != nil {
		return nil, err
	}
	return db.apply(ctx, ms, "")
}

// SplitStatements is splitStatements.
var SplitStatements = splitStatements

// InsertContracts stores created contracts.
func InsertContracts(ctx context.Context, db bun.IDB, cs []Contract) error {
	if len(cs) == 0 {
		return nil
	}
	if _, err := db.NewInsert().Model(&cs).Exec(ctx); err != nil {
		return fmt.Errorf("insert contracts: %w", Normalize(err))
	}
	return nil
}

// InsertHoldings stores new holdings.
func InsertHoldings(ctx context.Context, db bun.IDB, hs []Holding) error {
	if len(hs) == 0 {
		return nil
	}
	if _, err := db.NewInsert().Model(&hs).Exec(ctx); err != nil {
		return fmt.Errorf("insert holdings: %w", Normalize(err))
	}
	return nil
}

// LedgerAPIQueries are the Ledger API's reads of unlocked holdings (owner
// o5 at offset 100000, and changes in (99000, 99100]) and of active
// contracts (template T of o5 at 100000), for plan checks.
func LedgerAPIQueries(db bun.IDB) map[string]string {
	o := []coin.PartyID{"o5"}
	return map[string]string{
		"contracts at": activeContractsQuery(db, ContractQuery{Parties: o, Templates: []string{"T"}, Upto: 100000, Limit: 200}).String(),
		"at":           unlockedHoldings(db, holdingsLiveAt, holdingsSpentAt, []any{100000}, []any{100000, 100000}, o, "LIMIT 200").String(),
		"changed":      unlockedHoldings(db, holdingsCreatedIn, holdingsSpentChangedIn, []any{99000, 99100}, []any{99000, 99100, 99000, 99100}, o, "").String(),
	}
}
