package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors the store returns, whatever the driver.
var (
	// ErrNotFound means no row matched.
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists means a unique constraint refused the row.
	ErrAlreadyExists = errors.New("already exists")
	// ErrStale means a guarded update matched fewer rows than expected:
	// someone else changed them first. InTx retries it.
	ErrStale = errors.New("stale read")
	// ErrUnavailable means the database could not be reached.
	ErrUnavailable = errors.New("database unavailable")

	errSerialization = errors.New("serialization failure")
)

// Normalize maps driver errors to the store's sentinels, keeping the
// original in the chain for logs.
func Normalize(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrAlreadyExists) || errors.Is(err, ErrStale) ||
		errors.Is(err, ErrUnavailable) || errors.Is(err, errSerialization) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		// The driver's text adds nothing for the client; callers wrap with
		// what was not found.
		return ErrNotFound
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return fmt.Errorf("%w: %w", ErrAlreadyExists, err)
		case "40001", "40P01":
			return fmt.Errorf("%w: %w", errSerialization, err)
		case staleCode:
			return fmt.Errorf("%w: %w", ErrStale, err)
		case "57P01", "57P02", "57P03", "53300":
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		if strings.HasPrefix(pgErr.Code, "08") {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return err
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, net.ErrClosed) || errors.Is(err, sql.ErrConnDone) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		// Extended result codes are on (the driver turns them on): the
		// low byte is the primary code.
		switch code := liteErr.Code(); {
		case code == sqlite3.SQLITE_CONSTRAINT_UNIQUE, code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %w", ErrAlreadyExists, err)
		case code&0xff == sqlite3.SQLITE_BUSY:
			return fmt.Errorf("%w: %w", errSerialization, err)
		}
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "broken pipe"),
		strings.Contains(msg, "unexpected EOF"), strings.Contains(msg, "conn closed"),
		strings.Contains(msg, "driver: bad connection"):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}
