package jobs_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/store"
)

// TestValidatorJobs: a second validator of the network (LocalNet's app
// provider) runs its own automations, the network's run once: its
// preapproval nearing expiry is renewed by its renewal job and not by
// the first validator's; each round records one liveness coupon per
// validator; each validator's collection collects its own parties'
// coupons only; the jobs' names are distinct, so one scheduler runs them
// all.
func TestValidatorJobs(t *testing.T) {
	withClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		pv, w, pw := appProvider(t, l)
		js, err := jobs.Build(ctx, w, jobs.Automation{})
		if err != nil {
			t.Fatal(err)
		}
		pjs, err := jobs.BuildValidator(ctx, pw, jobs.Automation{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, j := range append(slices.Clone(js), pjs...) {
			names = append(names, j.Name)
		}
		want := []string{"round-clock", "expire-transfers", "collect-rewards", "merge-holdings", "renew-preapprovals", "accept-preapproval-proposals", "subscriptions",
			"collect-rewards@app-provider-1", "merge-holdings@app-provider-1", "renew-preapprovals@app-provider-1",
			"accept-preapproval-proposals@app-provider-1", "subscriptions@app-provider-1"}
		if !slices.Equal(names, want) {
			t.Errorf("jobs = %v\nwant %v", names, want)
		}
		runAll := func(js []jobs.Job) {
			t.Helper()
			for _, j := range js {
				if j.Name == "round-clock" {
					continue // rounds advance below
				}
				if err := j.Run(ctx); err != nil {
					t.Fatalf("%s: %v", j.Name, err)
				}
			}
		}

		// The provider's customer's preapproval, provided by the provider.
		customer, err := users.Of(pv).Onboard(ctx, "customer", "")
		if err != nil {
			t.Fatal(err)
		}
		if customer.Namespace() != pv.Namespace() {
			t.Fatalf("customer %s is not the provider's participant's", customer)
		}
		if _, _, err := pv.Preapprovals().Create(ctx, customer); err != nil {
			t.Fatal(err)
		}
		first, err := provider.New(pv).LivePreapproval(ctx, customer)
		if err != nil {
			t.Fatal(err)
		}
		if first.Provider != pv.Operator() {
			t.Fatalf("preapproval provider %s, want the app provider's operator %s", first.Provider, pv.Operator())
		}
		clock.Advance(ledger.PreapprovalLifetime - ledger.PreapprovalRenewalWindow + time.Minute) // inside the window
		runAll(js)
		if p, _ := provider.New(pv).LivePreapproval(ctx, customer); p.ContractID != first.ContractID {
			t.Errorf("the app user's validator renewed the app provider's preapproval: %+v", p)
		}
		runAll(pjs)
		renewed, err := provider.New(pv).LivePreapproval(ctx, customer)
		if err != nil {
			t.Fatal(err)
		}
		if renewed.ContractID == first.ContractID || !renewed.ExpiresAt.Equal(first.ExpiresAt.Add(ledger.PreapprovalLifetime)) {
			t.Errorf("the app provider's renewal job did not renew its preapproval: %+v (first %+v)", renewed, first)
		}

		// Liveness: one coupon per validator per round.
		rep, err := l.Rounds().AdvanceRound(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []coin.PartyID{l.Operator(), pv.Operator()} {
			if n, err := store.CountRewardCoupons(ctx, l.DB(), ledger.RewardLiveness, op, rep.To); err != nil || n != 1 {
				t.Errorf("round %d: %d liveness coupons of %s, want 1 (%v)", rep.To, n, op, err)
			}
		}
		// Collection: once the round is closed, each validator's job
		// collects its own operator's coupon.
		for range ledger.OpenRoundsKept {
			clock.Advance(time.Minute)
			if _, err := l.Rounds().AdvanceRound(ctx); err != nil {
				t.Fatal(err)
			}
		}
		uncollected := func(op coin.PartyID) int {
			t.Helper()
			cs, err := store.DueRewardCoupons(ctx, l.DB(), rep.To+1, 100)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, c := range cs {
				if c.Beneficiary == op && c.Round == rep.To {
					n++
				}
			}
			return n
		}
		if n := uncollected(pv.Operator()); n != 1 {
			t.Fatalf("the app provider's liveness coupon of round %d was collected by the app user's validator (%d left)", rep.To, n)
		}
		runAll(pjs)
		if n := uncollected(pv.Operator()); n != 0 {
			t.Errorf("the app provider's collection left its liveness coupon of round %d", rep.To)
		}
	})
}
