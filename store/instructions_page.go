package store

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// TransferInstructionsPage lists up to limit instructions in status that
// party receives (incoming) or sends, newest first, created before offset
// before (0: from the newest), and how many there are in all.
func TransferInstructionsPage(ctx context.Context, db bun.IDB, party coin.PartyID, incoming bool, status string, before int64, limit int) ([]TransferInstruction, int, error) {
	side := "sender"
	if incoming {
		side = "receiver"
	}
	total, err := db.NewSelect().Model((*TransferInstruction)(nil)).Where("? = ?", bun.Ident(side), party).Where("status = ?", status).Count(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("count transfer instructions of %s: %w", party, Normalize(err))
	}
	var tis []TransferInstruction
	q := db.NewSelect().Model(&tis).Where("? = ?", bun.Ident(side), party).Where("status = ?", status)
	if before > 0 {
		q = q.Where("created_offset < ?", before)
	}
	if err := q.Order("created_offset DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, 0, fmt.Errorf("transfer instructions of %s: %w", party, Normalize(err))
	}
	return tis, int(total), nil
}
