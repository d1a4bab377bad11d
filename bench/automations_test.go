package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// BenchmarkMergeTenThousandHoldings times the merge automation bringing one
// party from 10,000 holdings to at most 10 on Postgres (aim: under 5 s).
func BenchmarkMergeTenThousandHoldings(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		l := ledgertest.New(b, store.Postgres)
		p := ledgertest.Party(b, l)
		as := make([]coin.Amount, 10_000)
		for i := range as {
			as[i] = coin.MustParse("0.5")
		}
		if err := ledgertest.Dev(b, l).MintBulk(ctx, p, as); err != nil {
			b.Fatal(err)
		}
		prop, err := delegations.New(l).ProposeMergeDelegation(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := delegations.New(l).AcceptMergeDelegation(ctx, prop.Contract.ContractID); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		rep, err := delegations.New(l).MergeHoldings(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		row("Merge 10,000 holdings of one party down to ≤ 10, Postgres", time.Since(t0).Round(time.Millisecond).String(),
			"cardano-wallet 10k-UTxO postTransaction 536–717 ms (PEERS)", "aim < 5 s")
		if bal, _ := l.Balance(ctx, p); bal.Count > ledger.MergeTarget {
			b.Fatalf("%d holdings left (%+v)", bal.Count, rep)
		}
		b.StartTimer()
	}
}

// BenchmarkCollectRewardsThousandParties times reward collection for 1,000
// parties in one round on Postgres (aim: under 2 s): the round change that
// closes their coupons' round and mints them.
func BenchmarkCollectRewardsThousandParties(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		l := ledgertest.New(b, store.Postgres)
		ps := make([]coin.PartyID, 1000)
		for i := range ps {
			p, err := coin.NewPartyID(fmt.Sprintf("bench-%d", i), l.Operator().Namespace())
			if err != nil {
				b.Fatal(err)
			}
			ps[i] = p
		}
		if err := ledgertest.Dev(b, l).SeedRewardCoupons(ctx, ledger.RewardValidator, ps, coin.MustParse("0.1")); err != nil {
			b.Fatal(err)
		}
		// Rounds 0..2 open: the coupons of round 0 are not due yet.
		if _, err := devnet.New(l).AdvanceRounds(ctx, 2); err != nil {
			b.Fatal(err)
		}
		// Opening round 3 closes round 0 and collects its coupons.
		b.StartTimer()
		t0 := time.Now()
		rep, err := devnet.New(l).AdvanceRounds(ctx, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		row("Reward collection, 1,000 parties in one round, Postgres", time.Since(t0).Round(time.Millisecond).String(), "", "aim < 2 s")
		if rep.Collected != 1000 {
			b.Fatalf("collected %d coupons, want 1000", rep.Collected)
		}
		b.StartTimer()
	}
}
