package rewards_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/rewards"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

var seeder = ledgertest.Seeder

// TestRewardsByRound: a party's coupons show by round and kind, pending
// or collected by the update that minted them, with what they mint at the
// issuance caps (a 0.5 validator coupon mints the 0.2 cap), and page by
// round.
func TestRewardsByRound(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		seed := seeder(t, l, p)
		seed(ledger.RewardApp, "1.5")
		seed(ledger.RewardApp, "1.5")
		seed(ledger.RewardValidator, "0.5")
		first, _, err := l.CurrentRound(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := devnet.New(l).AdvanceRounds(ctx, 4); err != nil {
			t.Fatal(err)
		}
		seed(ledger.RewardLiveness, "0")
		now, _, err := l.CurrentRound(ctx)
		if err != nil {
			t.Fatal(err)
		}
		page, err := rewards.New(l).Page(ctx, p, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range page.Rows {
			s := fmt.Sprintf("%d %s %d %s", r.Round, r.Kind, r.Coupons, r.Amount)
			if r.Collected {
				s += " collected"
				if !strings.HasPrefix(r.CollectedBy, "1220") || r.CollectedAt.IsZero() {
					t.Errorf("collected row without its update: %+v", r)
				}
			}
			got = append(got, s)
		}
		want := []string{
			fmt.Sprintf("%d liveness 1 2.8500000000", now),
			fmt.Sprintf("%d app 2 3.0000000000 collected", first),
			fmt.Sprintf("%d validator 1 0.2000000000 collected", first),
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if page.Older != 0 {
			t.Errorf("one page has an older page: %d", page.Older)
		}
		// One round a page: the newest, then the first, then none.
		p1, err := rewards.New(l).Page(ctx, p, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(p1.Rows) != 1 || p1.Older != now {
			t.Fatalf("page 1: %+v", p1)
		}
		p2, err := rewards.New(l).Page(ctx, p, p1.Older, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(p2.Rows) != 2 || p2.Rows[0].Round != first || p2.Older != 0 {
			t.Errorf("page 2: %+v", p2)
		}
	})
}
