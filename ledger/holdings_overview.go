package ledger

import (
	"cmp"
	"context"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// HoldingsOverview is what a wallet's home page shows of a party's
// holdings: the balance, their health, and the few worth listing.
type HoldingsOverview struct {
	Balance Balance
	// AtRisk counts the holdings that are dust by the overview's risk
	// round; FeePerRound sums the fee rates of those still worth
	// something.
	AtRisk      int
	FeePerRound coin.Amount
	// Top is at most n holdings at risk and n others, each the largest
	// by value, largest first (ties by contract ID); each Contract
	// carries only its ID, and LockExpiresAt is zero, as
	// BalanceAndHoldings.
	Top []HoldingView
}

// HoldingsOverview values party's holdings at the latest open round,
// counting those dust within riskWithin rounds. It values each holding
// once, and builds the (wide) view only of the ones it lists: a party
// with a thousand holdings had the home page build a thousand on every
// visit.
func (l *Ledger) HoldingsOverview(ctx context.Context, party coin.PartyID, riskWithin coin.Round, n int) (HoldingsOverview, error) {
	r, err := l.Rounds().usableRound(ctx, l.db)
	if err != nil {
		return HoldingsOverview{}, err
	}
	hs, err := store.HoldingValuesByOwner(ctx, l.db, party)
	if err != nil {
		return HoldingsOverview{}, err
	}
	riskAt := r.Number + riskWithin
	o := HoldingsOverview{Balance: Balance{Round: r.Number, Price: r.Price}}
	fee := make([]coin.Amount, len(hs))
	eff := make([]coin.Amount, len(hs))
	risk := make([]bool, len(hs))
	order := make([]int, len(hs))
	for i, h := range hs {
		fee[i] = HoldingFee(h.Amount, h.Rate, h.CreatedRound, r.Number)
		eff[i] = h.Amount.Sub(fee[i])
		o.Balance.add(eff[i], fee[i], h.LockHolder != "")
		if eff[i].IsPositive() {
			o.FeePerRound = o.FeePerRound.Add(h.Rate)
		}
		if risk[i] = IsDust(h.Amount, h.Rate, h.CreatedRound, riskAt); risk[i] {
			o.AtRisk++
		}
		order[i] = i
	}
	// Largest first; ties keep HoldingValuesByOwner's contract ID order,
	// as BalanceAndHoldings.
	slices.SortFunc(order, func(i, j int) int {
		if c := eff[j].Cmp(eff[i]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	var atRisk, others int
	for _, i := range order {
		if risk[i] && atRisk < n {
			atRisk++
		} else if !risk[i] && others < n {
			others++
		} else {
			continue
		}
		v := holdingViewWithFee(hs[i], fee[i])
		v.Contract.ContractID = hs[i].ContractID
		o.Top = append(o.Top, v)
	}
	return o, nil
}
