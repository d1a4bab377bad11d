package allocations_test

import (
	"context"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// forEachEngineClock runs fn on each engine with a settable clock and the
// ledger's allocation workflow.
func forEachEngineClock(t *testing.T, fn func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock)) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			fn(t, l, allocations.New(l), clock)
		})
	}
}

// balances are the parties' effective unlocked and locked coin.
func balances(t *testing.T, l *ledger.Ledger, ps ...coin.PartyID) []string {
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

// historyLens are the lengths of the parties' histories.
func historyLens(t *testing.T, l *ledger.Ledger, ps ...coin.PartyID) []int {
	t.Helper()
	var out []int
	for _, p := range ps {
		items, err := l.History(context.Background(), p, ledger.HistoryQuery{PageSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, len(items))
	}
	return out
}
