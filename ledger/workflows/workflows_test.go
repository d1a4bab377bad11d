package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledger/validators"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/store"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// TestTimeJumpCoversEveryValidator: a time jump on a network of two
// validators (LocalNet's app user and app provider) runs the
// automations of both: each validator records its liveness in each
// round opened, and a subscription between the app provider's parties
// is paid and collected across the jump, whichever validator's
// development tools jump.
func TestTimeJumpCoversEveryValidator(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		pv, err := validators.Add(ctx, l, "app-provider-1", nil)
		if err != nil {
			t.Fatal(err)
		}
		w := workflows.New(l)
		pw := w.ForValidator(pv)
		sender, err := users.Of(pv).Onboard(ctx, "sender", "")
		if err != nil {
			t.Fatal(err)
		}
		app, err := users.Of(pv).Onboard(ctx, "app", "")
		if err != nil {
			t.Fatal(err)
		}
		ledgertest.Mint(t, l, sender, "100")
		subs := pw.Subscriptions
		req, err := subs.RequestSubscription(ctx, subscriptions.SubscriptionRequestSpec{
			Sender: sender, Receiver: app, Provider: app, Description: "a name", Amount: coin.MustParse("10"),
			Interval: time.Hour, Duration: 10 * time.Minute, Origins: []string{"https://app.example.com"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := subs.AcceptSubscriptionRequest(ctx, sender, req); err != nil {
			t.Fatal(err)
		}
		if n, err := subs.CollectSubscriptions(ctx); err != nil || n != 1 {
			t.Fatalf("CollectSubscriptions = %d, %v", n, err)
		}
		// The app user's automations leave the app provider's parties alone.
		if rep, err := w.Subscriptions.PaySubscriptions(ctx); err != nil || rep != (subscriptions.SubscriptionPayReport{}) {
			t.Fatalf("the app user's PaySubscriptions = %+v, %v; want nothing done", rep, err)
		}
		// What the app received, in whole payments of 10 (holding fees
		// take a little of each meanwhile).
		paid := func() int64 {
			t.Helper()
			b, err := l.Balance(ctx, app)
			if err != nil {
				t.Fatal(err)
			}
			return b.EffectiveUnlocked.Add(coin.MustParse("1")).Quo(coin.MustParse("10"))
		}
		if got := paid(); got != 1 {
			t.Fatalf("the app has %d payments after the first, want 1", got)
		}
		for i, d := range []*devnet.Service{w.Devnet, pw.Devnet} {
			clock.Advance(55 * time.Minute)
			rep, err := d.AdvanceRounds(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range []coin.PartyID{l.Operator(), pv.Operator()} {
				if n, err := store.CountRewardCoupons(ctx, l.DB(), ledger.RewardLiveness, op, rep.To); err != nil || n != 1 {
					t.Errorf("jump %d: %d liveness coupons of %s in round %d, want 1 (%v)", i+1, n, op, rep.To, err)
				}
			}
			if got, want := paid(), int64(i+2); got != want {
				t.Errorf("after jump %d the app has %d payments, want %d: the jump did not run the app provider's automations", i+1, got, want)
			}
			clock.Advance(10 * time.Minute)
		}
	})
}
