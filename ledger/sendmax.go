package ledger

import (
	"context"
	"sort"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// MaxSend is the most sender can transfer to another party in one
// transfer now (the send form's Max): what its largest MaxNumInputs
// unlocked holdings are worth at the open round, less that transfer's fee
// (Rules.OutputFee). Zero when the fees would take it all.
func (l *Ledger) MaxSend(ctx context.Context, sender coin.PartyID) (coin.Amount, error) {
	r, err := l.Rounds().usableRound(ctx, l.db)
	if err != nil {
		return coin.Zero, err
	}
	hs, err := store.HoldingsByOwner(ctx, l.db, sender)
	if err != nil {
		return coin.Zero, err
	}
	var worth []coin.Amount
	for _, h := range hs {
		if e := EffectiveAmount(h.Amount, h.Rate, h.CreatedRound, r.Number); h.LockHolder == "" && e.IsPositive() {
			worth = append(worth, e)
		}
	}
	sort.Slice(worth, func(i, j int) bool { return worth[i].Cmp(worth[j]) > 0 })
	funds := coin.Zero
	for i, e := range worth {
		if i == l.rules.MaxNumInputs {
			break
		}
		funds = funds.Add(e)
	}
	return l.rules.MaxOutput(funds, r.Price), nil
}

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
