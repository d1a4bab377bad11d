package devnet_test

import (
	"context"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestTapIsIdempotentAndPricedInUSD(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		r1, err := devnet.Tap(ctx, l, p, coin.MustParse("10"), "cmd-1")
		if err != nil {
			t.Fatal(err)
		}
		r2, err := devnet.Tap(ctx, l, p, coin.MustParse("10"), "cmd-1")
		if err != nil || r2.ContractID != r1.ContractID {
			t.Fatalf("replayed tap = %v, %v; want %s", r2, err, r1.ContractID)
		}
		b, err := l.Balance(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		// 10 USD at the initial price of 0.005 USD per coin.
		if !b.EffectiveUnlocked.Equal(coin.MustParse("2000")) {
			t.Errorf("balance = %s, want 2000", b.EffectiveUnlocked)
		}
		if _, err := devnet.Tap(ctx, l, p, coin.MustParse("-1"), ""); !fault.IsValidation(err) {
			t.Errorf("negative tap = %v, want a validation error", err)
		}
		s := ledgertest.Conserved(t, l)
		if !s.Minted.Equal(coin.MustParse("2000")) {
			t.Errorf("minted = %s", s.Minted)
		}
	})
}
