package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// TestRestoreOtherSchemaRefused: a snapshot whose migrations differ from
// the database's is refused before anything is written.
func TestRestoreOtherSchemaRefused(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := ledgertest.DB(t, e)
			dir := db.SnapshotDir()
			if err := db.CreateSnapshot(ctx, dir, "old"); err != nil {
				t.Fatal(err)
			}
			// Age the snapshot: drop its newest migration record.
			age := "DELETE FROM %sschema_migrations WHERE version = (SELECT MAX(version) FROM %sschema_migrations)"
			if e == store.Postgres {
				q := strings.ReplaceAll(age, "%s", `"ccwallet_snapshot_old".`)
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			} else {
				snap, err := store.Open(ctx, store.Config{URL: filepath.Join(dir, "old.db")}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := snap.ExecContext(ctx, strings.ReplaceAll(age, "%s", "")); err != nil {
					t.Fatal(err)
				}
				snap.Close()
			}
			err := db.RestoreSnapshot(ctx, dir, "old")
			if !errors.Is(err, store.ErrIncompatible) || !strings.Contains(err.Error(), "schema version") {
				t.Fatalf("restore = %v; want ErrIncompatible naming the schema version", err)
			}
		})
	}
}

// TestSnapshotFileNames: the store itself refuses a name that would leave
// the snapshot directory, whatever its caller checked.
func TestSnapshotFileNames(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.SQLite)
	dir := db.SnapshotDir()
	for _, name := range []string{"", "../x", "a/b", "..", `a\b`, "x.db"} {
		if err := db.CreateSnapshot(ctx, dir, name); err == nil {
			t.Errorf("snapshot %q was written", name)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if e.Name() != "snapshots" && !strings.HasPrefix(e.Name(), "ccwallet.db") {
			t.Errorf("unexpected file %s beside the database", e.Name())
		}
	}
}

// TestSnapshotSameNameAtOnce: of snapshots taken at once under one name,
// one is written and the others are refused with ErrAlreadyExists; none
// replaces another, and no temporary file stays behind.
func TestSnapshotSameNameAtOnce(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.SQLite)
	dir := db.SnapshotDir()
	errs := make(chan error, 4)
	for range 4 {
		go func() { errs <- db.CreateSnapshot(ctx, dir, "same") }()
	}
	ok := 0
	for range 4 {
		if err := <-errs; err == nil {
			ok++
		} else if !errors.Is(err, store.ErrAlreadyExists) {
			t.Errorf("snapshot: %v; want nil or ErrAlreadyExists", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d snapshots written under one name, want 1", ok)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "same.db" {
		t.Errorf("snapshot directory holds %v; want only same.db", entries)
	}
}
