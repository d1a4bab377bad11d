package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// dustPage bounds the holdings one dust transaction archives.
const dustPage = 500

// ExpireDust archives every holding that is dust at the latest open round
// (its accrued holding fee exceeds its initial amount, IsDust) and burns
// what is left of its initial amount, as the network's ExpiredAmuletTrigger
// does. A locked holding expires only once its lock has expired too. It
// returns how many holdings expired. Re-running is harmless: a holding
// spent or expired meanwhile fails the guarded delete and the page retries.
func (ro Rounds) ExpireDust(ctx context.Context) (int, error) {
	l := ro.l
	total := 0
	var after coin.ContractID
	for {
		var n int
		var last coin.ContractID
		done := false
		err := l.change(ctx, func(ctx context.Context, c *change) error {
			n, last, done = 0, "", false
			r, err := ro.usableRound(ctx, c.tx)
			if err != nil {
				return err
			}
			hs, err := store.DustCandidates(ctx, c.tx, r.Number, after, dustPage)
			if err != nil {
				return err
			}
			if len(hs) < dustPage {
				done = true
			}
			if len(hs) > 0 {
				last = hs[len(hs)-1].ContractID
			}
			t := c.beginAt("expire-dust", r)
			// The page's unlocked holdings are spent in one statement at the
			// end: a time jump expires hundreds at once.
			var spend []coin.ContractID
			for _, h := range hs {
				if !IsDust(h.Amount, h.Rate, h.CreatedRound, r.Number) {
					continue
				}
				subtype := "AmuletExpired"
				if h.LockHolder != "" {
					if h.LockExpiresAt.IsZero() || !t.now.After(h.LockExpiresAt.Time) {
						continue // the lock still holds the coin
					}
					subtype = "LockedAmuletExpired"
				}
				if h.LockHolder == "" {
					spend = append(spend, h.ContractID)
				} else if err := t.archiveHolding(ctx, h); err != nil {
					return err
				}
				t.burn(h.Amount)
				// An unlocked holding leaves the available balance now; a
				// locked one left it when it was locked.
				gone := h.Amount.Neg()
				if h.LockHolder != "" {
					gone = coin.Zero
				}
				t.record(h.Owner, HistoryBalanceChange, subtype, l.dso, gone, h.Amount, "",
					HistoryDetails{ContractID: h.ContractID, HoldingFees: h.Amount})
				n++
			}
			if n == 0 {
				c.drop()
				return nil
			}
			if len(spend) > 0 {
				return t.spendHoldings(ctx, spend)
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("expire dust: %w", err)
		}
		total += n
		if done {
			return total, nil
		}
		after = last
	}
}
