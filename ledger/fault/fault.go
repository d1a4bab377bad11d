// Package fault owns the errors the ledger's rules answer with: the
// sentinels the surfaces map to their statuses in one table each
// (handlers/shared, the Ledger API's canton errors), the Problem a person
// can cause and mend, and the ValidationError of one bad input field.
// The core and every workflow on it return these, so a refusal maps alike
// wherever it starts. It imports nothing of the ledger.
package fault

import (
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/store"
)

// Sentinel errors. Handlers map them to HTTP statuses in one table.
var (
	// ErrNotFound: the party, user, contract or command does not exist (or is
	// not visible to the caller).
	ErrNotFound = store.ErrNotFound
	// ErrUnavailable: the database cannot be reached right now.
	ErrUnavailable = store.ErrUnavailable
	// ErrForbidden: the caller may not act on this object.
	ErrForbidden = errors.New("forbidden")
	// ErrConflict: the object is not in a state that allows the operation.
	ErrConflict = errors.New("conflict")
	// ErrInsufficientFunds: the sender's holdings do not cover the transfer.
	ErrInsufficientFunds = errors.New("insufficient funds")
	// ErrExpired: the object's deadline has passed.
	ErrExpired = errors.New("expired")
	// ErrDuplicate: the tracking or command id was used already.
	ErrDuplicate = errors.New("duplicate command")
	// ErrInFlight: a command with the same id is being processed right now.
	ErrInFlight = errors.New("command in flight")
	// ErrDisabled: the feature is off on this node (e.g. tap outside devnet).
	ErrDisabled = errors.New("not available on this network")
)

// ErrRequirement is a choice's failed requirement (a Daml assertion: the
// command is refused as the interpreter would), the trading app's and the
// coin's own alike.
var ErrRequirement = fmt.Errorf("%w: requirement not met", ErrConflict)

// Problem is an error a person can cause and mend, in words saying what is
// wrong and what to do; Err is its sentinel (the status). Both surfaces
// show Msg as it is, without the wrapping context, which is for the log.
type Problem struct {
	Err error
	Msg string
}

func (p *Problem) Error() string { return p.Msg }
func (p *Problem) Unwrap() error { return p.Err }

// ProblemWords is the people's words of err: its *Problem's, else its text.
func ProblemWords(err error) string {
	var p *Problem
	if errors.As(err, &p) {
		return p.Msg
	}
	return err.Error()
}

// ValidationError reports bad input in one field.
type ValidationError struct {
	Field string
	Msg   string
}

func (e *ValidationError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Invalid is the error for a bad input field (a *ValidationError).
func Invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// IsValidation reports whether err is a *ValidationError.
func IsValidation(err error) bool {
	var v *ValidationError
	return errors.As(err, &v)
}

type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

// NotFoundf is an ErrNotFound with its own words.
func NotFoundf(format string, args ...any) error {
	return &notFoundError{msg: fmt.Sprintf(format, args...)}
}
