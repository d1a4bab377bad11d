package ledger_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/store"
)

// replicas opens n ledgers on one fresh database of engine, as n replicas
// of the wallet would, all on clock.
func replicas(t *testing.T, engine store.Dialect, clock *ledgertest.Clock, n int) []*ledger.Ledger {
	t.Helper()
	url := ledgertest.DBURL(t, engine)
	var ls []*ledger.Ledger
	for range n {
		ls = append(ls, ledgertest.Open(t, url, ledgertest.Options{Clock: clock}))
	}
	return ls
}

// TestOffboardEndsAccessAtOnce: Users().PartyOf answers from the user cache, yet
// an offboarding on the same ledger ends the user's access immediately, and
// onboarding again restores it immediately, with the clock standing still.
func TestOffboardEndsAccessAtOnce(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p, err := l.Users().Onboard(ctx, "alice", "")
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second answer comes from the cache
			if got, err := l.Users().PartyOf(ctx, "alice"); err != nil || got != p {
				t.Fatalf("PartyOf = %s, %v; want %s", got, err, p)
			}
		}
		if err := userrights.New(l).Offboard(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		if got, err := l.Users().PartyOf(ctx, "alice"); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("PartyOf after offboarding = %s, %v; want ErrNotFound", got, err)
		}
		if u, err := l.Users().Get(ctx, "alice"); err != nil || u.Onboarded || u.WalletInstalled {
			t.Errorf("User after offboarding = %+v, %v; want not onboarded", u, err)
		}
		if _, err := l.Users().Onboard(ctx, "alice", ""); err != nil {
			t.Fatal(err)
		}
		if got, err := l.Users().PartyOf(ctx, "alice"); err != nil || got != p {
			t.Errorf("PartyOf after onboarding again = %s, %v; want %s", got, err, p)
		}
	})
}

// TestUserCacheAcrossReplicas: two ledgers on one database. A user
// onboarded on A acts through B at once (unknown users are not cached); an
// offboarding on A reaches B's cache only after the TTL, which is the
// documented bound (DefaultUserCacheTTL).
func TestUserCacheAcrossReplicas(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clock := ledgertest.NewClock()
			ls := replicas(t, engine, clock, 2)
			a, b := ls[0], ls[1]
			partyOf := func(l *ledger.Ledger, name string) (coin.PartyID, error) {
				t.Helper()
				return l.Users().PartyOf(ctx, name)
			}

			if _, err := partyOf(b, "bob"); !errors.Is(err, ledger.ErrNotFound) {
				t.Fatalf("B: bob before onboarding: %v, want ErrNotFound", err)
			}
			p, err := a.Users().Onboard(ctx, "bob", "")
			if err != nil {
				t.Fatal(err)
			}
			if got, err := partyOf(b, "bob"); err != nil || got != p {
				t.Fatalf("B: bob right after onboarding on A = %s, %v; want %s", got, err, p)
			}

			if err := userrights.New(a).Offboard(ctx, "bob"); err != nil {
				t.Fatal(err)
			}
			if _, err := partyOf(a, "bob"); !errors.Is(err, ledger.ErrNotFound) {
				t.Errorf("A: bob right after offboarding on A: %v, want ErrNotFound", err)
			}
			// Within the TTL, B may still answer from its cache: the bound.
			clock.Advance(ledger.DefaultUserCacheTTL - time.Millisecond)
			if got, err := partyOf(b, "bob"); err != nil || got != p {
				t.Errorf("B: bob within the TTL = %s, %v; want the cached %s", got, err, p)
			}
			clock.Advance(time.Millisecond)
			if _, err := partyOf(b, "bob"); !errors.Is(err, ledger.ErrNotFound) {
				t.Errorf("B: bob after the TTL: %v, want ErrNotFound", err)
			}

			// Offboarded users are not cached: onboarding again works on B
			// at once.
			if _, err := a.Users().Onboard(ctx, "bob", ""); err != nil {
				t.Fatal(err)
			}
			if got, err := partyOf(b, "bob"); err != nil || got != p {
				t.Errorf("B: bob right after onboarding again = %s, %v; want %s", got, err, p)
			}
		})
	}
}

// TestOffboardClosesTheWallet: offboarding says whether onboarding was new,
// archives the wallet's install and validator right (as the real
// validator's offboardUser), keeps the party's coin and open offers, and
// stops the automations that run the user's wallet: auto-accept and sweep
// do nothing for it until it is onboarded again.
func TestOffboardClosesTheWallet(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		first, err := l.Users().OnboardUser(ctx, "carol", "")
		if err != nil || !first.Created {
			t.Fatalf("first onboarding = %+v, %v; want created", first, err)
		}
		if again, err := l.Users().OnboardUser(ctx, "carol", ""); err != nil || again.Created || again.Party != first.Party {
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

		back, err := l.Users().OnboardUser(ctx, "carol", "")
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
