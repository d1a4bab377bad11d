// Package store persists the ledger with bun on Postgres or embedded SQLite:
// it owns the bun models and their queries, the embedded SQL migrations of
// both engines, the normalisation of driver errors (by code), InTx with its
// retry of serialization failures, and the plain Writer of a commit's rows
// (store/pgbatch has the Postgres fast path). It knows SQL, not the rules:
// every query takes a bun.IDB so the ledger can run it inside or outside
// its own transaction.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // Postgres driver "pgx"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite"
)

// Dialect names the database engine behind a DB.
type Dialect string

// The supported engines.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// Config says where the database is.
type Config struct {
	// URL is a postgres:// URL, or a SQLite file path (optionally prefixed
	// with sqlite:). Empty means the embedded default ./data/ccwallet.db.
	URL string
	// MaxOpenConns and MaxIdleConns size the pool (Postgres); 0 keeps
	// defaults: DefaultMaxOpenConns open, as many idle.
	MaxOpenConns int
	MaxIdleConns int
	// ConnMaxLifetime recycles connections; 0 means forever.
	ConnMaxLifetime time.Duration
}

// DefaultSQLitePath is where the embedded default keeps its data.
const DefaultSQLitePath = "data/ccwallet.db"

// DB is an open database of either dialect.
type DB struct {
	*bun.DB
	Engine Dialect
	// Path is the SQLite file (empty on Postgres); development snapshots
	// live beside it (snapshot.go).
	Path string
	log  *slog.Logger
	// watch tracks the write transactions running, for StableEnd.
	watch writeWatch
	// writer is SQLite's one writer's place in this process (RunInTx);
	// nil on Postgres.
	writer chan struct{}
}

// Open connects to the database described by cfg. It does not migrate.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*DB, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	url := cfg.URL
	if strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://") {
		sqldb, err := sql.Open("pgx", withSessionDefaults(url))
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		maxOpen := cfg.MaxOpenConns
		if maxOpen == 0 {
			maxOpen = DefaultMaxOpenConns()
		}
		sqldb.SetMaxOpenConns(maxOpen)
		maxIdle := cfg.MaxIdleConns
		if maxIdle == 0 {
			maxIdle = maxOpen
		}
		sqldb.SetMaxIdleConns(maxIdle)
		sqldb.SetConnMaxLifetime(cfg.ConnMaxLifetime)
		db := &DB{DB: bun.NewDB(sqldb, pgdialect.New()), Engine: Postgres, log: log}
		pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := db.PingContext(pingCtx); err != nil {
			db.Close()
			return nil, fmt.Errorf("connect to postgres: %w", err)
		}
		return db, nil
	}
	path := strings.TrimPrefix(url, "sqlite:")
	if path == "" {
		path = DefaultSQLitePath
	}
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create data directory: %w", err)
		}
	}
	// _txlock=immediate takes the write lock at BEGIN, so concurrent
	// read-modify-write transactions queue instead of failing with
	// "database is locked" at their first write.
	dsn := "file:" + sqliteURIPath.Replace(path) + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	// One writer at a time is SQLite's model; a small pool still lets reads
	// proceed beside the writer under WAL.
	sqldb.SetMaxOpenConns(4)
	db := &DB{DB: bun.NewDB(sqldb, sqlitedialect.New()), Engine: SQLite, Path: path, log: log, writer: make(chan struct{}, 1)}
	if err := pingSQLite(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return db, nil
}

// sqliteOpenTimeout bounds pingSQLite's retries.
const sqliteOpenTimeout = 10 * time.Second

