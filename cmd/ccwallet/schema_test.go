package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// TestMigrateIntoPersistenceSchema: a fresh database bound with the
// chart's keys, persistence.schema included, migrates into that schema.
func TestMigrateIntoPersistenceSchema(t *testing.T) {
	u, err := url.Parse(ledgertest.DBURL(t, store.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	values := fmt.Sprintf("persistence:\n  host: %s\n  port: %s\n  databaseName: %s\n  user: %s\n  schema: participant\n",
		u.Hostname(), u.Port(), u.Path[1:], u.User.Username())
	cfg := writeFile(t, "v.yaml", values)
	if err := run(t.Context(), []string{"migrate", "--config", cfg}, nil, &syncBuffer{}, &syncBuffer{}); err != nil {
		t.Fatalf("migrate with persistence.schema: %v", err)
	}
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var table sql.NullString
	if err := db.QueryRowContext(t.Context(), "SELECT to_regclass('participant.schema_migrations')::text").Scan(&table); err != nil {
		t.Fatal(err)
	}
	if !table.Valid {
		t.Error("no schema_migrations in schema participant")
	}
}
