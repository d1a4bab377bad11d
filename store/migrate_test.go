package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// landedDir holds the migrations exactly as they landed on main. A landed
// migration may be reformatted for its readers, never changed in effect:
// TestMigrationsKeepLandedSchema migrates one database with these copies
// and one with the embedded files, and compares their schemas.
const landedDir = "testdata/landed-migrations"

func TestMigrationsKeepLandedSchema(t *testing.T) {
	landed, err := os.ReadDir(landedDir)
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, e := range landed {
		last, _, _ = strings.Cut(e.Name(), "_")
	}
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			fromLanded := emptyDB(t, e)
			if _, err := fromLanded.MigrateDir(ctx, landedDir); err != nil {
				t.Fatalf("migrate with the landed copies: %v", err)
			}
			fromEmbedded := emptyDB(t, e)
			if _, err := fromEmbedded.MigrateUpTo(ctx, last); err != nil {
				t.Fatalf("migrate with the embedded files: %v", err)
			}
			want, got := schemaOf(t, fromLanded), schemaOf(t, fromEmbedded)
			if len(want) < 20 {
				t.Fatalf("the schema dump has %d lines; the dump is broken", len(want))
			}
			for _, l := range want {
				if !slices.Contains(got, l) {
					t.Errorf("the embedded migrations up to %s lack: %s", last, l)
				}
			}
			for _, l := range got {
				if !slices.Contains(want, l) {
					t.Errorf("the embedded migrations up to %s add: %s", last, l)
				}
			}
		})
	}
}

// emptyDB opens a database of engine e with nothing in it.
func emptyDB(t *testing.T, e store.Dialect) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Config{URL: ledgertest.DBURL(t, e)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if e == store.Postgres {
		// DBURL clones the migrated template; start from an empty one.
		if _, err := db.ExecContext(ctx, "DROP SCHEMA public CASCADE; CREATE SCHEMA public"); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

var space = regexp.MustCompile(`\s+`)

// schemaOf lists db's schema a line per column, index, constraint,
// function and sequence, white space folded (so a reformatted function body
// compares equal), sorted.
func schemaOf(t *testing.T, db *store.DB) []string {
	t.Helper()
	var queries []string
	if db.Engine == store.Postgres {
		queries = []string{
			`SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' null=' || is_nullable || ' default=' || coalesce(column_default, '')
			 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'`,
			`SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'`,
			`SELECT 'constraint ' || c.conrelid::regclass || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
			 FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
			 WHERE n.nspname = current_schema() AND c.conrelid::regclass::text <> 'schema_migrations'`,
			`SELECT 'function ' || p.proname || '(' || pg_get_function_arguments(p.oid) || ') ' || pg_get_function_result(p.oid) || ' ' || p.prosrc
			 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema()`,
			`SELECT 'sequence ' || sequence_name || ' ' || data_type FROM information_schema.sequences WHERE sequence_schema = current_schema()`,
		}
	} else {
		queries = []string{`SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'schema_migrations%'`}
	}
	var out []string
	for _, q := range queries {
		rows, err := db.QueryContext(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.TrimSpace(space.ReplaceAllString(s, " ")))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// TestMigrationsApplyAllOrNothing: an upgrade whose last migration fails
// leaves the database at the version it had, the migrations before the
// failing one not applied either, so the release before still runs on it;
// once mended, the same upgrade applies them all.
func TestMigrationsApplyAllOrNothing(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := emptyDB(t, e)
			dir := t.TempDir()
			write := func(name, sql string) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(dir, name), []byte(sql), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			versions := func() []string {
				t.Helper()
				var vs []string
				if err := db.NewSelect().Table("schema_migrations").Column("version").Order("version").Scan(ctx, &vs); err != nil {
					t.Fatal(err)
				}
				return vs
			}
			write("0001_first.up.sql", "CREATE TABLE first_table (x INTEGER);\n")
			if applied, err := db.MigrateDir(ctx, dir); err != nil || !slices.Equal(applied, []string{"0001"}) {
				t.Fatalf("first release: applied %v, %v", applied, err)
			}

			write("0002_second.up.sql", "CREATE TABLE second_table (y INTEGER);\nINSERT INTO first_table (x) VALUES (1);\n")
			write("0003_broken.up.sql", "INSERT INTO no_such_table (z) VALUES (1);\n")
			applied, err := db.MigrateDir(ctx, dir)
			if err == nil || !strings.Contains(err.Error(), "0003_broken.up.sql") {
				t.Fatalf("upgrade with a broken migration: %v, want an error naming 0003_broken.up.sql", err)
			}
			if len(applied) != 0 {
				t.Errorf("a failed upgrade reports %v applied", applied)
			}
			if got := versions(); !slices.Equal(got, []string{"0001"}) {
				t.Errorf("after the failed upgrade schema_migrations holds %v, want [0001]", got)
			}
			var n int
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM first_table").Scan(&n); err != nil || n != 0 {
				t.Errorf("0002's row in first_table: %d, %v; want none", n, err)
			}
			if _, err := db.ExecContext(ctx, "SELECT y FROM second_table"); err == nil {
				t.Error("0002's table exists after the failed upgrade")
			}

			write("0003_broken.up.sql", "CREATE TABLE third_table (z INTEGER);\n")
			if applied, err := db.MigrateDir(ctx, dir); err != nil || !slices.Equal(applied, []string{"0002", "0003"}) {
				t.Fatalf("mended upgrade: applied %v, %v; want [0002 0003]", applied, err)
			}
			if got := versions(); !slices.Equal(got, []string{"0001", "0002", "0003"}) {
				t.Errorf("after the mended upgrade schema_migrations holds %v", got)
			}
			if applied, err := db.MigrateDir(ctx, dir); err != nil || len(applied) != 0 {
				t.Errorf("a second start applied %v, %v; want nothing", applied, err)
			}
		})
	}
}

// TestSplitStatementsKeepsFunctionBodies: a dollar-quoted body spanning
// lines is one statement, however many of its lines end with a semicolon.
func TestSplitStatementsKeepsFunctionBodies(t *testing.T) {
	sql := "CREATE TABLE a (x INT);\n-- a comment;\nCREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $f$\nBEGIN\n  RETURN 1;\nEND $f$;\nCREATE TABLE b (y INT);\n"
	got := store.SplitStatements(sql)
	want := []string{"CREATE TABLE a (x INT);", "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $f$\nBEGIN\n  RETURN 1;\nEND $f$;", "CREATE TABLE b (y INT);"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
