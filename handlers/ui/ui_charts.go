package ui

import (
	"context"
	"strconv"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/views"
)

// balancePoints is how many of the last changes Home's balance chart
// draws.
const balancePoints = 30

// startBalanceChart reads party's last changes while the caller reads its
// balance (the home page's render time is one read longer otherwise: about
// 2 ms of 5), and returns the function that draws the chart from that
// balance.
func (h *Handler) startBalanceChart(ctx context.Context, party coin.PartyID) func(ledger.Balance) (views.Chart, error) {
	list := goRead(func() ([]history.Item, error) {
		return h.w.History.List(ctx, party, history.Query{PageSize: balancePoints})
	})
	return func(b ledger.Balance) (views.Chart, error) {
		items, err := list()
		if err != nil {
			return views.Chart{}, err
		}
		ps := history.BalanceSeries(b, items)
		pts := make([]views.ChartPoint, len(ps))
		for i, p := range ps {
			pts[i] = views.ChartPoint{Label: p.Time.UTC().Format("2006-01-02 15:04 UTC"), Value: p.Balance}
		}
		title := "Balance before holding fees, last " + strconv.Itoa(len(ps)) + " changes"
		return views.StepChart("balance-chart", title, pts), nil
	}
}

// sizeChart counts holdings by their amount now (after accrued fees).
func sizeChart(hs []ledger.HoldingView) views.Chart {
	amounts := make([]coin.Amount, len(hs))
	for i, hv := range hs {
		amounts[i] = hv.Effective
	}
	return views.SizeHistogram("holdings-chart", "Holdings by size in CC", amounts)
}
