package history

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Page is a page of history for people (the web page): the entries with
// their update IDs and, when unfiltered, the rewards earned among them as
// items of kind "reward".
type Page struct {
	Items []Item
	// NextBefore is the before cursor of the next (older) page, 0 when
	// there is none.
	NextBefore int64
	// RewardsPartial: more rewards were earned among these entries than a
	// page lists (MaxEarnedGroups); the oldest are left out.
	RewardsPartial bool
}

// Page returns a page of party's history, newest first, with
// each item's update ID and the rewards the party earned in between (they
// change no balance, so they add nothing to the history's sums: their
// Amount is zero and the reward's own amount is in Reward).
func (s *Service) Page(ctx context.Context, party coin.PartyID, q Query) (Page, error) {
	if q.PageSize <= 0 || q.PageSize >= MaxPage {
		return Page{}, fault.Invalid("page_size", "must be from 1 to %d", MaxPage-1)
	}
	size := q.PageSize
	q.PageSize++
	items, err := s.List(ctx, party, q)
	if err != nil {
		return Page{}, err
	}
	var page Page
	older := len(items) > size
	if older {
		items = items[:size]
		page.NextBefore = items[size-1].ID
	}
	offsets := make([]int64, len(items))
	for i, it := range items {
		offsets[i] = it.UpdateOffset
	}
	updates, err := store.UpdateRefs(ctx, s.l.DB(), offsets)
	if err != nil {
		return Page{}, err
	}
	for i := range items {
		items[i].UpdateID = updates[items[i].UpdateOffset].UpdateID
	}
	if q.Kind != "" || q.Counterparty != "" {
		page.Items = items
		return page, nil
	}
	earned, partial, err := s.earned(ctx, party, q.BeforeID, items, older)
	page.RewardsPartial = partial
	if err != nil {
		return Page{}, err
	}
	// Both newest first: a reward goes above the entries of older updates.
	page.Items = make([]Item, 0, len(items)+len(earned))
	for _, it := range items {
		for len(earned) > 0 && earned[0].Offset > it.UpdateOffset {
			page.Items = append(page.Items, rewardItem(earned[0]))
			earned = earned[1:]
		}
		page.Items = append(page.Items, it)
	}
	for _, e := range earned {
		page.Items = append(page.Items, rewardItem(e))
	}
	return page, nil
}

func rewardItem(e EarnedReward) Item {
	return Item{Kind: ledger.HistoryReward, Subtype: e.Kind, UpdateOffset: e.Offset, Round: e.Round, Time: e.Time, UpdateID: e.UpdateID, Reward: &e}
}

// BalancePoint is a party's available balance right after one of its
// history entries.
type BalancePoint struct {
	Time    time.Time
	Round   coin.Round
	Balance coin.Amount
}

// BalanceSeries returns a party's available balance before holding fees
// (the sum of the initial amounts of its unlocked holdings) after each of
// items, its latest history entries as List returns them (newest
// first), oldest first: walked back from b, its balance now
// (BalanceAndHoldings), by the entries' Amounts, which add up to the
// changes of that sum (Item). The two are read apart (at once, on
// the home page), so an entry written between the reads shifts the points
// until the next read; nothing is stored.
func BalanceSeries(b ledger.Balance, items []Item) []BalancePoint {
	out := make([]BalancePoint, len(items))
	bal := b.EffectiveUnlocked.Add(b.HoldingFees)
	for i, it := range items {
		out[len(items)-1-i] = BalancePoint{Time: it.Time, Round: it.Round, Balance: bal}
		bal = bal.Sub(it.Amount)
	}
	return out
}
