package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// prunePage bounds the update-log rows one pruning transaction removes.
const prunePage = 1000

// PruneReport says what a pruning run removed.
type PruneReport struct {
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
func (l *Ledger) Prune(ctx context.Context, retention, maxDuration time.Duration) (PruneReport, error) {
	var rep PruneReport
	if retention <= 0 {
		return rep, invalid("retention", "must be positive, not %s", retention)
	}
	if maxDuration < 0 {
		return rep, invalid("maxDuration", "must not be negative, not %s", maxDuration)
	}
	wall := l.pruneWallClock
	if wall == nil {
		wall = time.Now
	}
	start := wall() // wall time: maxDuration bounds real work, not ledger time
	cutoff := l.now().Add(-retention)
	for {
		if maxDuration > 0 && wall().Sub(start) >= maxDuration {
			return rep, nil
		}
		var n, c int64
		err := l.change(ctx, func(ctx context.Context, ch *change) error {
			tx := ch.tx
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
			meters := map[string]*trafficMeter{}
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
					tm = l.newTrafficMeter(*carried)
					meters[u.Submitter] = tm
					submitters = append(submitters, u.Submitter)
				}
				tm.add(u.RecordTime, u.TrafficBytes)
			}
			carry := make([]store.PrunedTraffic, len(submitters))
			for i, s := range submitters {
				carry[i] = meters[s].m
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
			tot.PrunedAt = bun.NullTime{Time: l.now()}
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
			err := l.change(ctx, func(ctx context.Context, ch *change) error {
				_, err := store.CapCompletions(ctx, ch.tx, MaxCompletionsPerUser)
				return err
			})
			if err != nil {
				return rep, fmt.Errorf("prune completions: %w", err)
			}
			return rep, nil
		}
	}
}
