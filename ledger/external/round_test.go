package external_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestExternalBalanceRound: an external party's balance reports the
// round the wallet's balance does (the usable open round), and so the
// same fees, as the rounds advance. Before, it took the earliest open
// round, a round behind.
func TestExternalBalanceRound(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		x := external.New(l)
		p := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, p, "100")
		for range 3 {
			ext, err := x.ExternalPartyBalance(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			b, err := l.Balance(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if ext.Round != b.Round || !ext.Available().Equal(b.EffectiveUnlocked) {
				t.Errorf("external balance: round %d, available %s; the wallet's: round %d, %s", ext.Round, ext.Available(), b.Round, b.EffectiveUnlocked)
			}
			clock.Advance(10 * time.Minute)
			if _, err := l.Rounds().AdvanceRound(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
}
