package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// TestHoldingValuesByOwner: the home page's read of a party's holdings
// (on Postgres through pgx's own rows, in a transaction and on SQLite
// through database/sql) gives the fields bun's model reads give, for
// plain and long amounts, large rounds, locked and unlocked holdings, and
// nothing of another owner.
func TestHoldingValuesByOwner(t *testing.T) {
	alice, bob := coin.PartyID("alice"+testNS), coin.PartyID("bob"+testNS)
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			db := ledgertest.DB(t, e)
			for i, c := range []struct {
				owner        coin.PartyID
				amount, rate string
				round        coin.Round
				lock         string
			}{
				{alice, "1.5", "0.0003805175", 0, ""},
				{alice, "99999999.9999999999", "0.0000000001", 1 << 40, ""},
				{alice, "123456789012345678.0123456789", "1", 7, "shop" + testNS}, // beyond 18 digits
				{alice, "0.0000000001", "0", 3, "app" + testNS},
				{bob, "5", "0.1", 1, ""},
			} {
				h := &store.Holding{ContractID: coin.NewContractID(), Owner: c.owner, Amount: coin.MustParse(c.amount),
					Rate: coin.MustParse(c.rate), CreatedRound: c.round, LockHolder: c.lock, CreatedOffset: int64(i + 1), CreatedAt: time.Now()}
				if _, err := db.NewInsert().Model(h).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			want, err := store.HoldingsByOwner(ctx, db, alice)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != 4 {
				t.Fatalf("%d holdings of alice, want 4", len(want))
			}
			check := func(how string, got []store.Holding) {
				if len(got) != len(want) {
					t.Fatalf("%s: %d holdings, want %d", how, len(got), len(want))
				}
				for i, w := range want {
					g := got[i]
					if g.ContractID != w.ContractID || g.Owner != w.Owner || !g.Amount.Equal(w.Amount) || !g.Rate.Equal(w.Rate) ||
						g.CreatedRound != w.CreatedRound || g.LockHolder != w.LockHolder {
						t.Errorf("%s: holding %d = %+v, want %+v", how, i, g, w)
					}
				}
			}
			got, err := store.HoldingValuesByOwner(ctx, db, alice)
			if err != nil {
				t.Fatal(err)
			}
			check("pool", got)
			if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				got, err := store.HoldingValuesByOwner(ctx, tx, alice)
				check("transaction", got)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
