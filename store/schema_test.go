package store_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// withURL returns dbURL with the user replaced (when set) and search_path
// set to schema, as cmd's persistence.schema does.
func withURL(t *testing.T, dbURL, user, schema string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		u.User = url.User(user)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestMigrateCreatesSchema: a fresh database with persistence.schema set
// migrates into that schema, created on the way; a role that may not
// create it is told the statement to run.
func TestMigrateCreatesSchema(t *testing.T) {
	ctx := context.Background()
	base := ledgertest.DBURL(t, store.Postgres)

	t.Run("created", func(t *testing.T) {
		db, err := store.Open(ctx, store.Config{URL: withURL(t, base, "", "participant")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatalf("migrate into a missing schema: %v", err)
		}
		var table *string
		if err := db.QueryRowContext(ctx, "SELECT to_regclass('participant.schema_migrations')::text").Scan(&table); err != nil {
			t.Fatal(err)
		}
		if table == nil {
			t.Fatal("schema_migrations was not created in schema participant")
		}
		// A second start finds the schema and has nothing to do.
		if applied, err := db.Migrate(ctx); err != nil || len(applied) != 0 {
			t.Fatalf("second migrate = %v, %v; want nothing applied", applied, err)
		}
	})

	t.Run("a replica creating it meanwhile", func(t *testing.T) {
		// Another replica has created the schema, under the migration
		// lock, and not committed yet: this one must wait for it and use
		// the schema, not collide with it on pg_namespace's unique index
		// (which CREATE SCHEMA IF NOT EXISTS does).
		admin, err := store.Open(ctx, store.Config{URL: base}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		other, err := admin.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Rollback()
		if err := admin.LockKey(ctx, other, store.MigrationLockKey); err != nil {
			t.Fatal(err)
		}
		if _, err := other.ExecContext(ctx, "CREATE SCHEMA racing"); err != nil {
			t.Fatal(err)
		}
		db, err := store.Open(ctx, store.Config{URL: withURL(t, base, "", "racing")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		done := make(chan error, 1)
		go func() { _, err := db.Migrate(ctx); done <- err }()
		time.Sleep(300 * time.Millisecond) // this replica is waiting now
		if err := other.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("migrate beside a replica creating the schema: %v", err)
		}
	})

	t.Run("role may not create it", func(t *testing.T) {
		admin, err := store.Open(ctx, store.Config{URL: base}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		// Roles are cluster-wide: a name of this test only. A new role has
		// no CREATE on the database (PUBLIC has CONNECT and TEMP only).
		role := "ccwallet_nocreate"
		if _, err := admin.ExecContext(ctx, "DROP ROLE IF EXISTS "+role+"; CREATE ROLE "+role+" LOGIN"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), "DROP ROLE IF EXISTS "+role) })
		db, err := store.Open(ctx, store.Config{URL: withURL(t, base, role, "Fresh")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		_, err = db.Migrate(ctx)
		want := `CREATE SCHEMA "fresh" AUTHORIZATION "ccwallet_nocreate";`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("migrate as a role without CREATE = %v, want an error naming %s", err, want)
		}

		// A schema that exists but the role may not use.
		if _, err := admin.ExecContext(ctx, "CREATE SCHEMA locked"); err != nil {
			t.Fatal(err)
		}
		locked, err := store.Open(ctx, store.Config{URL: withURL(t, base, role, "locked")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer locked.Close()
		_, err = locked.Migrate(ctx)
		want = `GRANT USAGE, CREATE ON SCHEMA "locked" TO "ccwallet_nocreate";`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("migrate as a role without USAGE = %v, want an error naming %s", err, want)
		}
	})
}
