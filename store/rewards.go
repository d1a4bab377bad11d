package store

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// RewardGroup is a beneficiary's reward coupons that share a round, kind,
// weight and collection, counted: the web pages list rewards without
// reading every coupon (a featured provider gets one with every send).
type RewardGroup struct {
	Round   coin.Round  `bun:"round"`
	Kind    string      `bun:"kind"`
	Amount  coin.Amount `bun:"amount,type:text"`
	Coupons int         `bun:"coupons"`
	// CollectedOffset is the collecting update's offset, nil while
	// pending; CreatedOffset the newest coupon's creating update's.
	CollectedOffset *int64 `bun:"collected_offset"`
	CreatedOffset   int64  `bun:"created_offset"`
}

// RewardRounds lists the distinct rounds of beneficiary's coupons before
// round before (all when 0), newest first, at most limit.
func RewardRounds(ctx context.Context, db bun.IDB, beneficiary coin.PartyID, before coin.Round, limit int) ([]coin.Round, error) {
	var rs []coin.Round
	q := db.NewSelect().Table("reward_coupons").ColumnExpr("DISTINCT round").Where("beneficiary = ?", beneficiary)
	if before > 0 {
		q = q.Where("round < ?", before)
	}
	if err := q.OrderExpr("round DESC").Limit(int64(limit)).Scan(ctx, &rs); err != nil {
		return nil, fmt.Errorf("reward rounds of %s: %w", beneficiary, Normalize(err))
	}
	return rs, nil
}

// RewardGroupsOf counts beneficiary's coupons of rounds from to to
// (inclusive) by round, kind, weight and collection, newest round first,
// at most limit groups.
func RewardGroupsOf(ctx context.Context, db bun.IDB, beneficiary coin.PartyID, from, to coin.Round, limit int) ([]RewardGroup, error) {
	var gs []RewardGroup
	err := db.NewSelect().Table("reward_coupons").
		ColumnExpr("round, kind, amount, collected_offset, COUNT(*) AS coupons, MAX(created_offset) AS created_offset").
		Where("beneficiary = ?", beneficiary).Where("round >= ?", from).Where("round <= ?", to).
		GroupExpr("round, kind, amount, collected_offset").OrderExpr("round DESC, kind, collected_offset, amount").
		Limit(int64(limit)).Scan(ctx, &gs)
	if err != nil {
		return nil, fmt.Errorf("reward groups of %s: %w", beneficiary, Normalize(err))
	}
	return gs, nil
}

// EarnedRewards counts beneficiary's coupons created by updates after
// offset after and up to offset upTo (no bound when 0) by round, kind and
// weight, newest first, at most limit groups. The updates' rounds, from
// and to (no bound when 0), let the beneficiary index find them: a later
// update never has an earlier round.
func EarnedRewards(ctx context.Context, db bun.IDB, beneficiary coin.PartyID, after, upTo int64, from, to coin.Round, limit int) ([]RewardGroup, error) {
	var gs []RewardGroup
	q := db.NewSelect().Table("reward_coupons").
		ColumnExpr("round, kind, amount, COUNT(*) AS coupons, MAX(created_offset) AS created_offset").
		Where("beneficiary = ?", beneficiary).Where("round >= ?", from).Where("created_offset > ?", after)
	if upTo > 0 {
		q = q.Where("created_offset <= ?", upTo)
	}
	if to > 0 {
		q = q.Where("round <= ?", to)
	}
	err := q.GroupExpr("round, kind, amount").OrderExpr("MAX(created_offset) DESC, kind, amount").Limit(int64(limit)).Scan(ctx, &gs)
	if err != nil {
		return nil, fmt.Errorf("rewards earned by %s: %w", beneficiary, Normalize(err))
	}
	return gs, nil
}

// UpdateRef is an update's ID and time.
type UpdateRef struct {
	OffsetID   int64     `bun:"offset_id"`
	UpdateID   string    `bun:"update_id"`
	RecordTime time.Time `bun:"record_time"`
}

// UpdateRefs looks up the updates at offsets; pruned ones are missing.
func UpdateRefs(ctx context.Context, db bun.IDB, offsets []int64) (map[int64]UpdateRef, error) {
	out := make(map[int64]UpdateRef, len(offsets))
	if len(offsets) == 0 {
		return out, nil
	}
	var us []UpdateRef
	err := db.NewSelect().Table("updates").Column("offset_id", "update_id", "record_time").
		Where("offset_id IN (?)", bun.List(offsets)).Scan(ctx, &us)
	if err != nil {
		return nil, fmt.Errorf("updates by offset: %w", Normalize(err))
	}
	for _, u := range us {
		out[u.OffsetID] = u
	}
	return out, nil
}

// HistoryPlace is the update offset and round of history entry id;
// ErrNotFound if there is none.
func HistoryPlace(ctx context.Context, db bun.IDB, id int64) (int64, coin.Round, error) {
	var e HistoryEntry
	if err := db.NewSelect().Model(&e).Column("offset_id", "round").Where("id = ?", id).Scan(ctx); err != nil {
		return 0, 0, fmt.Errorf("history entry %d: %w", id, Normalize(err))
	}
	return e.OffsetID, e.Round, nil
}
