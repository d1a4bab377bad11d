package ledgertest

import (
	"context"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
)

// Seeder returns a function that gives p a reward coupon at the current
// round.
func Seeder(t *testing.T, l *ledger.Ledger, p coin.PartyID) func(kind, amount string) {
	dev := Dev(t, l)
	return func(kind, amount string) {
		t.Helper()
		if err := dev.SeedRewardCoupons(context.Background(), kind, []coin.PartyID{p}, coin.MustParse(amount)); err != nil {
			t.Fatal(err)
		}
	}
}
