package holdingsview

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/go-cmp/cmp"
)

// TestValuationUnitsMatchDecimals: the home page's valuation in coin
// units gives what the decimal one gives (balance, fee rates, order, each
// holding's fee and dust by any round) for holdings of every size and
// age, fees that reach or pass the amount, rates times rounds that do not
// fit an int64, and parties whose amounts or sums do not fit units (where
// it must fall back).
func TestValuationUnitsMatchDecimals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	amount := func(scale int) coin.Amount {
		return coin.MustParse(fmt.Sprintf("%d.%010d", rng.Int64N(int64(scale)), rng.Int64N(1e10)))
	}
	inUnits := 0
	for k := range 300 {
		at := coin.Round(rng.Int64N(1000))
		hs := make([]store.Holding, rng.IntN(40))
		for i := range hs {
			h := &hs[i]
			h.ContractID = coin.ContractID(fmt.Sprintf("%04d", i))
			h.Amount = amount([]int{10, 1000, 5e7}[rng.IntN(3)])
			h.Rate = amount(1).Div(coin.FromInt(1 + rng.Int64N(1000)))
			h.CreatedRound = coin.Round(rng.Int64N(1100))
			if rng.IntN(4) == 0 {
				h.LockHolder = "shop::1220ab"
			}
			switch rng.IntN(20) {
			case 0: // equal to another one: ties
				if i > 0 {
					h.Amount, h.Rate, h.CreatedRound = hs[0].Amount, hs[0].Rate, hs[0].CreatedRound
				}
			case 1: // a rate times rounds beyond an int64
				h.Rate, h.CreatedRound = coin.MustParse("99999999"), 0
			case 2: // too large for units: the whole valuation falls back
				if k%3 == 0 {
					h.Amount = coin.MustParse("123456789012.5")
				}
			}
		}
		if k%10 == 0 && len(hs) > 0 { // sums beyond an int64 of units
			for i := range hs {
				hs[i].Amount, hs[i].LockHolder = coin.MustParse("99999999.9999999999"), ""
			}
		}
		r := store.Round{Number: at, Price: coin.MustParse("0.005")}
		u, d := valueHoldingsIn(hs, r, true), valueHoldingsIn(hs, r, false)
		if u.units {
			inUnits++
		}
		eq := cmp.Comparer(func(a, b coin.Amount) bool { return a.Equal(b) })
		if diff := cmp.Diff(d.balance, u.balance, eq); diff != "" {
			t.Fatalf("case %d: balance (-decimals +units):\n%s", k, diff)
		}
		if !u.feePerRound.Equal(d.feePerRound) || !slices.Equal(u.order, d.order) {
			t.Fatalf("case %d: fee per round %s, %s; order %v, %v", k, u.feePerRound, d.feePerRound, u.order, d.order)
		}
		for i := range hs {
			if diff := cmp.Diff(d.view(i), u.view(i), eq); diff != "" {
				t.Fatalf("case %d, holding %d: view (-decimals +units):\n%s", k, i, diff)
			}
			for _, by := range []coin.Round{at, at + 1, at + 50, hs[i].CreatedRound, hs[i].CreatedRound + 7, 1 << 40} {
				if u.dust(i, by) != d.dust(i, by) {
					t.Fatalf("case %d, holding %d: dust at %d: units %v, decimals %v", k, i, by, u.dust(i, by), d.dust(i, by))
				}
			}
		}
	}
	if inUnits < 150 || inUnits > 280 {
		t.Errorf("%d of 300 cases valued in units: the test must try both ways", inUnits)
	}
}
