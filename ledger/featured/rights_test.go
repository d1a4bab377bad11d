package featured_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/rewards"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// TestSelfGrantFeaturedAppRight: a party grants itself one right (again
// is the same right, concurrent grants too), which the scan-proxy lookup
// serves and its history shows; cancel archives it, for that party only.
func TestSelfGrantFeaturedAppRight(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		fs := featured.New(l)
		alice, err := users.Of(l).Onboard(ctx, "alice", "")
		if err != nil {
			t.Fatal(err)
		}
		bob, err := users.Of(l).Onboard(ctx, "bob", "")
		if err != nil {
			t.Fatal(err)
		}
		if f, err := fs.IsFeatured(ctx, alice); err != nil || f {
			t.Fatalf("alice featured before the grant = %v, %v", f, err)
		}
		// Concurrent grants: one right, every caller gets its id.
		ids := make([]coin.ContractID, 4)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id, err := fs.SelfGrant(ctx, alice)
				if err != nil {
					t.Error(err)
				}
				ids[i] = id
			}()
		}
		wg.Wait()
		for _, id := range ids[1:] {
			if id != ids[0] || id == "" {
				t.Fatalf("concurrent grants gave %v, want one right", ids)
			}
		}
		c, err := featured.New(l).Right(ctx, alice)
		if err != nil || c.ContractID != ids[0] || c.TemplateID != ledger.TemplateFeaturedAppRight {
			t.Fatalf("lookup = %+v, %v; want %s", c, err, ids[0])
		}
		if f, _ := fs.IsFeatured(ctx, bob); f {
			t.Fatal("bob is featured by alice's grant")
		}
		wantHistory(t, l, alice, featured.RightGranted, 1)

		// Bob cancelling his (none) leaves alice's right alone.
		if n, err := fs.Cancel(ctx, bob); err != nil || n != 0 {
			t.Fatalf("bob cancels = %d, %v", n, err)
		}
		if f, _ := fs.IsFeatured(ctx, alice); !f {
			t.Fatal("bob's cancel removed alice's right")
		}
		if n, err := fs.Cancel(ctx, alice); err != nil || n != 1 {
			t.Fatalf("alice cancels = %d, %v", n, err)
		}
		if _, err := featured.New(l).Right(ctx, alice); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("lookup after cancel = %v, want ErrNotFound", err)
		}
		wantHistory(t, l, alice, featured.RightCancelled, 1)
		if n, err := fs.Cancel(ctx, alice); err != nil || n != 0 {
			t.Fatalf("cancel again = %d, %v", n, err)
		}
		// The operator's bootstrap right is untouched throughout.
		if f, _ := fs.IsFeatured(ctx, l.Operator()); !f {
			t.Fatal("the operator lost its featured app right")
		}
	})
}

func TestSelfGrantFeaturedAppRightOutsideDevNet(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			l, err := ledgertest.OpenLedger(ctx, ledgertest.DB(t, e), ledger.Config{AdminUsers: []string{"admin"}})
			if err != nil {
				t.Fatal(err)
			}
			fs := featured.New(l)
			if _, err := fs.SelfGrant(ctx, l.Operator()); !errors.Is(err, fault.ErrDisabled) {
				t.Fatalf("self-grant on production = %v, want ErrDisabled", err)
			}
		})
	}
}

// wantHistory fails unless party's history has n rows of subtype.
func wantHistory(t *testing.T, l *ledger.Ledger, party coin.PartyID, subtype string, n int) {
	t.Helper()
	items, err := history.New(l).List(context.Background(), party, history.Query{PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, it := range items {
		if it.Subtype == subtype {
			got++
		}
	}
	if got != n {
		t.Fatalf("%s rows in %s's history = %d, want %d", subtype, party, got, n)
	}
}

// TestMergeRewardFollowsFeaturedRight: a delegated merge earns the
// provider a featured app reward only while it holds its right; after its
// admin cancels it, merges earn none.
func TestMergeRewardFollowsFeaturedRight(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		fs := featured.New(l)
		op := l.Operator()
		merged := func(p coin.PartyID) int {
			t.Helper()
			before, err := rewards.New(l).Coupons(ctx, op, ledger.RewardApp)
			if err != nil {
				t.Fatal(err)
			}
			mintMany(t, l, p, ledger.MergeTarget+5, "1")
			if _, err := delegations.New(l).MergeHoldings(ctx); err != nil {
				t.Fatal(err)
			}
			after, err := rewards.New(l).Coupons(ctx, op, ledger.RewardApp)
			if err != nil {
				t.Fatal(err)
			}
			return len(after) - len(before)
		}
		featured, plain := ledgertest.Party(t, l), ledgertest.Party(t, l)
		delegate(t, l, featured)
		delegate(t, l, plain)
		if n := merged(featured); n == 0 {
			t.Fatal("a delegated merge of a featured provider earned no app reward")
		}
		if n, err := fs.Cancel(ctx, op); err != nil || n != 1 {
			t.Fatalf("cancel the operator's right = %d, %v", n, err)
		}
		if n := merged(plain); n != 0 {
			t.Errorf("after the right was cancelled a delegated merge earned %d app rewards, want none", n)
		}
		ledgertest.Conserved(t, l)
	})
}