// pingSQLite opens the first connection. Replicas starting together on a
// new file race to switch it to WAL, and SQLite refuses that at once to
// all but one (SQLITE_BUSY, without waiting for busy_timeout): the others
// try again, for a while.
func pingSQLite(ctx context.Context, db *DB) error {
	deadline := time.Now().Add(sqliteOpenTimeout)
	for {
		err := db.PingContext(ctx)
		if err == nil || !errors.Is(Normalize(err), errSerialization) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-time.After(time.Duration(5+rand.IntN(20)) * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// withSessionDefaults sets three defaults of every Postgres connection,
// unless url sets them:
//   - pgx sends each statement in one round trip (the simple protocol).
//     bun interpolates arguments into the SQL text itself, so every
//     statement is a new string: pgx's default (prepare, then execute,
//     and cache the plan) would cost an extra round trip per statement
//     and churn its cache.
//   - The few statements the store does prepare (its array statements:
//     claims, a send batch's read, the write) run on a generic plan, made
//     once per connection: their plans do not depend on their arguments,
//     but Postgres would plan them again for each call for as long as
//     the generic plan seemed dearer, and planning the write costs more
//     than running it.
//   - No JIT compilation. Every statement here finds a few rows by an
//     index, but a generic plan's estimates grow with the tables: once
//     holdings held 190,000 rows, the send batch's read was costed at
//     6 million and compiled on every call, 175 ms of CPU for a read of
//     0.1 ms, and the SDK's transfers fell tenfold (bench/NOTES.md).
func withSessionDefaults(url string) string {
	for _, kv := range [][2]string{{"default_query_exec_mode", "simple_protocol"}, {"plan_cache_mode", "force_generic_plan"}, {"jit", "off"}} {
		if strings.Contains(url, kv[0]+"=") {
			continue
		}
		sep := "?"
		if strings.Contains(url, "?") {
			sep = "&"
		}
		url += sep + kv[0] + "=" + kv[1]
	}
	return url
}

// DefaultMaxOpenConns is the Postgres pool size when the configuration
// sets none: 4 per CPU this process may use, at least 4. A transaction
// holds its connection while this process works between statements, so
// connections beyond what the CPUs can serve only sit idle in transaction
// holding locks: measured on 2 cores at 32 clients, 40 connections served
// fewer transfers per second than 8 or 4.
func DefaultMaxOpenConns() int { return max(4, 4*runtime.GOMAXPROCS(0)) }

// Ping checks that the database answers; used by /readyz.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// maxTxAttempts bounds InTx's retries.
const maxTxAttempts = 8

// InTx runs fn in one transaction and commits it, or rolls back if fn fails.
// Serialization failures, deadlocks, SQLite busy errors and ErrStale (a
// guarded update that lost a race) are retried with jittered backoff, so fn
// must be safe to run again: it re-reads what it needs.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	ctx, done := db.TrackWrite(ctx)
	defer done()
	return RetryTx(ctx, func() error { return db.RunInTx(ctx, nil, fn) })
}

// InSnapshot runs fn in a read-only transaction that sees one snapshot of
// the database for all its statements (an audit that sums several
// tables): on Postgres repeatable read, as read committed gives each
// statement its own; SQLite's transactions see one already.
func (db *DB) InSnapshot(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	var opts *sql.TxOptions
	if db.Engine == Postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	return db.RunInTx(ctx, opts, fn)
}

// sqliteURIPath escapes a file path for a SQLite URI, where '?' and '#'
// would end the path and '%' begin an escape: a test's directory named
// "sqlite#01" put its database in /tmp/TestWSDeadPeerssqlite, shared by
// every run.
var sqliteURIPath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// RunInTx is bun's RunInTx, but on SQLite the transaction first takes
// the one writer's place in this process. _txlock=immediate makes every
// BEGIN take the database's write lock, and a BEGIN waiting for it (up to
// busy_timeout, 10 s) holds one of the pool's 4 connections: three
// transactions waiting so left none for the fourth, which held the lock
// and read through the pool while it ran (a user's rights, a cache
// filled outside the transaction), and all four stalled for the busy
// timeout. A transaction waiting here holds no connection.
func (db *DB) RunInTx(ctx context.Context, opts *sql.TxOptions, fn func(ctx context.Context, tx bun.Tx) error) error {
	release, err := db.writerSlot(ctx)
	if err != nil {
		return err
	}
	defer release()
	return db.DB.RunInTx(ctx, opts, fn)
}

// writerSlot waits for SQLite's writer's place (see RunInTx); on Postgres
// it returns at once.
func (db *DB) writerSlot(ctx context.Context) (release func(), err error) {
	if db.writer == nil {
		return func() {}, nil
	}
	select {
	case db.writer <- struct{}{}:
		return func() { <-db.writer }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// RetryTx runs a transaction until it succeeds, fails for good, or has
// had maxTxAttempts attempts (InTx's retries, for transactions driven
// otherwise, as store/pgbatch's are).
func RetryTx(ctx context.Context, run func() error) error {
	for attempt := 1; ; attempt++ {
		err := Normalize(run())
		if err == nil || !retryable(err) || attempt >= maxTxAttempts || ctx.Err() != nil {
			return err
		}
		backoff := time.Duration(1<<min(attempt, 6)) * time.Millisecond
		backoff += time.Duration(rand.Int64N(int64(backoff)))
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func retryable(err error) bool {
	return errors.Is(err, ErrStale) || errors.Is(err, errSerialization)
}

// LockKey takes a transaction-scoped lock on key. On Postgres it is an
// advisory lock, so operations on one party queue instead of conflicting;
// on SQLite every write transaction is already exclusive.
func (db *DB) LockKey(ctx context.Context, tx bun.IDB, key string) error {
	if db.Engine != Postgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", key); err != nil {
		return fmt.Errorf("lock %s: %w", key, Normalize(err))
	}
	return nil
}

// TryLockKey is LockKey without waiting: false when another transaction
// holds the key (used to answer 429 for a command still in flight).
func (db *DB) TryLockKey(ctx context.Context, tx bun.IDB, key string) (bool, error) {
	if db.Engine != Postgres {
		return true, nil
	}
	var ok bool
	if err := tx.NewRaw("SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0))", key).Scan(ctx, &ok); err != nil {
		return false, fmt.Errorf("try lock %s: %w", key, Normalize(err))
	}
	return ok, nil
}
