package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// InstructionCursor is a place in a newest-first list of transfer
// instructions: the one created at CreatedOffset with ContractID (ties
// broken by the contract ID). Instructions created later sort before it,
// so a cursor stays put while new ones arrive.
type InstructionCursor struct {
	CreatedOffset int64
	ContractID    coin.ContractID
}

// TransferInstructionsPage lists up to limit instructions in status that
// party is on one of sides of ("sender", "receiver"), newest first, after
// the cursor when it is set. Each side is read through its own (party,
// status, created_offset) index, at most limit rows, and the sides are
// merged.
func TransferInstructionsPage(ctx context.Context, db bun.IDB, party coin.PartyID, status string, after *InstructionCursor, limit int, sides ...string) ([]TransferInstruction, error) {
	var out []TransferInstruction
	for _, side := range sides {
		var tis []TransferInstruction
		q := db.NewSelect().Model(&tis).Where("? = ?", bun.Ident(side), party).Where("status = ?", status)
		if after != nil {
			q = q.Where("(created_offset < ? OR (created_offset = ? AND contract_id < ?))", after.CreatedOffset, after.CreatedOffset, after.ContractID)
		}
		if err := q.OrderExpr("created_offset DESC, contract_id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
			return nil, fmt.Errorf("transfer instructions of %s: %w", party, Normalize(err))
		}
		out = append(out, tis...)
	}
	// Contract IDs are lowercase hex, so Go's order and SQL's agree.
	slices.SortFunc(out, func(a, b TransferInstruction) int {
		return cmp.Or(cmp.Compare(b.CreatedOffset, a.CreatedOffset), strings.Compare(string(b.ContractID), string(a.ContractID)))
	})
	// An instruction to oneself is on both sides.
	out = slices.CompactFunc(out, func(a, b TransferInstruction) bool { return a.ContractID == b.ContractID })
	return out[:min(len(out), limit)], nil
}

// CountTransferInstructions counts the instructions in status that party
// is on side of ("sender", "receiver").
func CountTransferInstructions(ctx context.Context, db bun.IDB, party coin.PartyID, side, status string) (int, error) {
	n, err := db.NewSelect().Model((*TransferInstruction)(nil)).Where("? = ?", bun.Ident(side), party).Where("status = ?", status).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count transfer instructions of %s: %w", party, Normalize(err))
	}
	return int(n), nil
}
