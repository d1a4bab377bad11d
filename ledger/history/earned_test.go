package history_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

var seeder = ledgertest.Seeder

// TestHistoryPageRewards: the rewards a party earned show among its
// history entries where they were earned, each once however the history
// is paged, with update IDs on every item; a filtered history has none.
func TestHistoryPageRewards(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		seed := seeder(t, l, p)
		ledgertest.Mint(t, l, p, "10")
		seed(ledger.RewardApp, "1")
		seed(ledger.RewardApp, "2") // the same round and kind: one row
		ledgertest.Mint(t, l, p, "20")
		if _, err := devnet.New(l).AdvanceRounds(ctx, 1); err != nil {
			t.Fatal(err)
		}
		seed(ledger.RewardValidator, "0.1")
		ledgertest.Mint(t, l, p, "30")
		seed(ledger.RewardLiveness, "0")

		describe := func(it history.Item) string {
			if it.Reward != nil {
				return fmt.Sprintf("reward %s r%d x%d %s", it.Reward.Kind, it.Round, it.Reward.Coupons, it.Reward.Amount)
			}
			return fmt.Sprintf("%s %s", it.Subtype, it.Amount)
		}
		walk := func(size int) []string {
			t.Helper()
			var out []string
			q := history.Query{PageSize: size}
			for range 50 {
				page, err := history.New(l).Page(ctx, p, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range page.Items {
					if it.UpdateID == "" {
						t.Errorf("no update ID: %s", describe(it))
					}
					out = append(out, describe(it))
				}
				if page.NextBefore == 0 {
					return out
				}
				q.BeforeID = page.NextBefore
			}
			t.Fatal("history pages never end")
			return nil
		}
		all := walk(100)
		want := []string{
			"reward liveness", "Mint 30.0000000000", "reward validator", "Mint 20.0000000000", "reward app", "Mint 10.0000000000", "Onboarded 0.0000000000",
		}
		var kinds []string
		for _, s := range all {
			f := strings.Fields(s)
			kinds = append(kinds, f[0]+" "+f[1])
		}
		if strings.Join(kinds, ", ") != strings.Join(want, ", ") {
			t.Fatalf("history %q, want %q", all, want)
		}
		if !strings.Contains(strings.Join(all, "\n"), " x2 3.0000000000") {
			t.Errorf("the two app coupons are not one row of 3 CC: %q", all)
		}
		for _, size := range []int{1, 2, 4} {
			if got := walk(size); strings.Join(got, "\n") != strings.Join(all, "\n") {
				t.Errorf("pages of %d: %q, want %q", size, got, all)
			}
		}
		page, err := history.New(l).Page(ctx, p, history.Query{PageSize: 100, Kind: "balance_change"})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if it.Reward != nil {
				t.Errorf("filtered history has a reward: %s", describe(it))
			}
		}
	})
}

// TestHistoryPageRewardsBounded: a history page reads at most
// MaxEarnedGroups groups of coupons and says when it left some out.
func TestHistoryPageRewardsBounded(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		seed := seeder(t, l, p)
		// Weights all different: a group each.
		for i := range history.MaxEarnedGroups + 1 {
			seed(ledger.RewardApp, fmt.Sprintf("0.%04d", i+1))
		}
		page, err := history.New(l).Page(ctx, p, history.Query{PageSize: 10})
		if err != nil {
			t.Fatal(err)
		}
		coupons := 0
		for _, it := range page.Items {
			if it.Reward != nil {
				coupons += it.Reward.Coupons
			}
		}
		if !page.RewardsPartial || coupons != history.MaxEarnedGroups {
			t.Errorf("partial %v with %d coupons, want true with %d", page.RewardsPartial, coupons, history.MaxEarnedGroups)
		}
	})
}
