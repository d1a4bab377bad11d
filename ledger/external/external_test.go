package external_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// TestExternalPartyBalance: an external party's holdings summary, and an
// unknown party not found, on both engines.
func TestExternalPartyBalance(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		x := external.New(l)
		ctx := context.Background()
		ext, _ := ledgertest.ExternalParty(t, l, "ext-dave")
		ledgertest.Mint(t, l, ext, "100")
		ledgertest.Mint(t, l, ext, "23.5")
		b, err := x.ExternalPartyBalance(ctx, ext)
		if err != nil {
			t.Fatal(err)
		}
		if !b.Unlocked.Equal(coin.MustParse("123.5")) || !b.Locked.IsZero() || !b.Available().Equal(b.Unlocked.Sub(b.FeesUnlocked)) || b.HoldingsCount != 2 {
			t.Errorf("balance = %+v", b)
		}
		if _, err := x.ExternalPartyBalance(ctx, coin.PartyID("nobody::1220"+strings.Repeat("0", 64))); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("unknown party = %v, want ErrNotFound", err)
		}
	})
}
