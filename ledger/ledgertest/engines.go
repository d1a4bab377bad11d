package ledgertest

import (
	"context"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/history"
)

// ForEachEngine runs fn, in parallel subtests, on a fresh ledger of each
// engine (New: conservation is checked when each ends).
func ForEachEngine(t *testing.T, fn func(t *testing.T, l *ledger.Ledger)) {
	ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, _ *Clock) { fn(t, l) })
}

// ForEachEngineClock is ForEachEngine with a settable clock.
func ForEachEngineClock(t *testing.T, fn func(t *testing.T, l *ledger.Ledger, clock *Clock)) {
	ForEachEngineRules(t, nil, fn)
}

// ForEachEngineFeesOf is ForEachEngineClock with a create fee of
// createUSD and a transfer fee rate of rate (the default rules charge
// none, which would leave the fee paths untested).
func ForEachEngineFeesOf(t *testing.T, createUSD, rate string, fn func(t *testing.T, l *ledger.Ledger, clock *Clock)) {
	r := ledger.DefaultRules()
	r.CreateFeeUSD, r.TransferFeeRate = coin.MustParse(createUSD), coin.MustParse(rate)
	ForEachEngineRules(t, &r, fn)
}

// ForEachEngineRules is ForEachEngineClock on a network with rules r (nil:
// the default).
func ForEachEngineRules(t *testing.T, r *ledger.Rules, fn func(t *testing.T, l *ledger.Ledger, clock *Clock)) {
	for _, e := range Engines {
		t.Run(Name(e), func(t *testing.T) {
			t.Parallel()
			clock := NewClock()
			fn(t, New(t, e, Options{Clock: clock, Rules: r}), clock)
		})
	}
}

// Balances are the parties' effective balances, "unlocked=… locked=…".
func Balances(t testing.TB, l *ledger.Ledger, ps ...coin.PartyID) []string {
	t.Helper()
	var out []string
	for _, p := range ps {
		b, err := l.Balance(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, "unlocked="+b.EffectiveUnlocked.String()+" locked="+b.EffectiveLocked.String())
	}
	return out
}

// HistoryLens counts the history items of each party: a refused move
// records nothing.
func HistoryLens(t testing.TB, l *ledger.Ledger, ps ...coin.PartyID) []int {
	t.Helper()
	var out []int
	for _, p := range ps {
		items, err := history.New(l).List(context.Background(), p, history.Query{PageSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, len(items))
	}
	return out
}
