package store

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// PreparedTx is a row of prepared_transactions: an external party's
// transaction awaiting its signature.
type PreparedTx struct {
	bun.BaseModel `bun:"table:prepared_transactions"`

	TxHash     string       `bun:"tx_hash,pk"`
	Party      coin.PartyID `bun:"party"`
	Kind       string       `bun:"kind"`
	Body       string       `bun:"body"`
	Status     string       `bun:"status"`
	Result     string       `bun:"result,nullzero"`
	CreatedAt  time.Time    `bun:"created_at"`
	ExpiresAt  time.Time    `bun:"expires_at"`
	ExecutedAt bun.NullTime `bun:"executed_at"`
}

// Prepared transaction statuses.
const (
	PreparedPending  = "pending"
	PreparedExecuted = "executed"
)

// InsertPreparedTx stores a new preparation.
func InsertPreparedTx(ctx context.Context, db bun.IDB, p *PreparedTx) error {
	if _, err := db.NewInsert().Model(p).Exec(ctx); err != nil {
		return fmt.Errorf("insert prepared transaction: %w", Normalize(err))
	}
	return nil
}

// PreparedTxByHash loads a preparation by its hash.
func PreparedTxByHash(ctx context.Context, db bun.IDB, hash string) (*PreparedTx, error) {
	p := new(PreparedTx)
	if err := db.NewSelect().Model(p).Where("tx_hash = ?", hash).Scan(ctx); err != nil {
		return nil, fmt.Errorf("prepared transaction %s: %w", hash, Normalize(err))
	}
	return p, nil
}

// MarkPreparedExecuted moves a pending preparation to executed, guarded:
// ErrStale when it was not pending any more.
func MarkPreparedExecuted(ctx context.Context, db bun.IDB, hash, result string, at time.Time) error {
	res, err := db.NewUpdate().Table("prepared_transactions").Set("status = ?", PreparedExecuted).
		Set("result = ?", result).Set("executed_at = ?", at).
		Where("tx_hash = ?", hash).Where("status = ?", PreparedPending).Exec(ctx)
	if err != nil {
		return fmt.Errorf("mark prepared transaction executed: %w", Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrStale
	}
	return nil
}

// EarliestOpenRound loads the oldest open round.
func EarliestOpenRound(ctx context.Context, db bun.IDB) (*Round, error) {
	r := new(Round)
	if err := db.NewSelect().Model(r).Where("closed_at IS NULL").Order("number ASC").Limit(1).Scan(ctx); err != nil {
		return nil, fmt.Errorf("earliest open round: %w", Normalize(err))
	}
	return r, nil
}
