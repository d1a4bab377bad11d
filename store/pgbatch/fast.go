package pgbatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// claimFastSQL is the claim of a fast batch (store.FastSender):
// ccwallet_claim_fast (migrations 0410, 0442), which applies the send
// batch's settings (sendBatchSettings) for the transaction, claims as
// claimSendsSQL does, checks the round and keeps the offsets for the
// write's fastOffsetSQL.
const claimFastSQL = `SELECT ccwallet_claim_fast($1::text[], $2::text[], $3::bigint[], $4::bigint, $5::timestamptz)`

// fastGuardsSQL ends the fast write (its parameters' numbers filled in):
// every preapproval the batch sent through is live and expires when it did
// ($1, $2), and every provider ($3) is featured exactly as assumed ($4),
// by the test of readSendsQuery (featured template $5). Each preapproval
// is looked up by its id, a LATERAL subquery kept apart by OFFSET 0: as a
// join, the generic plan read every live preapproval of the wallet (the
// receivers' index, whole) on every batch.
const fastGuardsSQL = `,
	ccwallet_fresh((SELECT count(*) FROM (SELECT unnest($%[1]d::text[]) AS id, unnest($%[2]d::timestamptz[]) AS expires) AS g
		CROSS JOIN LATERAL (SELECT 1 FROM transfer_preapprovals AS t
			WHERE t.contract_id = g.id AND t.archived_at IS NULL AND t.expires_at = g.expires OFFSET 0) AS t)
		= cardinality($%[1]d::text[]), 'a receiver''s transfer preapproval'),
	ccwallet_fresh(NOT EXISTS (SELECT 1 FROM (SELECT unnest($%[3]d::text[]) AS provider, unnest($%[4]d::boolean[]) AS featured) AS g
		WHERE g.featured <> EXISTS (SELECT 1 FROM contracts AS f WHERE f.template_id = $%[5]d::text AND f.archived_offset IS NULL
			AND strpos(f.stakeholders, ',' || g.provider || ',') > 0)), 'a provider''s featured app right')`

// fastOffsetSQL is the offset %s, or, for a placeholder -k, the k-th
// offset ccwallet_claim_fast drew (outside its transaction it fails: no
// offsets). It is written out in the statement, planned with it once per
// connection: as a SQL function it was parsed and planned again on every
// call, ten times a batch.
const fastOffsetSQL = `CASE WHEN %[1]s < 0 THEN (current_setting('ccwallet.fast_offsets')::bigint[])[-%[1]s] ELSE %[1]s END`

// fastWrite is the name and text of the fast write of the tables of mask:
// the write with the offsets drawn in the same round trip and the guards
// of a store.FastSend.
func fastWrite(mask tableMask) (name, sql string) { return writeOf(true, mask) }

// fastWriteArgs are fastWrite(mask)'s arguments: writeArgs', then f's.
func fastWriteArgs(w *store.Writes, f store.FastSend, mask tableMask) []any {
	ids, providers := make([]string, len(f.Preapprovals)), make([]string, len(f.Providers))
	for i, id := range f.Preapprovals {
		ids[i] = string(id)
	}
	for i, p := range f.Providers {
		providers[i] = string(p)
	}
	expires, featured := f.Expires, f.Featured
	if expires == nil {
		expires = []time.Time{}
	}
	if featured == nil {
		featured = []bool{}
	}
	return append(pipeWriteArgs(w, mask), ids, expires, providers, featured, f.FeaturedTemplate)
}

// SendFast is store.FastSender's: the claim and the write in one round
// trip, on a PipeTx, as one transaction. A statement the server refuses
// makes it skip the rest and roll back, so such an error wraps
// ErrFastMiss.
func (x *Writer) SendFast(ctx context.Context, claims []store.Claim, f store.FastSend, w *store.Writes) ([]int64, error) {
	if len(w.Forget) > 0 {
		return nil, errors.New("fast send: a fast batch forgets no commands")
	}
	var offsets []int64
	err := x.runPipe(ctx, func(ctx context.Context, p *PipeTx) error {
		var err error
		offsets, err = p.sendFast(ctx, claims, f, w)
		return err
	})
	if err != nil {
		return nil, err
	}
	return offsets, nil
}

func (p *PipeTx) sendFast(ctx context.Context, claims []store.Claim, f store.FastSend, w *store.Writes) ([]int64, error) {
	// No BEGIN or COMMIT: the statements before the batch's one Sync
	// are one transaction (Postgres's implicit transaction block), which
	// the Sync commits, durably, before Postgres answers it; a statement
	// that fails rolls it back and the rest are skipped. Each of BEGIN
	// and COMMIT was a statement parsed anew on every batch (the
	// grammar's parser 1-2% of Postgres's CPU in the send row).
	b := newBatch()
	defer releaseBatch(b)
	const claimResult = 0
	// Before the batch goes, nothing has begun: any failure is a miss.
	if err := p.queuePrepared(ctx, b, "ccwallet_claim_fast", claimFastSQL, append(store.ClaimsArgs(claims), f.Round, f.Now)...); err != nil {
		return nil, fmt.Errorf("fast send: %w: %w", store.ErrFastMiss, err)
	}
	mask := filledTables(w)
	name, sql := fastWrite(mask)
	if err := p.queuePrepared(ctx, b, name, sql, fastWriteArgs(w, f, mask)...); err != nil {
		return nil, fmt.Errorf("fast send: %w: %w", store.ErrFastMiss, err)
	}
	p.db.Drawing(ctx) // before its offsets are drawn (store.DB.StableEnd)
	// Until the Sync is answered the server may be inside the
	// transaction: a failure short of that answer rolls back (or, the
	// connection broken, discards it).
	p.open = true
	var offsets []int64
	err := p.runBatch(ctx, b, func(i int, rr *pgconn.ResultReader) (err error) {
		if i != claimResult {
			_, err = rr.Close()
			return err
		}
		rows := pgx.RowsFromResultReader(p.conn.TypeMap(), rr)
		for rows.Next() {
			err = rows.Scan(&offsets)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		return err
	})
	var pgErr *pgconn.PgError
	if err == nil || errors.As(err, &pgErr) {
		// The Sync was answered (a refusal is answered only after
		// it): committed, or rolled back for good.
		p.open = false
	}
	if err != nil {
		return nil, fastErr(err)
	}
	// Committed: its offsets raise the floor of the transactions that
	// begin after.
	p.db.Drew(ctx, offsets...)
	p.db.Committed(offsets...)
	if len(offsets) != len(claims) {
		// Committed, but not as asked: not a miss to run again.
		return nil, fmt.Errorf("fast send: %d offsets for %d claims", len(offsets), len(claims))
	}
	return offsets, nil
}

// fastErr is err of a fast batch: wrapping store.ErrFastMiss when the
// server refused a statement, after which it rolled the batch back.
func fastErr(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Errorf("fast send: %w: %w", store.ErrFastMiss, store.Normalize(err))
	}
	return fmt.Errorf("fast send: %w", store.Normalize(err))
}
