package pgbatch

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// PipeTx is a transaction on one Postgres connection that this package drives
// through pgx itself rather than database/sql, so that BEGIN travels with
// the transaction's first statement and COMMIT with its last: a batch of
// one-step sends, the wallet's hot path, takes two round trips instead
// of five (its claims and read share the first), or one when it needs no
// read (SendFast, which needs no BEGIN or COMMIT either). Every round trip costs
// both processes a wake-up and a system call or two, and under load each
// is a chance to wait for a CPU, so the saving shows in the tail latency
// as well as in CPU per send.
//
// database/sql knows nothing of the transaction: the connection is taken
// from its pool for the duration and given back outside any transaction
// (or, when that cannot be assured, discarded).
type PipeTx struct {
	db   *store.DB
	conn *pgx.Conn
	// open is true from the BEGIN until the COMMIT or ROLLBACK.
	open bool
	// drew are the offsets Begin drew, noted as committed once the
	// COMMIT is (store.DB.Committed).
	drew []int64
}

// pipeRollbackTimeout bounds the ROLLBACK after a failure; past it the
// connection is discarded, which ends the transaction too.
const pipeRollbackTimeout = 5 * time.Second

// InSendTx runs fn in a PipeTx: fn's first statement is Begin (it sends
// BEGIN) and its last Write (it sends COMMIT); if fn fails, or returns
// without committing, the transaction rolls back. Failures are retried as
// InTx retries them, so fn must be safe to run again.
func (x *Writer) InSendTx(ctx context.Context, fn func(ctx context.Context, s store.SendTx) error) error {
	return store.RetryTx(ctx, func() error {
		return x.runPipe(ctx, func(ctx context.Context, p *PipeTx) error { return fn(ctx, p) })
	})
}

