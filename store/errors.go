package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
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
	msg := err.Error()
	switch {
	// modernc SQLite reports constraint and busy errors by text and code.
	case strings.Contains(msg, "UNIQUE constraint failed"), strings.Contains(msg, "constraint failed: PRIMARY KEY"):
		return fmt.Errorf("%w: %w", ErrAlreadyExists, err)
	case strings.Contains(msg, "SQLITE_BUSY"), strings.Contains(msg, "database is locked"):
		return fmt.Errorf("%w: %w", errSerialization, err)
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "broken pipe"),
		strings.Contains(msg, "unexpected EOF"), strings.Contains(msg, "conn closed"),
		strings.Contains(msg, "driver: bad connection"):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}
