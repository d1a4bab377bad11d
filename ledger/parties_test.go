package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// TestOffboardClosesTheWallet: offboarding says whether onboarding was new,
// archives the wallet's install and validator right (as the real
// validator's offboardUser), keeps the party's coin and open offers, and
// stops the automations that run the user's wallet: auto-accept and sweep
// do nothing for it until it is onboarded again.
func TestOffboardClosesTheWallet(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		first, err := users.Of(l).OnboardUser(ctx, "carol", "")
		if err != nil || !first.Created {
			t.Fatalf("first onboarding = %+v, %v; want created", first, err)
		}
		if again, err := users.Of(l).OnboardUser(ctx, "carol", ""); err != nil || again.Created || again.Party != first.Party {
			t.Fatalf("second onboarding = %+v, %v; want the same party, not created", again, err)
		}
		carol, friend := first.Party, ledgertest.Party(t, l)
		ledgertest.Mint(t, l, friend, "100")
		ledgertest.Mint(t, l, carol, "50")
		if _, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: friend, Receiver: carol, Amount: coin.MustParse("10"),
			ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "to-carol"}); err != nil {
			t.Fatal(err)
		}
		rights := func() int {
			cs, err := l.ActiveContractsOf(ctx, ledger.TemplateValidatorRight, carol)
			if err != nil {
				t.Fatal(err)
			}
			return len(cs)
		}
		if n := rights(); n != 1 {
			t.Fatalf("%d validator rights after onboarding, want 1", n)
		}
		if err := userrights.New(l).Offboard(ctx, "carol"); err != nil {
			t.Fatal(err)
		}
		if n := rights(); n != 0 {
			t.Errorf("%d validator rights after offboarding, want 0", n)
		}
		if res, err := autotransfer.New(l).AutoAccept(ctx, carol, []coin.PartyID{friend}); err != nil || res != (autotransfer.AutoAcceptResult{}) {
			t.Errorf("auto-accept for an offboarded user = %+v, %v; want nothing", res, err)
		}
		sweep := autotransfer.SweepConfig{Sender: carol, Receiver: friend, MaxBalanceUSD: coin.MustParse("0.01"), MinBalanceUSD: coin.Zero}
		if res, err := autotransfer.New(l).Sweep(ctx, sweep); err != nil || res.Amount.IsPositive() || res.OfferCID != "" {
			t.Errorf("sweep of an offboarded user = %+v, %v; want nothing", res, err)
		}
		if b, _ := l.Balance(ctx, carol); b.EffectiveUnlocked.Cmp(coin.MustParse("49")) < 0 {
			t.Errorf("carol's coin after offboarding = %s, want it kept", b.EffectiveUnlocked)
		}
		if offers, _ := pending.New(l).Offers(ctx, carol); len(offers) != 1 {
			t.Errorf("%d open offers to carol after offboarding, want the 1 kept", len(offers))
		}

		back, err := users.Of(l).OnboardUser(ctx, "carol", "")
		if err != nil || !back.Created || back.Party != carol {
			t.Fatalf("onboarding again = %+v, %v; want carol's party, created", back, err)
		}
		if n := rights(); n != 1 {
			t.Errorf("%d validator rights after onboarding again, want 1", n)
		}
		if res, err := autotransfer.New(l).AutoAccept(ctx, carol, []coin.PartyID{friend}); err != nil || res.Offers != 1 {
			t.Errorf("auto-accept after onboarding again = %+v, %v; want the offer accepted", res, err)
		}
	})
}
