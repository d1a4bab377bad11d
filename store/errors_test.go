package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

// TestNormalizeSQLiteByCode: SQLite's constraint and busy errors are told
// apart by their result codes, not by their text: a unique or primary key
// clash is ErrAlreadyExists, a busy database a serialization failure
// (retried), and an error that only reads like one is left alone.
func TestNormalizeSQLiteByCode(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "e.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open()
	for _, q := range []string{"CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)", "INSERT INTO t VALUES (1, 'a')"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for what, q := range map[string]string{"unique": "INSERT INTO t VALUES (2, 'a')", "primary key": "INSERT INTO t VALUES (1, 'b')"} {
		_, err := db.ExecContext(ctx, q)
		if !errors.Is(Normalize(err), ErrAlreadyExists) {
			t.Errorf("%s clash: Normalize(%v) = %v, want ErrAlreadyExists", what, err, Normalize(err))
		}
	}

	tx, err := db.BeginTx(ctx, nil) // holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	_, err = open().BeginTx(ctx, nil)
	if !errors.Is(Normalize(err), errSerialization) {
		t.Errorf("busy: Normalize(%v) = %v, want a serialization failure", err, Normalize(err))
	}

	for _, msg := range []string{"UNIQUE constraint failed: t.name", "database is locked (5) (SQLITE_BUSY)"} {
		if n := Normalize(errors.New(msg)); errors.Is(n, ErrAlreadyExists) || errors.Is(n, errSerialization) {
			t.Errorf("Normalize(%q) = %v: matched by its text", msg, n)
		}
	}
}
