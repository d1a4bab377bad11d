package ledger_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/google/go-cmp/cmp"
)

// TestHoldingsOverview: the home page's overview, which builds views only
// of the holdings it lists, gives what BalanceAndHoldings' views of all
// of them give: the balance, the count dust by the risk round
// (ledger.IsDust, its boundary included), the fee rates of those still
// worth something, and the same holdings listed in the same order, for
// holdings of many sizes and rounds, dust and locked ones, and ties.
func TestHoldingsOverview(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		for _, batch := range [][]string{{"700", "5", "0.001"}, {"5", "0.01", "12.5", "0.0001"}, {"0.05", "0.5", "1", "5"}} {
			for _, a := range batch {
				ledgertest.Mint(t, l, p, a)
			}
			if _, err := devnet.New(l).AdvanceRounds(ctx, 7); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range []string{"12.5", "0.002"} {
			if _, err := l.MintLocked(ctx, p, coin.MustParse(a), time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		// One worth exactly 10 rounds of its fee: dust after 10 rounds,
		// not at 10 (IsDust's boundary).
		_, before, err := holdingsview.New(l).BalanceAndHoldings(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		exact := ledgertest.Mint(t, l, p, before[0].RatePerRound.MulInt(10).String())
		if _, err := devnet.New(l).AdvanceRounds(ctx, 2); err != nil {
			t.Fatal(err)
		}
		bal, hs, err := holdingsview.New(l).BalanceAndHoldings(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		dust := 0
		for _, h := range hs {
			if !h.Effective.IsPositive() {
				dust++
			}
		}
		if dust == 0 {
			t.Fatal("no holding is dust yet: the test checks none")
		}
		withins := []coin.Round{0, 3, 40, 400, 4000}
		for _, h := range hs {
			if h.Contract.ContractID == exact { // its boundary, and one round either side
				at := h.CreatedRound + 10 - bal.Round
				withins = append(withins, at-1, at, at+1)
			}
		}
		if len(withins) == 5 {
			t.Fatal("the exact holding is missing")
		}
		for _, within := range withins {
			for _, n := range []int{1, 2, 100} {
				t.Run(fmt.Sprintf("within %d, n %d", within, n), func(t *testing.T) {
					got, err := holdingsview.New(l).Overview(ctx, p, within, n)
					if err != nil {
						t.Fatal(err)
					}
					want := holdingsview.Overview{Balance: bal}
					var atRisk, others int
					for _, h := range hs {
						if h.Effective.IsPositive() {
							want.FeePerRound = want.FeePerRound.Add(h.RatePerRound)
						}
						risk := ledger.IsDust(h.Initial, h.RatePerRound, h.CreatedRound, bal.Round+within)
						if risk {
							want.AtRisk++
						}
						if risk && atRisk < n || !risk && others < n {
							want.Top = append(want.Top, h)
							if risk {
								atRisk++
							} else {
								others++
							}
						}
					}
					if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b coin.Amount) bool { return a.Equal(b) })); diff != "" {
						t.Errorf("overview (-BalanceAndHoldings +HoldingsOverview):\n%s", diff)
					}
				})
			}
		}
	})
}
