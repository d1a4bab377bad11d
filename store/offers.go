package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// TransferOffer is a row of transfer_offers: a two-step wallet transfer and
// where it stands.
type TransferOffer struct {
	bun.BaseModel `bun:"table:transfer_offers"`

	ContractID      coin.ContractID `bun:"contract_id,pk"`
	TrackingID      string          `bun:"tracking_id"`
	Sender          coin.PartyID    `bun:"sender"`
	Receiver        coin.PartyID    `bun:"receiver"`
	Amount          coin.Amount     `bun:"amount,type:text"`
	Description     string          `bun:"description"`
	ExpiresAt       time.Time       `bun:"expires_at"`
	Status          string          `bun:"status"`
	FailureKind     string          `bun:"failure_kind"`
	WithdrawnReason string          `bun:"withdrawn_reason"`
	AcceptedCID     coin.ContractID `bun:"accepted_cid"`
	CompletedCID    coin.ContractID `bun:"completed_cid"`
	CreatedTx       string          `bun:"created_tx"`
	AcceptedTx      string          `bun:"accepted_tx"`
	CompletedTx     string          `bun:"completed_tx"`
	CreatedAt       time.Time       `bun:"created_at"`
	UpdatedAt       time.Time       `bun:"updated_at"`
}

// InsertTransferOffer stores a new offer; ErrAlreadyExists when the sender
// used the tracking id before.
func InsertTransferOffer(ctx context.Context, db bun.IDB, o *TransferOffer) error {
	if _, err := db.NewInsert().Model(o).Exec(ctx); err != nil {
		return fmt.Errorf("insert transfer offer %s: %w", o.ContractID, Normalize(err))
	}
	return nil
}

// TransferOfferByID loads an offer by its contract ID.
func TransferOfferByID(ctx context.Context, db bun.IDB, id coin.ContractID) (*TransferOffer, error) {
	o := new(TransferOffer)
	if err := db.NewSelect().Model(o).Where("contract_id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("transfer offer %s: %w", id, Normalize(err))
	}
	return o, nil
}

// TransferOfferByTracking loads the offer party sent with a tracking id or,
// failing that, the newest one party received with it.
func TransferOfferByTracking(ctx context.Context, db bun.IDB, party coin.PartyID, trackingID string) (*TransferOffer, error) {
	o := new(TransferOffer)
	err := db.NewSelect().Model(o).Where("sender = ?", party).Where("tracking_id = ?", trackingID).Scan(ctx)
	if err == nil {
		return o, nil
	}
	if err = Normalize(err); !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("transfer offer %q: %w", trackingID, err)
	}
	err = db.NewSelect().Model(o).Where("receiver = ?", party).Where("tracking_id = ?", trackingID).
		Order("created_at DESC").Limit(1).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("transfer offer %q: %w", trackingID, Normalize(err))
	}
	return o, nil
}

// UpdateTransferOffer rewrites an offer's state, guarded on the status it
// was read with: if someone changed it meanwhile, nothing changes and
// ErrStale is returned.
func UpdateTransferOffer(ctx context.Context, db bun.IDB, o *TransferOffer, fromStatus string) error {
	res, err := db.NewUpdate().Model(o).
		Column("status", "failure_kind", "withdrawn_reason", "accepted_cid", "completed_cid", "accepted_tx", "completed_tx", "updated_at").
		Where("contract_id = ?", o.ContractID).Where("status = ?", fromStatus).Exec(ctx)
	if err != nil {
		return fmt.Errorf("update transfer offer %s: %w", o.ContractID, Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("transfer offer %s is no longer %s: %w", o.ContractID, fromStatus, ErrStale)
	}
	return nil
}

// TransferOffersDue lists offers still in status whose expiry is at or
// before t, oldest first.
func TransferOffersDue(ctx context.Context, db bun.IDB, status string, t time.Time, limit int) ([]TransferOffer, error) {
	var os []TransferOffer
	err := db.NewSelect().Model(&os).Where("status = ?", status).Where("expires_at <= ?", t).
		Order("expires_at", "contract_id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("due transfer offers: %w", Normalize(err))
	}
	return os, nil
}

// TransferOffersWith lists offers in status from sender to receiver, oldest
// first; an empty sender or receiver matches any party.
func TransferOffersWith(ctx context.Context, db bun.IDB, sender, receiver coin.PartyID, status string) ([]TransferOffer, error) {
	var os []TransferOffer
	q := db.NewSelect().Model(&os).Where("status = ?", status)
	if sender != "" {
		q = q.Where("sender = ?", sender)
	}
	if receiver != "" {
		q = q.Where("receiver = ?", receiver)
	}
	if err := q.Order("created_at", "contract_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("transfer offers from %s to %s: %w", sender, receiver, Normalize(err))
	}
	return os, nil
}
