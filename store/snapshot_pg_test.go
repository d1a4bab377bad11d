package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// TestPGSnapshotNameTaken: on Postgres a snapshot under a name already
// taken is refused with ErrAlreadyExists, told by the error's code
// (duplicate_schema), not its text.
func TestPGSnapshotNameTaken(t *testing.T) {
	ctx := context.Background()
	db := ledgertest.DB(t, store.Postgres)
	if err := db.CreateSnapshot(ctx, "", "taken"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateSnapshot(ctx, "", "taken"); !errors.Is(err, store.ErrAlreadyExists) {
		t.Errorf("a second snapshot named taken: %v, want ErrAlreadyExists", err)
	}
}
