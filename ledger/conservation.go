package ledger

import (
	"context"
	"fmt"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Supply is the ledger-wide coin account.
type Supply struct {
	// Live is the sum of the initial amounts of all live holdings, locked
	// ones included.
	Live   coin.Amount
	Minted coin.Amount
	Burned coin.Amount
}

// ErrNotConserved means coin was created or destroyed outside mint and burn.
var ErrNotConserved = fmt.Errorf("conservation violated")

// CheckConservation proves, for the whole ledger, that live holdings equal
// minted minus burned, exactly. Holdings count at their initial amount:
// holding fees become burned coin only when a holding is spent or expires,
// which is what keeps the equation exact at every instant.
func (l *Ledger) CheckConservation(ctx context.Context) (Supply, error) {
	var s Supply
	// One snapshot of holdings and updates for all the scans.
	err := l.db.InSnapshot(ctx, func(ctx context.Context, tx bun.Tx) error {
		s = Supply{}
		if err := store.ScanHoldings(ctx, tx, func(h store.Holding) error {
			if !h.Amount.IsPositive() {
				return fmt.Errorf("%w: holding %s has amount %s", ErrNotConserved, h.ContractID, h.Amount)
			}
			s.Live = s.Live.Add(h.Amount)
			return nil
		}); err != nil {
			return err
		}
		if err := store.ScanUpdateTotals(ctx, tx, func(m, b coin.Amount) error {
			s.Minted = s.Minted.Add(m)
			s.Burned = s.Burned.Add(b)
			return nil
		}); err != nil {
			return err
		}
		// Participant pruning removes update rows but carries their totals.
		p, err := store.LoadPrunedTotals(ctx, tx)
		if err != nil {
			return err
		}
		s.Minted = s.Minted.Add(p.Minted)
		s.Burned = s.Burned.Add(p.Burned)
		// Every event the rows record belongs to an update in the log
		// (or to one pruned already): a row written with a wrong or
		// missing offset would not be found by an audit of its update.
		orphans, err := store.EventsWithoutUpdate(ctx, tx, p.LastOffset)
		if err != nil {
			return err
		}
		if len(orphans) > 0 {
			return fmt.Errorf("%w: events without their update: %s", ErrNotConserved, strings.Join(orphans, "; "))
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	if !s.Live.Equal(s.Minted.Sub(s.Burned)) {
		return s, fmt.Errorf("%w: live %s != minted %s - burned %s", ErrNotConserved, s.Live, s.Minted, s.Burned)
	}
	return s, nil
}
