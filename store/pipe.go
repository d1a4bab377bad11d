package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// PipeTx is a transaction on one Postgres connection that the store drives
// through pgx itself rather than database/sql, so that BEGIN travels with
// the transaction's first statement and COMMIT with its last: a batch of
// one-step sends, the wallet's hot path, takes three round trips instead
// of five. Every round trip costs both processes a wake-up and a system
// call or two, and under load each is a chance to wait for a CPU, so the
// saving shows in the tail latency as well as in CPU per send.
//
// database/sql knows nothing of the transaction: the connection is taken
// from its pool for the duration and given back outside any transaction
// (or, when that cannot be assured, discarded).
type PipeTx struct {
	db   *DB
	conn *pgx.Conn
	// open is true from the BEGIN until the COMMIT or ROLLBACK.
	open bool
}

// pipeRollbackTimeout bounds the ROLLBACK after a failure; past it the
// connection is discarded, which ends the transaction too.
const pipeRollbackTimeout = 5 * time.Second

// InPipeTx runs fn in a PipeTx on Postgres. fn's first statement is
// BeginClaims (it sends BEGIN) and its last Commit; if fn fails, or returns
// without committing, the transaction rolls back. Failures are retried as
// InTx retries them, so fn must be safe to run again.
func (db *DB) InPipeTx(ctx context.Context, fn func(ctx context.Context, p *PipeTx) error) error {
	if db.Engine != Postgres {
		return errors.New("pipelined transactions need Postgres")
	}
	return retryTx(ctx, func() error { return db.runPipe(ctx, fn) })
}

func (db *DB) runPipe(ctx context.Context, fn func(ctx context.Context, p *PipeTx) error) error {
	conn, err := db.DB.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("pipelined transaction: %w", err)
	}
	defer conn.Close()
	var fnErr error
	rawErr := conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			fnErr = fmt.Errorf("pipelined transaction: the driver connection is %T, not pgx", dc)
			return nil
		}
		p := &PipeTx{db: db, conn: sc.Conn()}
		fnErr = fn(ctx, p)
		if fnErr == nil && p.open {
			fnErr = errors.New("pipelined transaction: returned without committing")
		}
		if !p.open {
			return nil
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pipeRollbackTimeout)
		defer cancel()
		if _, err := p.conn.Exec(rctx, "ROLLBACK"); err != nil {
			// The connection's state is unknown: database/sql must not
			// hand it out again.
			return driver.ErrBadConn
		}
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	if rawErr != nil && !errors.Is(rawErr, driver.ErrBadConn) {
		return fmt.Errorf("pipelined transaction: %w", rawErr)
	}
	return nil
}

// BeginClaims is DB.BeginClaims as the transaction's first statement: the
// BEGIN rides its round trip.
func (p *PipeTx) BeginClaims(ctx context.Context, claims []Claim) (*Round, []int64, error) {
	if p.open {
		return nil, nil, errors.New("begin update: the pipelined transaction has begun already")
	}
	query, args := claimsQuery(claims)
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(query, args...)
	// From here the server may be inside the transaction whatever the
	// answer, so a failure rolls back.
	p.open = true
	br := p.conn.SendBatch(ctx, b)
	r, offsets, err := func() (*Round, []int64, error) {
		if _, err := br.Exec(); err != nil {
			return nil, nil, err
		}
		rows, err := br.Query()
		if err != nil {
			return nil, nil, err
		}
		defer rows.Close()
		return scanClaims(rows, len(claims))
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, nil, fmt.Errorf("begin update: %w", Normalize(err))
	}
	return r, offsets, nil
}

// ReadPreapprovalSends is DB.ReadPreapprovalSends inside the transaction,
// as one prepared statement.
func (p *PipeTx) ReadPreapprovalSends(ctx context.Context, sends []PreapprovalSendKey, featuredTemplate string) ([]PreapprovalSendReads, error) {
	if len(sends) == 0 {
		return nil, nil
	}
	rows, err := p.conn.Query(ctx, readSendsQuery, readSendsArgs(sends, featuredTemplate)...)
	if err != nil {
		return nil, fmt.Errorf("read preapproval sends: %w", Normalize(err))
	}
	defer rows.Close()
	return scanSendReads(rows, sends)
}

// Commit runs the statements of a write batch and commits, in one round
// trip. When a statement fails, Postgres skips the rest, COMMIT included,
// and InPipeTx rolls back.
func (p *PipeTx) Commit(ctx context.Context, queries ...interface{ String() string }) error {
	if !p.open {
		return errors.New("write batch: the pipelined transaction is not open")
	}
	err := renderBatch(p.db.Dialect(), queries, "COMMIT", func(text string) error {
		tag, err := p.conn.Exec(ctx, text)
		if err != nil {
			return err
		}
		// A transaction that had failed would answer COMMIT with
		// ROLLBACK; ours never goes on after a failure, but say so if
		// it did rather than report a commit.
		p.open = false
		if tag.String() != "COMMIT" {
			return fmt.Errorf("transaction ended with %s, not COMMIT", tag)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write batch: %w", Normalize(err))
	}
	return nil
}
