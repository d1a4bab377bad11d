package rewards_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/rewards"
)

func TestCollectRewards(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "10")
		// Traffic in round 0 earns the operator a validator reward coupon
		// once round 0 closes.
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("1")}); err != nil {
			t.Fatal(err)
		}
		// Rounds 0..2 open: nothing is due yet.
		if _, err := devnet.New(l).AdvanceRounds(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if n, err := rewards.New(l).Collect(ctx); err != nil || n != 0 {
			t.Fatalf("with round 0 open: collected %d, %v; want 0", n, err)
		}
		// Round 3 closes round 0: its validator coupon is minted, capped.
		rep, err := devnet.New(l).AdvanceRounds(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Collected != 1 {
			t.Fatalf("collected %d coupons, want 1", rep.Collected)
		}
		bal, _ := l.Balance(ctx, l.Operator())
		if want := l.Rules().ValidatorRewardPerCouponCap; !bal.EffectiveUnlocked.Equal(want) {
			t.Errorf("operator balance = %s, want the capped validator reward %s", bal.EffectiveUnlocked, want)
		}
		if !slices.Contains(ledgertest.HistorySubtypes(t, l, l.Operator()), "CollectRewards") {
			t.Error("no CollectRewards history entry")
		}
		// A second run (another replica) mints nothing.
		if n, err := rewards.New(l).Collect(ctx); err != nil || n != 0 {
			t.Errorf("second run collected %d, %v; want 0", n, err)
		}
		left, err := rewards.New(l).Coupons(ctx, l.Operator(), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range left {
			if c.TemplateID == ledger.RewardTemplate(ledger.RewardValidator) {
				t.Errorf("validator coupon %s still uncollected", c.ContractID)
			}
		}
	})
}

// TestCollectRewardsForManyParties mints 1,000 parties' coupons (more than
// one collection page of beneficiaries) exactly once each.
func TestCollectRewardsForManyParties(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		ps := make([]coin.PartyID, 1000)
		for i := range ps {
			p, err := coin.NewPartyID(fmt.Sprintf("bench-%d", i), l.Operator().Namespace())
			if err != nil {
				t.Fatal(err)
			}
			ps[i] = p
		}
		// Two coupons each: 2,000 coupons, exactly one collection page.
		for range 2 {
			if err := ledgertest.Dev(t, l).SeedRewardCoupons(ctx, ledger.RewardValidator, ps, coin.MustParse("0.15")); err != nil {
				t.Fatal(err)
			}
		}
		if err := ledgertest.Dev(t, l).SeedRewardCoupons(ctx, "bogus", ps, coin.MustParse("1")); !fault.IsValidation(err) {
			t.Errorf("unknown kind = %v, want a validation error", err)
		}
		if _, err := devnet.New(l).AdvanceRounds(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if n, err := rewards.New(l).Collect(ctx); err != nil || n != 0 {
			t.Fatalf("round 0 still open: %d, %v", n, err)
		}
		rep, err := devnet.New(l).AdvanceRounds(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Collected != 2000 {
			t.Errorf("collected %d, want 2000", rep.Collected)
		}
		for _, p := range []coin.PartyID{ps[0], ps[999]} {
			b, _ := l.Balance(ctx, p)
			if !b.EffectiveUnlocked.Equal(coin.MustParse("0.3")) || b.Count != 1 {
				t.Errorf("%s: %s in %d holdings, want 0.3 in 1", p, b.EffectiveUnlocked, b.Count)
			}
		}
	})
}

// TestRewardCollectionNeedsMintingDelegation: an external party's reward
// coupons are minted into its holdings only while it has an active minting
// delegation to this validator; without one (never, withdrawn, expired)
// they wait, while a local party's are minted as always.
func TestRewardCollectionNeedsMintingDelegation(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		ext, key := ledgertest.ExternalParty(t, l, "ext-minter")
		local := ledgertest.Party(t, l)
		op := l.Operator()
		weight := coin.MustParse("0.5")
		// seedAndClose gives both a coupon in the latest open round and
		// closes that round, which collects.
		seedAndClose := func() {
			t.Helper()
			if err := ledgertest.Dev(t, l).SeedRewardCoupons(ctx, ledger.RewardApp, []coin.PartyID{ext, local}, weight); err != nil {
				t.Fatal(err)
			}
			if _, err := devnet.New(l).AdvanceRounds(ctx, 3); err != nil {
				t.Fatal(err)
			}
		}
		state := func() string {
			t.Helper()
			cs, err := rewards.New(l).Coupons(ctx, ext, ledger.RewardApp)
			if err != nil {
				t.Fatal(err)
			}
			b, err := external.New(l).ExternalPartyBalance(ctx, ext)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("waiting=%d holdings=%d", len(cs), b.HoldingsCount)
		}
		localCollected := func() int {
			t.Helper()
			n := 0
			for _, s := range ledgertest.HistorySubtypes(t, l, local) {
				if s == "CollectRewards" {
					n++
				}
			}
			return n
		}
		propose := func(expires time.Duration) coin.ContractID {
			t.Helper()
			p, err := delegations.New(l).PrepareMintingDelegationProposal(ctx, ext, clock.Now().Add(expires), 10)
			if err != nil {
				t.Fatal(err)
			}
			r, err := external.New(l, delegations.PreparedKinds(l)...).Submit(ctx, ledgertest.Sign(t, ext, key, p))
			if err != nil {
				t.Fatal(err)
			}
			d, err := delegations.New(l).AcceptMintingDelegationProposal(ctx, op, r.ContractID)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}

		seedAndClose()
		if got := state(); got != "waiting=1 holdings=0" || localCollected() != 1 {
			t.Fatalf("without a delegation: %s, local collections %d; want the external coupon waiting, the local one minted", got, localCollected())
		}
		d := propose(24 * time.Hour)
		if _, err := rewards.New(l).Collect(ctx); err != nil {
			t.Fatal(err)
		}
		if got := state(); got != "waiting=0 holdings=1" {
			t.Fatalf("with a delegation: %s; want the coupon minted into its holding", got)
		}
		if !slices.Contains(ledgertest.HistorySubtypes(t, l, ext), "CollectRewards") {
			t.Error("no CollectRewards history entry for the external party")
		}
		if err := delegations.New(l).WithdrawMintingDelegation(ctx, op, d); err != nil {
			t.Fatal(err)
		}
		seedAndClose()
		if got := state(); got != "waiting=1 holdings=1" || localCollected() != 2 {
			t.Fatalf("after withdrawal: %s, local collections %d", got, localCollected())
		}
		propose(time.Hour)
		clock.Advance(time.Hour) // exactly at its expiry: no longer active
		if _, err := rewards.New(l).Collect(ctx); err != nil {
			t.Fatal(err)
		}
		if got := state(); got != "waiting=1 holdings=1" {
			t.Fatalf("with an expired delegation: %s; want the coupon still waiting", got)
		}
		ledgertest.Conserved(t, l)
	})
}
