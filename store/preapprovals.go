package store

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/uptrace/bun"
)

// TransferPreapproval is a row of transfer_preapprovals.
type TransferPreapproval struct {
	bun.BaseModel `bun:"table:transfer_preapprovals"`

	ContractID    coin.ContractID `bun:"contract_id,pk"`
	Receiver      coin.PartyID    `bun:"receiver"`
	Provider      coin.PartyID    `bun:"provider"`
	ValidFrom     time.Time       `bun:"valid_from"`
	LastRenewedAt time.Time       `bun:"last_renewed_at"`
	ExpiresAt     time.Time       `bun:"expires_at"`
	ArchivedAt    bun.NullTime    `bun:"archived_at"`
}

// InsertTransferPreapproval stores a preapproval; ErrAlreadyExists when the
// receiver has a live one.
func InsertTransferPreapproval(ctx context.Context, db bun.IDB, p *TransferPreapproval) error {
	if _, err := db.NewInsert().Model(p).Exec(ctx); err != nil {
		return fmt.Errorf("insert transfer preapproval %s: %w", p.ContractID, Normalize(err))
	}
	return nil
}

// LiveTransferPreapproval loads the receiver's unarchived preapproval
// (expired or not).
func LiveTransferPreapproval(ctx context.Context, db bun.IDB, receiver coin.PartyID) (*TransferPreapproval, error) {
	p := new(TransferPreapproval)
	if err := db.NewSelect().Model(p).Where("receiver = ?", receiver).Where("archived_at IS NULL").Scan(ctx); err != nil {
		return nil, fmt.Errorf("transfer preapproval of %s: %w", receiver, Normalize(err))
	}
	return p, nil
}

// TransferPreapprovalByID loads a preapproval, archived or not.
func TransferPreapprovalByID(ctx context.Context, db bun.IDB, id coin.ContractID) (*TransferPreapproval, error) {
	p := new(TransferPreapproval)
	if err := db.NewSelect().Model(p).Where("contract_id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("transfer preapproval %s: %w", id, Normalize(err))
	}
	return p, nil
}

// LiveTransferPreapprovals lists unarchived preapprovals of a provider
// (every provider when empty), soonest expiry first, optionally only those
// expiring in (after, before].
func LiveTransferPreapprovals(ctx context.Context, db bun.IDB, provider coin.PartyID, after, before time.Time) ([]TransferPreapproval, error) {
	var ps []TransferPreapproval
	q := db.NewSelect().Model(&ps).Where("archived_at IS NULL").Order("expires_at", "contract_id")
	if provider != "" {
		q = q.Where("provider = ?", provider)
	}
	if !after.IsZero() {
		q = q.Where("expires_at > ?", after)
	}
	if !before.IsZero() {
		q = q.Where("expires_at <= ?", before)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("transfer preapprovals: %w", Normalize(err))
	}
	return ps, nil
}

// ArchiveTransferPreapproval marks a preapproval archived, guarded: ErrStale
// when it was archived already.
func ArchiveTransferPreapproval(ctx context.Context, db bun.IDB, id coin.ContractID, at time.Time) error {
	res, err := db.NewUpdate().Table("transfer_preapprovals").Set("archived_at = ?", at).
		Where("contract_id = ?", id).Where("archived_at IS NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("archive transfer preapproval %s: %w", id, Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("transfer preapproval %s is archived already: %w", id, ErrStale)
	}
	return nil
}
