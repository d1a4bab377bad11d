// Package coin holds the value types shared by the store, the ledger and the
// views: exact amounts, party IDs, contract IDs and rounds. It imports nothing
// of ours, so every layer can use it.
package coin

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Scale is the number of fractional digits of every amount, as Daml's
// Numeric 10 that the real network uses.
const Scale = 10

// maxIntDigits bounds the integer part so amounts fit NUMERIC(38,10).
const maxIntDigits = 28

// MaxAmount is the largest amount the ledger stores: 28 nines before the
// point and 10 after, the most a NUMERIC(38,10) column holds. Postgres
// refuses more ("numeric field overflow") and SQLite would store it, so
// every amount, parsed or computed (a converted faucet amount, a merge's
// sum), is held to it before it is written (Fits).
var MaxAmount = MustParse(strings.Repeat("9", maxIntDigits) + "." + strings.Repeat("9", Scale))

// Amount is an exact decimal with at most 10 fractional digits. The zero
// value is 0. Amounts are never floats: every operation is exact, and the
// two that cannot be (multiplication and division of two amounts) round
// half-to-even at the 10th digit, as the real network does.
type Amount struct {
	d decimal.Decimal
}

// Zero is the amount 0.
var Zero = Amount{}

// ErrInvalidAmount is returned for text that is not an acceptable amount.
var ErrInvalidAmount = errors.New("invalid amount")

// amountError is an ErrInvalidAmount in words a person can act on: what is
// wrong with the text and what to enter instead.
type amountError struct{ msg string }

func (e *amountError) Error() string        { return e.msg }
func (e *amountError) Is(target error) bool { return target == ErrInvalidAmount }

func badAmount(format string, args ...any) error {
	return &amountError{msg: fmt.Sprintf(format, args...)}
}

// quoted is s quoted for an error message, shortened past 40 characters.
func quoted(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return strconv.Quote(s)
}

// notANumber is the message for text that is no plain decimal.
func notANumber(s string) error {
	return badAmount("%s is not a number: enter digits with at most one decimal point, such as 1250.5 (no thousands separators)", quoted(s))
}

// ParseAmount reads a plain decimal such as "12", "-0.5" or "1000.0000000000".
// It refuses exponents, more than 10 fractional digits, and values that do
// not fit 28 integer digits, so nothing is ever rounded silently.
func ParseAmount(s string) (Amount, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Zero, badAmount("enter an amount")
	}
	body := strings.TrimPrefix(strings.TrimPrefix(t, "-"), "+")
	if body == "" {
		return Zero, notANumber(s)
	}
	intPart, frac, hasDot := strings.Cut(body, ".")
	if hasDot && frac == "" || intPart == "" && !hasDot || intPart == "" && frac == "" {
		return Zero, notANumber(s)
	}
	for _, part := range []string{intPart, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return Zero, notANumber(s)
			}
		}
	}
	if len(frac) > Scale {
		return Zero, badAmount("%s has %d decimal places: use at most %d", quoted(s), len(frac), Scale)
	}
	if len(strings.TrimLeft(intPart, "0")) > maxIntDigits {
		return Zero, badAmount("%s is too large: at most %d digits before the decimal point", quoted(s), maxIntDigits)
	}
	d, err := decimal.NewFromString(t)
	if err != nil {
		return Zero, notANumber(s)
	}
	return Amount{d: d}, nil
}

// MustParse is ParseAmount for constants and tests; it panics on bad input.
func MustParse(s string) Amount {
	a, err := ParseAmount(s)
	if err != nil {
		panic(err)
	}
	return a
}

// FromInt returns the whole amount n.
func FromInt(n int64) Amount { return Amount{d: decimal.NewFromInt(n)} }

// String renders the amount with exactly 10 fractional digits, the form the
// real network's JSON uses ("1000.0000000000").
func (a Amount) String() string {
	var buf [40]byte
	return string(a.AppendFixed(buf[:0]))
}

