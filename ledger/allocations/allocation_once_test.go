package allocations_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestLegAllocatedOnce: eight concurrent allocations of one trade leg,
// on both engines, lock its coin once: one succeeds, the rest are
// refused with words, and supply is conserved. Before, each locked the
// leg's amount again.
func TestLegAllocatedOnce(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver, executor := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		spec := allocationSpec(l, sender, receiver, executor, "10", clock.Now())
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() { _, errs[i] = s.Allocate(ctx, spec, commands.Command{}) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, fault.ErrConflict):
				t.Errorf("a second allocation: %v, want a conflict", err)
			}
		}
		if ok != 1 {
			t.Errorf("%d allocations of one leg succeeded, want 1", ok)
		}
		b, err := l.Balance(ctx, sender)
		if err != nil || !b.EffectiveLocked.Equal(coin.MustParse("10")) {
			t.Errorf("locked %+v, %v; want exactly the leg's 10", b.EffectiveLocked, err)
		}
		// Another leg of the same trade is its own.
		other := spec
		other.TransferLegID = "leg1"
		if _, err := s.Allocate(ctx, other, commands.Command{}); err != nil {
			t.Errorf("another leg: %v", err)
		}
		ledgertest.Conserved(t, l)
	})
}
