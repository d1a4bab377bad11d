package users_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/ledger/users"
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

// TestOffboardEndsAccessAtOnce: users.Users.PartyOf answers from the user cache, yet
// an offboarding on the same ledger ends the user's access immediately, and
// onboarding again restores it immediately, with the clock standing still.
func TestOffboardEndsAccessAtOnce(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p, err := users.Of(l).Onboard(ctx, "alice", "")
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second answer comes from the cache
			if got, err := users.Of(l).PartyOf(ctx, "alice"); err != nil || got != p {
				t.Fatalf("PartyOf = %s, %v; want %s", got, err, p)
			}
		}
		if err := userrights.New(l).Offboard(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		if got, err := users.Of(l).PartyOf(ctx, "alice"); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("PartyOf after offboarding = %s, %v; want ErrNotFound", got, err)
		}
		if u, err := users.Of(l).Get(ctx, "alice"); err != nil || u.Onboarded || u.WalletInstalled {
			t.Errorf("User after offboarding = %+v, %v; want not onboarded", u, err)
		}
		if _, err := users.Of(l).Onboard(ctx, "alice", ""); err != nil {
			t.Fatal(err)
		}
		if got, err := users.Of(l).PartyOf(ctx, "alice"); err != nil || got != p {
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
				return users.Of(l).PartyOf(ctx, name)
			}

			if _, err := partyOf(b, "bob"); !errors.Is(err, fault.ErrNotFound) {
				t.Fatalf("B: bob before onboarding: %v, want ErrNotFound", err)
			}
			p, err := users.Of(a).Onboard(ctx, "bob", "")
			if err != nil {
				t.Fatal(err)
			}
			if got, err := partyOf(b, "bob"); err != nil || got != p {
				t.Fatalf("B: bob right after onboarding on A = %s, %v; want %s", got, err, p)
			}

			if err := userrights.New(a).Offboard(ctx, "bob"); err != nil {
				t.Fatal(err)
			}
			if _, err := partyOf(a, "bob"); !errors.Is(err, fault.ErrNotFound) {
				t.Errorf("A: bob right after offboarding on A: %v, want ErrNotFound", err)
			}
			// Within the TTL, B may still answer from its cache: the bound.
			clock.Advance(ledger.DefaultUserCacheTTL - time.Millisecond)
			if got, err := partyOf(b, "bob"); err != nil || got != p {
				t.Errorf("B: bob within the TTL = %s, %v; want the cached %s", got, err, p)
			}
			clock.Advance(time.Millisecond)
			if _, err := partyOf(b, "bob"); !errors.Is(err, fault.ErrNotFound) {
				t.Errorf("B: bob after the TTL: %v, want ErrNotFound", err)
			}

			// Offboarded users are not cached: onboarding again works on B
			// at once.
			if _, err := users.Of(a).Onboard(ctx, "bob", ""); err != nil {
				t.Fatal(err)
			}
			if got, err := partyOf(b, "bob"); err != nil || got != p {
				t.Errorf("B: bob right after onboarding again = %s, %v; want %s", got, err, p)
			}
		})
	}
}
