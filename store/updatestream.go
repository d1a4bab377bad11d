package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// UpdateTouch is one thing an update touched: the parties of a history
// row, a contract (its stakeholders, space-separated as stored, and its
// template) or a holding (its owner; Template empty).
type UpdateTouch struct {
	Offset   int64  `bun:"o"`
	Parties  string `bun:"p"`
	Template string `bun:"t"`
	Holding  int    `bun:"h"` // 1 for a holding
}

// UpdatesAfter returns at most limit updates after offset after, oldest
// first.
func UpdatesAfter(ctx context.Context, db bun.IDB, after int64, limit int) ([]Update, error) {
	var us []Update
	err := db.NewSelect().Model(&us).Where("offset_id > ?", after).Order("offset_id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("updates after %d: %w", after, Normalize(err))
	}
	return us, nil
}

// UpdateTouches lists what the updates at offsets lo..hi touched, each
// part a range read of an offset index. A holding already spent is in
// spent_holdings, which keeps its creating offset too.
func UpdateTouches(ctx context.Context, db bun.IDB, lo, hi int64) ([]UpdateTouch, error) {
	var ts []UpdateTouch
	err := db.NewRaw(`
SELECT offset_id AS o, party AS p, '' AS t, 0 AS h FROM history WHERE offset_id BETWEEN ?0 AND ?1
UNION ALL SELECT offset_id, counterparty, '', 0 FROM history WHERE offset_id BETWEEN ?0 AND ?1 AND counterparty <> ''
UNION ALL SELECT created_offset, stakeholders, template_id, 0 FROM contracts WHERE created_offset BETWEEN ?0 AND ?1
UNION ALL SELECT archived_offset, stakeholders, template_id, 0 FROM contracts WHERE archived_offset BETWEEN ?0 AND ?1
UNION ALL SELECT created_offset, owner, '', 1 FROM holdings WHERE created_offset BETWEEN ?0 AND ?1
UNION ALL SELECT created_offset, owner, '', 1 FROM spent_holdings WHERE created_offset BETWEEN ?0 AND ?1
UNION ALL SELECT spent_offset, owner, '', 1 FROM spent_holdings WHERE spent_offset BETWEEN ?0 AND ?1`, lo, hi).Scan(ctx, &ts)
	if err != nil {
		return nil, fmt.Errorf("update touches %d..%d: %w", lo, hi, Normalize(err))
	}
	return ts, nil
}
