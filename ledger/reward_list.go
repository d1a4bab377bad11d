package ledger

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// RewardRow is a party's reward coupons of one round and kind that share
// their state: pending, or collected by one update.
type RewardRow struct {
	Round   coin.Round
	Kind    string
	Coupons int
	// Amount is what the coupons mint, or minted, at the issuance caps
	// (Rules.CouponIssuance): their weight, capped per coupon.
	Amount    coin.Amount
	Collected bool
	// CollectedBy is the collecting update's ID, CollectedAt its time;
	// empty when pending or when pruning removed the update.
	CollectedBy string
	CollectedAt time.Time
}

// RewardsPage is a page of a party's rewards, newest round first.
type RewardsPage struct {
	Rows []RewardRow
	// Older is the before cursor of the next (older) page, 0 when there
	// is none.
	Older coin.Round
	// Partial: the page's oldest round has more groups of coupons than a
	// page reads (MaxRewardGroups), so some are left out.
	Partial bool
}

// MaxRewardRounds bounds the rounds of a rewards page; MaxRewardGroups
// the groups of coupons (same round, kind, weight and state) it reads.
const (
	MaxRewardRounds = 50
	MaxRewardGroups = 2000
)

// Rewards returns party's rewards of up to rounds rounds before round
// before (the newest when 0), newest first, each round's rows pending
// first, then by kind.
func (l *Ledger) Rewards(ctx context.Context, party coin.PartyID, before coin.Round, rounds int) (RewardsPage, error) {
	if rounds <= 0 {
		return RewardsPage{}, invalid("rounds", "must be positive")
	}
	rounds = min(rounds, MaxRewardRounds)
	rs, err := store.RewardRounds(ctx, l.db, party, before, rounds+1)
	if err != nil || len(rs) == 0 {
		return RewardsPage{}, err
	}
	var page RewardsPage
	if len(rs) > rounds {
		rs = rs[:rounds]
		page.Older = rs[rounds-1]
	}
	gs, err := store.RewardGroupsOf(ctx, l.db, party, rs[len(rs)-1], rs[0], MaxRewardGroups+1)
	if err != nil {
		return RewardsPage{}, err
	}
	if len(gs) > MaxRewardGroups {
		gs, page.Partial = gs[:MaxRewardGroups], true
	}
	var offsets []int64
	for _, g := range gs {
		if g.CollectedOffset != nil {
			offsets = append(offsets, *g.CollectedOffset)
		}
	}
	updates, err := store.UpdateRefs(ctx, l.db, offsets)
	if err != nil {
		return RewardsPage{}, err
	}
	// Groups of one round, kind and state differ by weight only: one row.
	type key struct {
		round     coin.Round
		kind      string
		collected int64 // -1: pending
	}
	at := map[key]int{}
	for _, g := range gs {
		k := key{g.Round, g.Kind, -1}
		if g.CollectedOffset != nil {
			k.collected = *g.CollectedOffset
		}
		i, ok := at[k]
		if !ok {
			i = len(page.Rows)
			at[k] = i
			row := RewardRow{Round: g.Round, Kind: g.Kind, Collected: g.CollectedOffset != nil}
			if u, ok := updates[k.collected]; ok && row.Collected {
				row.CollectedBy, row.CollectedAt = u.UpdateID, u.RecordTime
			}
			page.Rows = append(page.Rows, row)
		}
		r := &page.Rows[i]
		r.Coupons += g.Coupons
		r.Amount = r.Amount.Add(l.rules.CouponIssuance(g.Kind, g.Amount).MulInt(int64(g.Coupons)))
	}
	// The engines sort pending (NULL) groups differently: sort here.
	slices.SortStableFunc(page.Rows, func(a, b RewardRow) int {
		if c := cmp.Compare(b.Round, a.Round); c != 0 {
			return c
		}
		if a.Collected != b.Collected {
			if a.Collected {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Kind, b.Kind)
	})
	return page, nil
}

// EarnedReward is a history page's row for reward coupons a party earned:
// those of one round and kind created among the page's updates.
type EarnedReward struct {
	Round   coin.Round
	Kind    string
	Coupons int
	// Amount is what they mint when collected, at the issuance caps.
	Amount coin.Amount
	// Offset, Time and UpdateID are those of the newest coupon's update
	// (Time zero and UpdateID empty if pruning removed it).
	Offset   int64
	Time     time.Time
	UpdateID string
}

// MaxEarnedGroups bounds the coupon groups (same round, kind and weight)
// one history page reads.
const MaxEarnedGroups = 500

// earnedRewards lists the rewards party earned between the history page
// items (newest first) and the page before it (entry before, 0 for none),
// newest first: coupons are not history entries (a send to a featured
// provider's user makes one, and the history is written on that path),
// so the page reads them beside its entries. older reports whether older
// entries follow items; if not, the page takes every older coupon too.
// partial reports that there were more than MaxEarnedGroups groups, the
// oldest left out.
func (l *Ledger) earnedRewards(ctx context.Context, party coin.PartyID, before int64, items []HistoryItem, older bool) (earned []EarnedReward, partial bool, err error) {
	var upTo int64
	var to coin.Round
	if before > 0 {
		off, r, err := store.HistoryPlace(ctx, l.db, before)
		if errors.Is(err, store.ErrNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		upTo, to = off, r
	}
	var after int64
	var from coin.Round
	if older && len(items) > 0 {
		last := items[len(items)-1]
		after, from = last.UpdateOffset, last.Round
	}
	gs, err := store.EarnedRewards(ctx, l.db, party, after, upTo, from, to, MaxEarnedGroups+1)
	if err != nil {
		return nil, false, err
	}
	if len(gs) > MaxEarnedGroups {
		gs, partial = gs[:MaxEarnedGroups], true
	}
	type key struct {
		round coin.Round
		kind  string
	}
	at := map[key]int{}
	var out []EarnedReward
	for _, g := range gs {
		k := key{g.Round, g.Kind}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, EarnedReward{Round: g.Round, Kind: g.Kind})
		}
		e := &out[i]
		e.Coupons += g.Coupons
		e.Amount = e.Amount.Add(l.rules.CouponIssuance(g.Kind, g.Amount).MulInt(int64(g.Coupons)))
		e.Offset = max(e.Offset, g.CreatedOffset)
	}
	offsets := make([]int64, len(out))
	for i, e := range out {
		offsets[i] = e.Offset
	}
	updates, err := store.UpdateRefs(ctx, l.db, offsets)
	if err != nil {
		return nil, false, err
	}
	for i := range out {
		out[i].Time, out[i].UpdateID = updates[out[i].Offset].RecordTime, updates[out[i].Offset].UpdateID
	}
	return out, partial, nil
}
