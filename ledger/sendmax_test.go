package ledger_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
)

// TestMaxOutputLeavesTheFee: with a fixed fee and a rate, the max plus
// its fee fits the funds exactly to the 10th digit, and one unit more
// does not.
func TestMaxOutputLeavesTheFee(t *testing.T) {
	r := ledger.DefaultRules()
	r.CreateFeeUSD, r.TransferFeeRate = coin.MustParse("0.03"), coin.MustParse("0.001")
	price := coin.MustParse("0.0053")
	for _, f := range []string{"100", "123.4567891234", "6", "5.6603773585"} {
		funds := coin.MustParse(f)
		a := r.MaxOutput(funds, price)
		if a.Add(r.OutputFee(a, price, false)).Cmp(funds) > 0 {
			t.Errorf("MaxOutput(%s) = %s needs more than the funds", f, a)
		}
		if b := a.Add(coin.MustParse("0.0000000001")); a.IsPositive() && b.Add(r.OutputFee(b, price, false)).Cmp(funds) <= 0 {
			t.Errorf("MaxOutput(%s) = %s, but %s fits too", f, a, b)
		}
	}
	if got := r.MaxOutput(coin.MustParse("1"), price); !got.IsZero() {
		t.Errorf("MaxOutput(1 CC, fixed fee 5.66 CC) = %s, want 0", got)
	}
}
