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

// claimFastSQL is the claim of a fast batch (store.FastSender): the send
// batch's settings, then ccwallet_claim_fast (migration 0410), which claims
// as claimSendsSQL does, checks the round and keeps the offsets for the
// write's fastOffsetSQL.
const claimFastSQL = `WITH settings AS MATERIALIZED (` + sendBatchSettings + `)
SELECT ccwallet_claim_fast($1::text[], $2::text[], $3::bigint[], $4::bigint, $5::timestamptz) WHERE (SELECT count(*) FROM settings) = 1`

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

// SendFast is store.FastSender's: BEGIN, the claim, the write and COMMIT
// in one round trip, on a PipeTx. A statement the server refuses makes it
// skip the rest, COMMIT included, so such an error wraps ErrFastMiss;
// runPipe rolls back.
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
	b := newBatch()
	defer releaseBatch(b)
	b.ExecParams("BEGIN", nil, nil, nil, nil)
	const claimResult, commitResult = 1, 3
	// Before the batch goes, nothing has begun: any failure is a miss.
	if err := p.queuePrepared(ctx, b, "ccwallet_claim_fast", claimFastSQL, append(store.ClaimsArgs(claims), f.Round, f.Now)...); err != nil {
		return nil, fmt.Errorf("fast send: %w: %w", store.ErrFastMiss, err)
	}
	mask := filledTables(w)
	name, sql := fastWrite(mask)
	if err := p.queuePrepared(ctx, b, name, sql, fastWriteArgs(w, f, mask)...); err != nil {
		return nil, fmt.Errorf("fast send: %w: %w", store.ErrFastMiss, err)
	}
	b.ExecParams("COMMIT", nil, nil, nil, nil)
	p.db.Drawing(ctx) // before its offsets are drawn (store.DB.StableEnd)
	p.open = true
	var (
		offsets []int64
		tag     pgconn.CommandTag
	)
	err := p.runBatch(ctx, b, func(i int, rr *pgconn.ResultReader) (err error) {
		switch i {
		case claimResult:
			rows := pgx.RowsFromResultReader(p.conn.TypeMap(), rr)
			for rows.Next() {
				err = rows.Scan(&offsets)
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		case commitResult:
			tag, err = rr.Close()
		default:
			_, err = rr.Close()
		}
		return err
	})
	if err != nil {
		return nil, fastErr(err)
	}
	// The COMMIT was answered: the transaction is over either way; its
	// offsets raise the floor of the transactions that begin after.
	p.open = false
	p.db.Drew(ctx, offsets...)
	if tag.String() != "COMMIT" {
		return nil, fmt.Errorf("fast send: transaction ended with %s, not COMMIT", tag)
	}
	p.db.Committed(offsets...)
	if len(offsets) != len(claims) {
		// Committed, but not as asked: not a miss to run again.
		return nil, fmt.Errorf("fast send: %d offsets for %d claims", len(offsets), len(claims))
	}
	return offsets, nil
}

// fastErr is err of a fast batch: wrapping store.ErrFastMiss when the
// server refused a statement, which it answers before any COMMIT runs.
func fastErr(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Errorf("fast send: %w: %w", store.ErrFastMiss, store.Normalize(err))
	}
	return fmt.Errorf("fast send: %w", store.Normalize(err))
}
