package ledger

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// The rule of dust expiry, which the automation (ledger/expiry's Dust,
// the round clock's first step after every round) applies to a page of
// candidates (store.DustCandidates) at a time, each page a change begun
// at the usable round (BeginAt).

// BeginAt begins the change's update of kind at round r, taking no
// party's locks: for an automation that works at the round it read
// (dust expiry at the usable round).
func (x *Tx) BeginAt(kind string, r *store.Round) { x.c.beginAt(kind, r) }

// ExpireDust archives those of hs that are dust at the update's round
// (their accrued holding fee exceeds their initial amount, IsDust) and
// burns what is left of their initial amounts, as the network's
// ExpiredAmuletTrigger does, each with its owner's history row. A locked
// holding expires only once its lock has expired too. It returns how
// many holdings expired. A holding spent or expired meanwhile fails the
// guarded delete, and the change retries.
func (x *Tx) ExpireDust(ctx context.Context, hs []store.Holding) (int, error) {
	t := x.t()
	l := t.l
	n := 0
	// The page's unlocked holdings are spent in one statement at the
	// end: a time jump expires hundreds at once.
	var spend []coin.ContractID
	for _, h := range hs {
		if !IsDust(h.Amount, h.Rate, h.CreatedRound, t.round.Number) {
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
			return n, err
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
	if len(spend) > 0 {
		return n, t.spendHoldings(ctx, spend)
	}
	return n, nil
}