func (x *Writer) runPipe(ctx context.Context, fn func(ctx context.Context, p *PipeTx) error) error {
	ctx, done := x.db.TrackWrite(ctx) // its offsets count for the stable ledger end
	defer done()
	conn, err := x.db.DB.DB.Conn(ctx)
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
		p := &PipeTx{db: x.db, conn: sc.Conn()}
		defer func() {
			// A panic in fn (a bug, which the caller may recover from)
			// rolls back first, so the transaction's locks are gone
			// before anyone hears of it; closing the connection alone,
			// which database/sql does for a panic, ends the transaction
			// only once the server notices. The connection is discarded
			// all the same.
			if r := recover(); r != nil {
				if p.open {
					p.rollback(ctx)
				}
				panic(r)
			}
		}()
		fnErr = fn(ctx, p)
		if fnErr == nil && p.open {
			fnErr = errors.New("pipelined transaction: returned without committing")
		}
		if !p.open {
			return nil
		}
		if err := p.rollback(ctx); err != nil {
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

// rollback ends the open transaction, within pipeRollbackTimeout even when
// ctx has ended.
func (p *PipeTx) rollback(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pipeRollbackTimeout)
	defer cancel()
	_, err := p.conn.Exec(rctx, "ROLLBACK")
	return err
}

// Begin begins the transaction of a batch of sends in one round
// trip: BEGIN, the claims (as store.DB.BeginClaims) and the read of every
// send (as store.DB.ReadPreapprovalSends) travel together, and Postgres runs them in
// order, so the read sees the rows under the locks the claims took.
// reads[i] belongs to sends[i], claimed or not (the caller ignores the
// reads of unclaimed commands); with no sends nothing is read.
func (p *PipeTx) Begin(ctx context.Context, claims []store.Claim, sends []store.PreapprovalSendKey, featuredTemplate string) (*store.Round, []int64, []store.PreapprovalSendReads, error) {
	if p.open {
		return nil, nil, nil, errors.New("begin update: the pipelined transaction has begun already")
	}
	b := newBatch()
	defer releaseBatch(b)
	b.ExecParams("BEGIN", nil, nil, nil, nil)
	// Result 0 is the BEGIN's.
	const claimResult, readResult = 1, 2
	if err := p.queuePrepared(ctx, b, "ccwallet_claim_sends", claimSendsSQL, store.ClaimsArgs(claims)...); err != nil {
		return nil, nil, nil, fmt.Errorf("begin update: %w", err)
	}
	if len(sends) > 0 {
		if err := p.queuePrepared(ctx, b, "ccwallet_read_sends", readSendsQuery, readSendsArgs(sends, featuredTemplate)...); err != nil {
			return nil, nil, nil, fmt.Errorf("read preapproval sends: %w", err)
		}
	}
	p.db.Drawing(ctx) // before its offsets are drawn (store.DB.StableEnd)
	// From here the server may be inside the transaction whatever the
	// answer, so a failure rolls back.
	p.open = true
	// Each result is read through pgx's own rows; the BEGIN and the
	// settings have none, but their errors count.
	var (
		r       *store.Round
		offsets []int64
		reads   []store.PreapprovalSendReads
	)
	err := p.runBatch(ctx, b, func(i int, rr *pgconn.ResultReader) error {
		var err error
		rows := pgx.RowsFromResultReader(p.conn.TypeMap(), rr)
		switch i {
		case claimResult:
			r, offsets, err = store.ScanClaims(rows, len(claims))
		case readResult:
			if reads, err = store.ScanSendReads(rows, sends); err != nil {
				err = fmt.Errorf("read preapproval sends: %w", err)
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		return err
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("begin update: %w", store.Normalize(err))
	}
	p.db.Drew(ctx, offsets...)
	p.drew = offsets
	return r, offsets, reads, nil
}

// Reads is the database outside the transaction: a batch's rule reads
// nothing of its own inside it, and anything else (the open rounds,
// rarely) costs no round trip of the batch's.
func (p *PipeTx) Reads() bun.IDB { return p.db }

// Write writes w (forgotten commands first) and commits, in one round
// trip. When a statement fails, Postgres skips the rest, COMMIT included,
// and InSendTx rolls back.
func (p *PipeTx) Write(ctx context.Context, w *store.Writes) error {
	if !p.open {
		return errors.New("write: the pipelined transaction is not open")
	}
	b := newBatch()
	defer releaseBatch(b)
	if len(w.Forget) > 0 {
		if err := p.queuePrepared(ctx, b, "ccwallet_forget", forgetCommandsSQL, w.Forget); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if !w.Empty() {
		mask := filledTables(w)
		name, sql := writeOf(false, mask)
		if err := p.queuePrepared(ctx, b, name, sql, pipeWriteArgs(w, mask)...); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	b.ExecParams("COMMIT", nil, nil, nil, nil)
	var tag pgconn.CommandTag // the last result's: the COMMIT's
	err := p.runBatch(ctx, b, func(_ int, rr *pgconn.ResultReader) (err error) {
		tag, err = rr.Close()
		return err
	})
	if err != nil {
		return fmt.Errorf("write: %w", store.Normalize(err))
	}
	// The COMMIT was answered: the transaction is over either way. One
	// that had failed would answer ROLLBACK; ours never goes on after a
	// failure, but say so if it did rather than report a commit.
	p.open = false
	if tag.String() != "COMMIT" {
		return fmt.Errorf("write: transaction ended with %s, not COMMIT", tag)
	}
	p.db.Committed(p.drew...)
	return nil
}

// runBatch sends b and hands its results to read in order, as they come;
// it stops at the first error. read must consume or close the result.
func (p *PipeTx) runBatch(ctx context.Context, b *pgconn.Batch, read func(i int, rr *pgconn.ResultReader) error) error {
	results := p.conn.PgConn().ExecBatch(ctx, b)
	var err error
	for i := 0; err == nil && results.NextResult(); i++ {
		err = read(i, results.ResultReader())
	}
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	return err
}

// paramBufs are the buffers queuePrepared encodes arrays into; a batch's
// write, with its contracts' payloads, takes a few kilobytes.
// One that grew past maxPooledParams is left to the collector.
var paramBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxPooledParams = 1 << 20

// queuePrepared queues sql with args on b as the statement name, prepared
// on the connection the first time it is queued there (a round trip of its
// own, once); its parameters' types are the ones Postgres gave them.
func (p *PipeTx) queuePrepared(ctx context.Context, b *pgconn.Batch, name, sql string, args ...any) error {
	sd, err := p.conn.Prepare(ctx, name, sql)
	if err != nil {
		return store.Normalize(err)
	}
	if len(sd.ParamOIDs) != len(args) {
		return fmt.Errorf("%s: %d arguments for %d parameters", name, len(args), len(sd.ParamOIDs))
	}
	m := p.conn.TypeMap()
	params := make([][]byte, len(args))
	formats := make([]int16, len(args))
	// One buffer holds every array's bytes. A param cut from it keeps its
	// bytes when a later append moves the buffer (the old array stays
	// as it was), and ExecStatement copies them into the batch, so the
	// buffer goes back to the pool after.
	bp := paramBufs.Get().(*[]byte)
	buf := (*bp)[:0]
	defer func() {
		if cap(buf) <= maxPooledParams {
			*bp = buf[:0]
			paramBufs.Put(bp)
		}
	}()
	for i, a := range args {
		start := len(buf)
		if ca, ok := a.(*columnArg); ok {
			if sd.ParamOIDs[i] == ca.c.oid {
				buf = ca.c.appendTo(buf, ca.rows)
				formats[i], params[i] = pgx.BinaryFormatCode, buf[start:len(buf):len(buf)]
				continue
			}
			a = ca.c.gather(ca.rows) // a type Postgres chose otherwise: pgx's to encode
		}
		var ok bool
		if buf, ok = appendArray(buf, sd.ParamOIDs[i], a); ok {
			formats[i], params[i] = pgx.BinaryFormatCode, buf[start:len(buf):len(buf)]
			continue
		}
		formats[i] = m.FormatCodeForOID(sd.ParamOIDs[i])
		if params[i], err = m.Encode(sd.ParamOIDs[i], formats[i], a, nil); err != nil {
			return fmt.Errorf("%s: argument %d: %w", name, i+1, err)
		}
	}
	// The columns are the ones described when the statement was
	// prepared, so no Describe travels with each run (Postgres would
	// answer every one with the columns again); results come as text,
	// as before.
	b.ExecStatement(sd, params, formats, nil)
	return nil
}
