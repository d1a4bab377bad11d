package ledger

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ccwallet/ccwallet/coin"
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

// HumanCC writes a for a person: trailing zeros trimmed, thousands
// separated ("19311.2000000000" -> "19,311.2"), as the pages show amounts.
func HumanCC(a coin.Amount) string {
	s := a.Short()
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// notEnough is ErrInsufficientFunds when need is more than have.
func notEnough(need, have coin.Amount) error {
	return problem(ErrInsufficientFunds, "insufficient funds: this needs %s CC including fees, and %s CC is available; use a smaller amount, or wait for incoming coin",
		HumanCC(need), HumanCC(have))
}

// ProblemWords is the people's words of err: its *Problem's, else its text.
func ProblemWords(err error) string {
	var p *Problem
	if errors.As(err, &p) {
		return p.Msg
	}
	return err.Error()
}

// problem is a *Problem of sentinel kind.
func problem(kind error, format string, args ...any) error {
	return &Problem{Err: kind, Msg: fmt.Sprintf(format, args...)}
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

// TextFields refuses the NUL character and invalid UTF-8 in text fields
// (name, value pairs): no field of ours has a use for them and Postgres
// text cannot hold them, so they would fail the transaction (and a batch
// of sends) late, and SQLite would keep bytes no page can show.
func TextFields(kv ...string) error {
	for i := 0; i+1 < len(kv); i += 2 {
		if strings.IndexByte(kv[i+1], 0) >= 0 {
			return Invalid(kv[i], "must not contain the NUL character (U+0000)")
		}
		if !utf8.ValidString(kv[i+1]) {
			return Invalid(kv[i], "must be valid UTF-8 text")
		}
	}
	return nil
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

// Clip shortens s for an error message.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
