package store

import (
	"context"
	"fmt"
	"os"

	"github.com/uptrace/bun"
)

// Internals that the tests of package store_test check.
var (
	// MigrationLockKey serialises migrations (and schema creation).
	MigrationLockKey = migrationLockKey
)

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
