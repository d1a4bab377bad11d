package store

import "context"

// Internals that the tests of package store_test check.
var (
	ReadSendsQuery = readSendsQuery
	ClaimSendsSQL  = claimSendsSQL
	WriteSQL       = writeSQL
)

// MigrateUpTo applies the migrations up to and including version.
func (db *DB) MigrateUpTo(ctx context.Context, version string) ([]string, error) {
	return db.migrate(ctx, version)
}
