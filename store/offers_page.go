package store

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// CountOpenOffers counts the offers in status from sender to receiver.
func CountOpenOffers(ctx context.Context, db bun.IDB, sender, receiver coin.PartyID, status string) (int, error) {
	n, err := db.NewSelect().Model((*TransferOffer)(nil)).Where("sender = ?", sender).Where("receiver = ?", receiver).
		Where("status = ?", status).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count transfer offers from %s to %s: %w", sender, receiver, Normalize(err))
	}
	return int(n), nil
}

// OfferCursor is a place in a newest-first list of offers: the offer
// created at CreatedAt with ContractID (ties broken by the contract ID).
type OfferCursor struct {
	CreatedAt  time.Time
	ContractID coin.ContractID
}

// OffersPage lists up to limit offers in status that party receives
// (incoming) or sends, newest first, after the cursor when it is set,
// and counts them all.
func OffersPage(ctx context.Context, db bun.IDB, party coin.PartyID, incoming bool, status string, after *OfferCursor, limit int) ([]TransferOffer, int, error) {
	side := "sender"
	if incoming {
		side = "receiver"
	}
	base := func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("? = ?", bun.Ident(side), party).Where("status = ?", status)
	}
	total, err := base(db.NewSelect().Model((*TransferOffer)(nil))).Count(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("count transfer offers of %s: %w", party, Normalize(err))
	}
	if total == 0 {
		// Nothing open: most parties, on every home page visit. The page
		// read a moment later could only find what the count missed.
		return nil, 0, nil
	}
	var os []TransferOffer
	q := base(db.NewSelect().Model(&os))
	if after != nil {
		q = q.Where("(created_at < ? OR (created_at = ? AND contract_id < ?))", after.CreatedAt, after.CreatedAt, after.ContractID)
	}
	if err := q.OrderExpr("created_at DESC, contract_id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, 0, fmt.Errorf("transfer offers of %s: %w", party, Normalize(err))
	}
	return os, int(total), nil
}

// ActiveContractsPage is ActiveContractsByTemplate a page at a time: up
// to limit contracts after (created_offset, contract_id) = (offset, cid),
// oldest first; offset 0 starts at the beginning.
func ActiveContractsPage(ctx context.Context, db bun.IDB, templateID string, party coin.PartyID, offset int64, cid coin.ContractID, limit int) ([]Contract, error) {
	var cs []Contract
	q := db.NewSelect().Model(&cs).Where("template_id = ?", templateID).Where("archived_offset IS NULL").
		Where(stakeholderIs(db, "stakeholders", party))
	if offset > 0 {
		q = q.Where("(created_offset > ? OR (created_offset = ? AND contract_id > ?))", offset, offset, cid)
	}
	if err := q.OrderExpr("created_offset, contract_id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("contracts of %s: %w", templateID, Normalize(err))
	}
	return cs, nil
}