// AppendFixed appends the amount with exactly Scale fractional digits
// (String's form). Amounts whose coefficient at Scale digits has at most 18 digits (any
// below 100,000,000 coins) are written with integer arithmetic; the
// decimal library's StringFixed, which does the rest, goes through big.Int
// and was about 4% of the server's CPU on the send path.
func (a Amount) AppendFixed(b []byte) []byte {
	exp := int(a.d.Exponent())
	if exp < -Scale || exp > 0 || a.d.NumDigits()+exp+Scale > 18 {
		return append(b, a.d.StringFixed(Scale)...)
	}
	c := a.d.CoefficientInt64()
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	u := uint64(c) * pow10[exp+Scale]
	b = strconv.AppendUint(b, u/pow10[Scale], 10)
	b = append(b, '.')
	frac := u % pow10[Scale]
	for p := pow10[Scale-1]; p > 1 && frac < p; p /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, frac, 10)
}

var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// Short renders the amount without trailing zeros, for people.
func (a Amount) Short() string { return a.d.String() }

// Add returns a+b.
func (a Amount) Add(b Amount) Amount { return Amount{d: a.d.Add(b.d)} }

// Sub returns a-b.
func (a Amount) Sub(b Amount) Amount { return Amount{d: a.d.Sub(b.d)} }

// Neg returns -a.
func (a Amount) Neg() Amount { return Amount{d: a.d.Neg()} }

// MulInt returns a*n, which is exact.
func (a Amount) MulInt(n int64) Amount { return Amount{d: a.d.Mul(decimal.NewFromInt(n))} }

// Mul returns a*b rounded half-to-even at the 10th digit.
func (a Amount) Mul(b Amount) Amount { return Amount{d: a.d.Mul(b.d).RoundBank(Scale)} }

// Div returns a/b rounded half-to-even at the 10th digit. b must not be zero.
func (a Amount) Div(b Amount) Amount {
	// Two guard digits beyond the scale make the half-even decision exact
	// for every quotient that is not itself a tie further out.
	return Amount{d: a.d.DivRound(b.d, Scale+8).RoundBank(Scale)}
}

// DivCeil returns a/b rounded up to a whole number; used for round counts.
func (a Amount) DivCeil(b Amount) int64 {
	q := a.d.Div(b.d)
	return q.Ceil().IntPart()
}

// Quo returns the integer part of a/b, truncated toward zero: for a ≥ 0
// and b > 0 the largest n with b*n ≤ a. It is exact and, unlike DivCeil,
// needs no rounded quotient. b must not be zero.
func (a Amount) Quo(b Amount) int64 {
	q, _ := a.d.QuoRem(b.d, 0)
	return q.IntPart()
}

// Fits reports whether a is within ±MaxAmount, so a column can hold it.
// It runs on every commit, so an amount with at most 28 integer digits is
// judged from its digit count, without the comparison's rescaling.
func (a Amount) Fits() bool {
	if a.d.NumDigits()+int(a.d.Exponent()) <= maxIntDigits && a.d.Exponent() >= -Scale {
		return true
	}
	return a.d.Abs().Cmp(MaxAmount.d) <= 0
}

// Cmp compares a and b: -1, 0 or +1.
func (a Amount) Cmp(b Amount) int { return a.d.Cmp(b.d) }

// Equal reports whether a == b.
func (a Amount) Equal(b Amount) bool { return a.d.Equal(b.d) }

// IsZero reports whether a == 0.
func (a Amount) IsZero() bool { return a.d.IsZero() }

// IsPositive reports whether a > 0.
func (a Amount) IsPositive() bool { return a.d.IsPositive() }

// IsNegative reports whether a < 0.
func (a Amount) IsNegative() bool { return a.d.IsNegative() }

