package ledger

import "github.com/ccwallet/ccwallet/coin"

// MaxOutput is the largest amount a with a + OutputFee(a) within funds,
// for one output to another party at price: the fee is a fixed part plus
// a rate of the amount, so a = (funds - fixed) / (1 + rate), then stepped
// past the quotient's and the fee's rounding at the 10th digit.
func (r Rules) MaxOutput(funds, price coin.Amount) coin.Amount {
	a := funds.Sub(USDToCoin(r.CreateFeeUSD, price)).Div(coin.FromInt(1).Add(r.TransferFeeRate))
	step := coin.MustParse("0.0000000001")
	fits := func(a coin.Amount) bool { return a.Add(r.OutputFee(a, price, false)).Cmp(funds) <= 0 }
	for i := 0; i < 1000 && a.IsPositive() && !fits(a); i++ {
		a = a.Sub(step)
	}
	if !a.IsPositive() {
		return coin.Zero
	}
	for i := 0; i < 1000 && fits(a.Add(step)); i++ {
		a = a.Add(step)
	}
	return a
}
