package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// TestInsertPreparedTxLazily: the lazily committed record reads back
// exactly, text that looks like placeholders or quoting included; a
// duplicate is ErrAlreadyExists; and on Postgres the connection it ran on
// is left as it was: out of any transaction, with its own synchronous_commit.
func TestInsertPreparedTxLazily(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := ledgertest.DB(t, e)
			db.DB.DB.SetMaxOpenConns(1) // every statement on the one connection
			setting := func() string {
				t.Helper()
				if e != store.Postgres {
					return ""
				}
				var v string
				if err := db.QueryRowContext(ctx, "SELECT current_setting('synchronous_commit')").Scan(&v); err != nil {
					t.Fatalf("the connection: %v", err)
				}
				return v
			}
			if e == store.Postgres {
				// Durable, as in production (the test cluster's default is not).
				if _, err := db.ExecContext(ctx, "SET synchronous_commit TO ON"); err != nil {
					t.Fatal(err)
				}
			}
			before := setting()
			at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
			p := &store.PreparedTx{TxHash: "ab01", Party: coin.PartyID("alice::1220ab"), Kind: "k",
				Body: `{"commandId":"it's ? $1 \\ ;"}`, Status: store.PreparedPending, CreatedAt: at, ExpiresAt: at.Add(time.Minute)}
			if err := store.InsertPreparedTxLazily(ctx, db, p); err != nil {
				t.Fatal(err)
			}
			got, err := store.PreparedTxByHash(ctx, db, "ab01")
			if err != nil {
				t.Fatal(err)
			}
			if got.Body != p.Body || got.Party != p.Party || !got.ExpiresAt.Equal(p.ExpiresAt) {
				t.Errorf("read back %+v, want %+v", got, p)
			}
			if err := store.InsertPreparedTxLazily(ctx, db, p); !errors.Is(err, store.ErrAlreadyExists) {
				t.Errorf("a duplicate: %v, want ErrAlreadyExists", err)
			}
			if after := setting(); after != before {
				t.Errorf("synchronous_commit %q after the lazy inserts, want the session's own (%q)", after, before)
			}
		})
	}
}