// Min returns the smaller of a and b.
func Min(a, b Amount) Amount {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

// Value stores the amount as its 10-digit text, which both NUMERIC columns
// (Postgres) and TEXT columns (SQLite, where NUMERIC would become a float)
// take without loss.
func (a Amount) Value() (driver.Value, error) { return a.String(), nil }

// Scan reads an amount from text or bytes; integers are accepted too.
func (a *Amount) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*a = Zero
		return nil
	case string:
		return a.scanText(v)
	case []byte:
		if c, exp, ok := parsePlain(v); ok {
			*a = Amount{d: decimal.New(c, exp)}
			return nil
		}
		return a.scanText(string(v))
	case int64:
		*a = FromInt(v)
		return nil
	default:
		return fmt.Errorf("scan amount: unsupported type %T", src)
	}
}

func (a *Amount) scanText(s string) error {
	// Stored amounts are plain decimals of at most 18 digits nearly always;
	// those are built from one int64 (decimal.NewFromString took a fifth of
	// the home page's read of a thousand holdings, BenchmarkHomePage).
	if c, exp, ok := parsePlain(s); ok {
		*a = Amount{d: decimal.New(c, exp)}
		return nil
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return fmt.Errorf("scan amount %q: %w", s, err)
	}
	*a = Amount{d: d}
	return nil
}

// parsePlain parses s as [-]digits[.digits] with at most 18 digits into
// the coefficient and exponent decimal.NewFromString would give; ok is
// false for anything else (which NewFromString then reads or refuses).
func parsePlain[T string | []byte](s T) (c int64, exp int32, ok bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 19 {
		return 0, 0, false
	}
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch >= '0' && ch <= '9':
			c = c*10 + int64(ch-'0')
			digits++
			if dot {
				exp--
			}
		case ch == '.' && !dot && i > 0 && i < len(s)-1:
			dot = true
		default:
			return 0, 0, false
		}
	}
	if digits > 18 {
		return 0, 0, false
	}
	if neg {
		c = -c
	}
	return c, exp, true
}

// canonicalFits reports whether s is a canonical decimal (checkCanonical)
// with at most Scale decimals, which ParseCanonical accepts as it is.
func canonicalFits(s []byte) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start || s[start] == '0' && i-start > 1 {
		return false
	}
	if i == len(s) {
		return true
	}
	if s[i] != '.' {
		return false
	}
	i++
	frac := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == len(s) && i > frac && i-frac <= Scale
}

// Units returns the amount in units of 10^-Scale when that fits in 18
// digits (any amount below 100,000,000 coins), for sums over many
// holdings without the decimal library's allocations; ok is false
// otherwise, and the caller uses Amount's own arithmetic.
func (a Amount) Units() (u int64, ok bool) {
	exp := int(a.d.Exponent())
	if exp < -Scale || exp > 0 || a.d.NumDigits()+exp+Scale > 18 {
		return 0, false
	}
	return a.d.CoefficientInt64() * int64(pow10[exp+Scale]), true
}

// FromUnits is the amount of u units of 10^-Scale (Units' inverse).
func FromUnits(u int64) Amount { return Amount{d: decimal.New(u, -Scale)} }

// MarshalJSON writes the amount as a JSON string with 10 decimals, as the
// wallet APIs do.
func (a Amount) MarshalJSON() ([]byte, error) { return a.AppendJSON(make([]byte, 0, 24)), nil }

// AppendJSON appends MarshalJSON's form of the amount to b, for encoders
// that write their own JSON.
func (a Amount) AppendJSON(b []byte) []byte {
	b = append(b, '"')
	return append(a.AppendFixed(b), '"')
}

// UnmarshalJSON accepts a JSON string holding a canonical decimal.
func (a *Amount) UnmarshalJSON(b []byte) error {
	// Most amounts are short canonical decimals in a plain JSON string:
	// read straight from the bytes (the decimal library's parse and
	// json.Unmarshal into a string took most of a history page's
	// decoding). Anything else, errors included, takes the full path.
	if n := len(b); n >= 3 && b[0] == '"' && b[n-1] == '"' && canonicalFits(b[1:n-1]) {
		if c, exp, ok := parsePlain(b[1 : n-1]); ok {
			*a = Amount{d: decimal.New(c, exp)}
			return nil
		}
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%w: must be a decimal in a JSON string", ErrInvalidAmount)
	}
	v, err := ParseCanonical(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}
