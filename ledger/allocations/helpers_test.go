package allocations_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// forEachEngineClock runs fn on each engine with a settable clock and the
// ledger's allocation workflow.
func forEachEngineClock(t *testing.T, fn func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock)) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		fn(t, l, allocations.New(l), clock)
	})
}
