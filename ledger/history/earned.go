package history

import (
	"context"
	"errors"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// MaxEarnedGroups bounds the coupon groups (same round, kind and weight)
// one history page reads.
const MaxEarnedGroups = 500

// earned lists the rewards party earned between the history page
// items (newest first) and the page before it (entry before, 0 for none),
// newest first: coupons are not history entries (a send to a featured
// provider's user makes one, and the history is written on that path),
// so the page reads them beside its entries. older reports whether older
// entries follow items; if not, the page takes every older coupon too.
// partial reports that there were more than MaxEarnedGroups groups, the
// oldest left out.
func (s *Service) earned(ctx context.Context, party coin.PartyID, before int64, items []Item, older bool) (earned []EarnedReward, partial bool, err error) {
	db := s.l.DB()
	var upTo int64
	var to coin.Round
	if before > 0 {
		off, r, err := store.HistoryPlace(ctx, db, before)
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
	gs, err := store.EarnedRewards(ctx, db, party, after, upTo, from, to, MaxEarnedGroups+1)
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
	rules := s.l.Rules()
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
		e.Amount = e.Amount.Add(rules.CouponIssuance(g.Kind, g.Amount).MulInt(int64(g.Coupons)))
		e.Offset = max(e.Offset, g.CreatedOffset)
	}
	offsets := make([]int64, len(out))
	for i, e := range out {
		offsets[i] = e.Offset
	}
	updates, err := store.UpdateRefs(ctx, db, offsets)
	if err != nil {
		return nil, false, err
	}
	for i := range out {
		out[i].Time, out[i].UpdateID = updates[out[i].Offset].RecordTime, updates[out[i].Offset].UpdateID
	}
	return out, partial, nil
}
