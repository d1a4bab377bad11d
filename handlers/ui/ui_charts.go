package ui

import (
	"strconv"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/views"
)

// balancePoints is how many of the last changes Home's balance chart
// draws.
const balancePoints = 30

// balanceChart draws Home's chart of party's balance b over its last
// changes, items (newest first; the first balancePoints are drawn).
func balanceChart(b ledger.Balance, items []history.Item) views.Chart {
	ps := history.BalanceSeries(b, items[:min(len(items), balancePoints)])
	pts := make([]views.ChartPoint, len(ps))
	for i, p := range ps {
		pts[i] = views.ChartPoint{Label: p.Time.UTC().Format("2006-01-02 15:04 UTC"), Value: p.Balance}
	}
	title := "Balance before holding fees, last " + strconv.Itoa(len(ps)) + " changes"
	return views.StepChart("balance-chart", title, pts)
}

// sizeChart counts holdings by their amount now (after accrued fees).
func sizeChart(hs []ledger.HoldingView) views.Chart {
	amounts := make([]coin.Amount, len(hs))
	for i, hv := range hs {
		amounts[i] = hv.Effective
	}
	return views.SizeHistogram("holdings-chart", "Holdings by size in CC", amounts)
}
