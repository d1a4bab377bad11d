package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
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
// (expired or not). On Postgres its statement is prepared once per
// connection (queryPreparedRow): the registry's transfer factory and a
// preapproved send read it for their receiver.
func LiveTransferPreapproval(ctx context.Context, db bun.IDB, receiver coin.PartyID) (*TransferPreapproval, error) {
	p := new(TransferPreapproval)
	ok, err := queryPreparedRow(ctx, db, p, liveTransferPreapprovalSQL, string(receiver))
	if !ok {
		err = db.NewSelect().Model(p).Where("receiver = ?", receiver).Where("archived_at IS NULL").Limit(1).Scan(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("transfer preapproval of %s: %w", receiver, Normalize(err))
	}
	return p, nil
}

// liveTransferPreapprovalSQL is LiveTransferPreapproval's statement on
// Postgres, the one bun builds for SQLite.
const liveTransferPreapprovalSQL = `SELECT contract_id, receiver, provider, valid_from, last_renewed_at, expires_at, archived_at
FROM transfer_preapprovals WHERE receiver = $1 AND archived_at IS NULL LIMIT 1`

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

// PreapprovalSendReads is what a preapproved send reads once its locks are
// held: the deduplication record of its key, the receiver's unarchived
// preapproval, whether that preapproval's provider holds an active
// contract of the featured-app template, and the sender's live holdings.
type PreapprovalSendReads struct {
	// CommandAt is when the key was used; zero when it was not.
	CommandAt   time.Time
	Preapproval *TransferPreapproval // nil when the receiver has none
	Featured    bool
	Holdings    []Holding // the sender's, locked ones included, by contract id
}

// PreapprovalSendKey names what one send reads: its deduplication key,
// its sender and its receiver.
type PreapprovalSendKey struct {
	Key      string
	Sender   coin.PartyID
	Receiver coin.PartyID
}

// ReadPreapprovalSends loads the PreapprovalSendReads of several sends in
// one round trip; out[i] belongs to sends[i]. Batches on Postgres read
// in store/pgbatch (PipeTx.Begin) instead; this is the SQLite form,
// plain SQL that either engine runs.
func (db *DB) ReadPreapprovalSends(ctx context.Context, tx bun.Tx, sends []PreapprovalSendKey, featuredTemplate string) ([]PreapprovalSendReads, error) {
	if len(sends) == 0 {
		return nil, nil
	}
	// SQLite has no LATERAL: one branch per send (SQLite runs one at a
	// time, so this is a single branch), its values as constants. The
	// one-row base keeps a row when neither the command nor the
	// preapproval exists.
	branches := make([]string, len(sends))
	args := make([]any, 0, 4*len(sends))
	for i, r := range sends {
		branches[i] = fmt.Sprintf(`SELECT %d AS i, info.*, h.contract_id AS h_contract_id, h.amount AS h_amount, h.created_round AS h_created_round,
	h.rate AS h_rate, h.lock_holder AS h_lock_holder, h.lock_expires_at AS h_lock_expires_at, h.lock_context AS h_lock_context
FROM (SELECT c.created_at AS command_at, p.contract_id, p.receiver, p.provider, p.valid_from,
		p.last_renewed_at, p.expires_at, (p.contract_id IS NOT NULL AND EXISTS (SELECT 1 FROM contracts AS f
		WHERE f.template_id = ? AND f.archived_offset IS NULL AND %s)) AS featured
	FROM (SELECT 1 AS one) AS base
	LEFT JOIN commands AS c ON c.dedup_key = ?
	LEFT JOIN transfer_preapprovals AS p ON p.receiver = ? AND p.archived_at IS NULL) AS info
LEFT JOIN holdings AS h ON h.owner = ?`, i, containsExpr(tx, "f.stakeholders", "',' || p.provider || ','"))
		args = append(args, featuredTemplate, r.Key, string(r.Receiver), string(r.Sender))
	}
	rows, err := tx.QueryContext(ctx, strings.Join(branches, "\nUNION ALL\n")+"\nORDER BY i, h_contract_id", args...)
	if err != nil {
		return nil, fmt.Errorf("read preapproval sends: %w", Normalize(err))
	}
	defer rows.Close()
	return ScanSendReads(rows, sends)
}

// ScanSendReads gathers the rows of either engine's query (same columns,
// same order) into one PreapprovalSendReads per send.
func ScanSendReads(rows RowScanner, sends []PreapprovalSendKey) ([]PreapprovalSendReads, error) {
	var row struct {
		I             int
		CommandAt     bun.NullTime
		ContractID    sql.NullString
		Receiver      sql.NullString
		Provider      sql.NullString
		ValidFrom     bun.NullTime
		LastRenewedAt bun.NullTime
		ExpiresAt     bun.NullTime
		Featured      bool
		// The sender's holding on this row; all NULL when it has none.
		HContractID    sql.NullString
		HAmount        coin.Amount
		HCreatedRound  sql.NullInt64
		HRate          coin.Amount
		HLockHolder    sql.NullString
		HLockExpiresAt bun.NullTime
		HLockContext   sql.NullString
	}
	out := make([]PreapprovalSendReads, len(sends))
	seen := make([]bool, len(sends))
	for rows.Next() {
		row.HAmount, row.HRate = coin.Zero, coin.Zero
		if err := rows.Scan(&row.I, &row.CommandAt, &row.ContractID, &row.Receiver, &row.Provider, &row.ValidFrom,
			&row.LastRenewedAt, &row.ExpiresAt, &row.Featured, &row.HContractID, &row.HAmount, &row.HCreatedRound,
			&row.HRate, &row.HLockHolder, &row.HLockExpiresAt, &row.HLockContext); err != nil {
			return nil, fmt.Errorf("read preapproval sends: %w", Normalize(err))
		}
		if row.I < 0 || row.I >= len(sends) {
			return nil, fmt.Errorf("read preapproval sends: row for send %d of %d", row.I, len(sends))
		}
		o := &out[row.I]
		if !seen[row.I] {
			seen[row.I] = true
			o.CommandAt, o.Featured = row.CommandAt.Time, row.Featured
			if row.ContractID.Valid {
				o.Preapproval = &TransferPreapproval{
					ContractID: coin.ContractID(row.ContractID.String), Receiver: coin.PartyID(row.Receiver.String),
					Provider: coin.PartyID(row.Provider.String), ValidFrom: row.ValidFrom.Time,
					LastRenewedAt: row.LastRenewedAt.Time, ExpiresAt: row.ExpiresAt.Time,
				}
			}
		}
		if row.HContractID.Valid {
			o.Holdings = append(o.Holdings, Holding{
				ContractID: coin.ContractID(row.HContractID.String), Owner: sends[row.I].Sender, Amount: row.HAmount,
				CreatedRound: coin.Round(row.HCreatedRound.Int64), Rate: row.HRate, LockHolder: row.HLockHolder.String,
				LockExpiresAt: row.HLockExpiresAt, LockContext: row.HLockContext.String,
			})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read preapproval sends: %w", Normalize(err))
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("read preapproval sends: no row for send %d: %w", i, ErrNotFound)
		}
	}
	return out, nil
}
