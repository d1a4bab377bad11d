// Package pruning is participant pruning: the removal of old update-log
// rows and the contracts they archived, never wallet history or live
// contracts.
package pruning

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Service prunes a ledger.
type Service struct {
	l *ledger.Ledger
	// wall measures Prune's maxDuration; nil is time.Now (tests set it).
	wall func() time.Time
}

// New is l's pruning.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// prunePage bounds the update-log rows one pruning transaction removes.
const prunePage = 1000

// Report says what a pruning run removed.
type Report struct {
	Updates   int64
	Contracts int64
	// Complete is false when MaxDuration stopped the run early.
	Complete bool
}

// Prune is participant pruning: it removes update-log rows recorded more
// than retention ago and the contracts archived by them, in small
// transactions, stopping once maxDuration has passed (0: no limit). Wallet
// history, live contracts and live holdings are never touched. The minted
// and burned totals of the removed rows are carried forward in
// pruned_totals in the same transaction, so CheckConservation stays exact,
// and their traffic use into pruned_traffic, so no member's traffic status
// changes.
func (s *Service) Prune(ctx context.Context, retention, maxDuration time.Duration) (Report, error) {
	l := s.l
	var rep Report
	if retention <= 0 {
		return rep, fault.Invalid("retention", "must be positive, not %s", retention)
	}
	if maxDuration < 0 {
		return rep, fault.Invalid("maxDuration", "must not be negative, not %s", maxDuration)
	}
	wall := s.wall
	if wall == nil {
		wall = time.Now
	}
	start := wall() // wall time: maxDuration bounds real work, not ledger time
	cutoff := l.Now().Add(-retention)
	for {
		if maxDuration > 0 && wall().Sub(start) >= maxDuration {
			return rep, nil
		}
		var n, c int64
		err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
			tx := x.DB()
			n, c = 0, 0
			us, err := store.PrunableUpdates(ctx, tx, cutoff, prunePage)
			if err != nil || len(us) == 0 {
				return err
			}
			tot, err := store.LoadPrunedTotals(ctx, tx)
			if err != nil {
				return err
			}
			ids := make([]int64, len(us))
			meters := map[string]*store.PrunedTraffic{}
			var submitters []string
			for i, u := range us {
				ids[i] = u.OffsetID
				tot.Minted = tot.Minted.Add(u.Minted)
				tot.Burned = tot.Burned.Add(u.Burned)
				tot.LastOffset = max(tot.LastOffset, u.OffsetID)
				tm := meters[u.Submitter]
				if tm == nil {
					carried, err := store.PrunedTrafficOf(ctx, tx, u.Submitter)
					if err != nil {
						return err
					}
					tm = carried
					meters[u.Submitter] = tm
					submitters = append(submitters, u.Submitter)
				}
				*tm = traffic.Fold(l, *tm, u.RecordTime, u.TrafficBytes)
			}
			carry := make([]store.PrunedTraffic, len(submitters))
			for i, sub := range submitters {
				carry[i] = *meters[sub]
			}
			if err := store.SavePrunedTraffic(ctx, tx, carry); err != nil {
				return err
			}
			if n, err = store.DeleteUpdates(ctx, tx, ids); err != nil {
				return err
			}
			if n != int64(len(ids)) {
				return fmt.Errorf("prune %d updates, %d were there: %w", len(ids), n, store.ErrStale)
			}
			if c, err = store.DeleteArchivedContracts(ctx, tx, tot.LastOffset); err != nil {
				return err
			}
			// The Ledger API's completions go with their updates.
			if err := store.DeleteCompletionsUpTo(ctx, tx, tot.LastOffset); err != nil {
				return err
			}
			tot.Updates += n
			tot.Contracts += c
			tot.PrunedAt = bun.NullTime{Time: l.Now()}
			return store.SavePrunedTotals(ctx, tx, tot)
		})
		if err != nil {
			return rep, fmt.Errorf("prune: %w", err)
		}
		rep.Updates += n
		rep.Contracts += c
		if n < prunePage {
			rep.Complete = true
			// And none holds more than its share of the completions.
			err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
				_, err := store.CapCompletions(ctx, x.DB(), commands.MaxCompletionsPerUser)
				return err
			})
			if err != nil {
				return rep, fmt.Errorf("prune completions: %w", err)
			}
			return rep, nil
		}
	}
}
