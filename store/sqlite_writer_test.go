package store_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// TestSQLiteWritersLeaveConnections: on SQLite, transactions waiting for
// the write lock do not hold the pool's connections, so one that reads
// through the pool while it runs (outside its transaction) goes on.
// Without the writer's place in RunInTx, three of the eight waited in
// BEGIN for the lock (busy_timeout, 10 s) on three of the four
// connections, the holder's read found none free, and the 5 s deadline
// passed.
func TestSQLiteWritersLeaveConnections(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, store.Config{URL: filepath.Join(t.TempDir(), "w.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE w (n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			errs <- db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				if _, err := tx.ExecContext(ctx, "INSERT INTO w (n) VALUES (?)", i); err != nil {
					return err
				}
				var n int
				if err := db.NewSelect().ColumnExpr("count(*)").TableExpr("w").Scan(ctx, &n); err != nil {
					return err
				}
				time.Sleep(20 * time.Millisecond) // the others queue meanwhile
				return nil
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := db.NewSelect().ColumnExpr("count(*)").TableExpr("w").Scan(context.Background(), &n); err != nil || n != 8 {
		t.Fatalf("rows = %d, %v; want 8", n, err)
	}
}

// TestSQLitePathKeptWhole: a database path with the characters a URI
// gives a meaning ('#', '?', '%') is opened where it says.
func TestSQLitePathKeptWhole(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a#b?c%41d")
	path := filepath.Join(dir, "w.db")
	db, err := store.Open(ctx, store.Config{URL: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE w (n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		entries, _ := os.ReadDir(filepath.Dir(dir))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("the database is not at %s (%v); beside its directory: %v", path, err, names)
	}
}
