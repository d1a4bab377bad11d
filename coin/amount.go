// Package coin holds the value types shared by the store, the ledger and the
// views: exact amounts, party IDs, contract IDs and rounds. It imports nothing
// of ours, so every layer can use it.
package coin

import (
	"bytes"
	"cmp"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
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
//
// An amount that fits an int64 in units of 10^-Scale (any below
// 922,337,203 coins, so nearly every one) is held as that integer, and
// its arithmetic is the integer's: no allocation, where the decimal
// library's every result was a new big.Int (a quarter of the objects a
// send allocated, bench/NOTES.md). A larger amount, or a result that
// overflows, is held as a decimal and computed as one; every operation
// gives the same result either way (TestIntegerPathAsDecimal), and a
// result that fits is held as the integer again, so one value has one
// form.
type Amount struct {
	u   int64            // the amount in units, when big is nil
	big *decimal.Decimal // the amount, when it does not fit u
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
	if c, exp, ok := parsePlain(t); ok {
		if u, ok := unitsOf(c, exp); ok {
			return Amount{u: u}, nil
		}
	}
	d, err := decimal.NewFromString(t)
	if err != nil {
		return Zero, notANumber(s)
	}
	return fromDecimal(d), nil
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
func FromInt(n int64) Amount { return Amount{u: unit}.MulInt(n) }

// unit is 10^Scale, the units in one coin.
const unit = 1e10

// fitsUnits reports whether u may be held as an integer amount: any int64
// but the lowest, whose negation would overflow.
func fitsUnits(u int64) bool { return u != math.MinInt64 }

// unitsOf is the amount c×10^exp in units, when it fits and has at most
// Scale fractional digits (parsePlain's results, for instance).
func unitsOf(c int64, exp int32) (int64, bool) {
	switch {
	case exp >= -Scale:
		p := exp + Scale
		if p > 18 {
			return 0, c == 0
		}
		hi, lo := bits.Mul64(absU(c), pow10[p])
		return signed(lo, c < 0, hi == 0)
	case exp >= -Scale-18:
		p := int64(pow10[-Scale-exp])
		if c%p != 0 {
			return 0, false
		}
		return c / p, true
	}
	return 0, c == 0
}

// absU is |x| as a uint64, exact for every int64.
func absU(x int64) uint64 {
	if x < 0 {
		return -uint64(x)
	}
	return uint64(x)
}

// signed is the int64 of magnitude m and sign neg, if ok and it fits
// fitsUnits.
func signed(m uint64, neg, ok bool) (int64, bool) {
	if !ok || m > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(m), true
	}
	return int64(m), true
}

// fromDecimal is d as an Amount: an integer one when it fits (one value,
// one form), else d itself. Only the decimal form's results and the
// rare text parsePlain leaves come here, so it need not be quick.
func fromDecimal(d decimal.Decimal) Amount {
	if u, ok := bigUnits(d); ok {
		return Amount{u: u}
	}
	return Amount{big: &d}
}

// bigUnits is unitsOf for any decimal.
func bigUnits(d decimal.Decimal) (int64, bool) {
	q, r := d.QuoRem(decimal.New(1, -Scale), 0)
	if !r.IsZero() {
		return 0, false
	}
	b := q.BigInt()
	if !b.IsInt64() || !fitsUnits(b.Int64()) {
		return 0, false
	}
	return b.Int64(), true
}

// dec is a as a decimal, for the arithmetic of the amounts that do not
// fit an integer.
func (a Amount) dec() decimal.Decimal {
	if a.big != nil {
		return *a.big
	}
	return decimal.New(a.u, -Scale)
}

// String renders the amount with exactly 10 fractional digits, the form the
// real network's JSON uses ("1000.0000000000").
func (a Amount) String() string {
	var buf [40]byte
	return string(a.AppendFixed(buf[:0]))
}

// AppendFixed appends the amount with exactly Scale fractional digits
// (String's form). An integer amount is written with integer arithmetic;
// the decimal library's StringFixed, which writes the rest, goes through
// big.Int and was about 4% of the server's CPU on the send path.
func (a Amount) AppendFixed(b []byte) []byte {
	if a.big != nil {
		return append(b, a.big.StringFixed(Scale)...)
	}
	if a.u < 0 {
		b = append(b, '-')
	}
	u := absU(a.u)
	b = strconv.AppendUint(b, u/unit, 10)
	b = append(b, '.')
	frac := u % unit
	for p := pow10[Scale-1]; p > 1 && frac < p; p /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, frac, 10)
}

var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// Short renders the amount without trailing zeros, for people.
func (a Amount) Short() string {
	if a.big != nil {
		return a.big.String()
	}
	var buf [40]byte
	b := a.AppendFixed(buf[:0])
	b = bytes.TrimRight(b, "0")
	return string(bytes.TrimSuffix(b, []byte(".")))
}

// Add returns a+b.
func (a Amount) Add(b Amount) Amount {
	if a.big == nil && b.big == nil {
		if s := a.u + b.u; !addOverflows(a.u, b.u, s) && fitsUnits(s) {
			return Amount{u: s}
		}
	}
	return fromDecimal(a.dec().Add(b.dec()))
}

// addOverflows reports whether x+y overflowed to s: operands of one sign
// and a sum of the other.
func addOverflows(x, y, s int64) bool { return (x >= 0) == (y >= 0) && (s >= 0) != (x >= 0) }

// Sub returns a-b.
func (a Amount) Sub(b Amount) Amount { return a.Add(b.Neg()) }

// Neg returns -a.
func (a Amount) Neg() Amount {
	if a.big == nil {
		return Amount{u: -a.u}
	}
	d := a.big.Neg()
	return Amount{big: &d}
}

// MulInt returns a*n, which is exact.
func (a Amount) MulInt(n int64) Amount {
	if a.big == nil {
		hi, lo := bits.Mul64(absU(a.u), absU(n))
		if u, ok := signed(lo, (a.u < 0) != (n < 0), hi == 0); ok {
			return Amount{u: u}
		}
	}
	return fromDecimal(a.dec().Mul(decimal.NewFromInt(n)))
}

// Mul returns a*b rounded half-to-even at the 10th digit.
func (a Amount) Mul(b Amount) Amount {
	if a.big == nil && b.big == nil {
		// The product in units is a.u×b.u/10^Scale, 128 bits wide
		// before the division.
		hi, lo := bits.Mul64(absU(a.u), absU(b.u))
		if hi < unit {
			q, r := bits.Div64(hi, lo, unit)
			if r > unit/2 || r == unit/2 && q&1 == 1 {
				q++
			}
			if u, ok := signed(q, (a.u < 0) != (b.u < 0), true); ok {
				return Amount{u: u}
			}
		}
	}
	return fromDecimal(a.dec().Mul(b.dec()).RoundBank(Scale))
}

// Div returns a/b rounded half-to-even at the 10th digit. b must not be zero.
func (a Amount) Div(b Amount) Amount {
	if a.big == nil && b.big == nil && b.u != 0 {
		// The quotient in units is a.u×10^Scale/b.u, its remainder
		// deciding the rounding exactly.
		bu := absU(b.u)
		hi, lo := bits.Mul64(absU(a.u), unit)
		if hi < bu {
			q, r := bits.Div64(hi, lo, bu)
			// 2r against b, without overflow: r < b ≤ 2^63.
			if 2*r > bu || 2*r == bu && q&1 == 1 {
				q++
			}
			if u, ok := signed(q, (a.u < 0) != (b.u < 0), true); ok {
				return Amount{u: u}
			}
		}
	}
	return fromDecimal(divDecimal(a.dec(), b.dec()))
}

// divDecimal is x/y rounded half-to-even at the 10th digit, exactly: the
// quotient truncated there and its remainder, which says whether the
// rest is below, at or above half a unit.
func divDecimal(x, y decimal.Decimal) decimal.Decimal {
	q, r := x.QuoRem(y, Scale)
	if r.IsZero() {
		return q
	}
	// 2|r| against |y|×10^-Scale: below, at or past half a unit.
	c := r.Abs().Add(r.Abs()).Cmp(y.Abs().Shift(-Scale))
	if c > 0 || c == 0 && q.Shift(Scale).BigInt().Bit(0) == 1 {
		step := decimal.New(1, -Scale)
		if x.Sign() != y.Sign() {
			step = step.Neg()
		}
		q = q.Add(step)
	}
	return q
}

// DivCeil returns a/b rounded up to a whole number; used for round counts.
func (a Amount) DivCeil(b Amount) int64 {
	if a.big == nil && b.big == nil && b.u != 0 {
		q, r := a.u/b.u, a.u%b.u
		if r != 0 && (r > 0) == (b.u > 0) {
			q++
		}
		return q
	}
	q, r := a.dec().QuoRem(b.dec(), 0)
	if !r.IsZero() && r.Sign() == b.Sign() {
		q = q.Add(decimal.New(1, 0))
	}
	return q.IntPart()
}

// Quo returns the integer part of a/b, truncated toward zero: for a ≥ 0
// and b > 0 the largest n with b*n ≤ a. It is exact and, unlike DivCeil,
// needs no rounded quotient. b must not be zero.
func (a Amount) Quo(b Amount) int64 {
	if a.big == nil && b.big == nil && b.u != 0 {
		return a.u / b.u
	}
	q, _ := a.dec().QuoRem(b.dec(), 0)
	return q.IntPart()
}

// Fits reports whether a is within ±MaxAmount, so a column can hold it.
// An integer amount always is.
func (a Amount) Fits() bool {
	if a.big == nil {
		return true
	}
	if a.big.NumDigits()+int(a.big.Exponent()) <= maxIntDigits && a.big.Exponent() >= -Scale {
		return true
	}
	return a.big.Abs().Cmp(*MaxAmount.big) <= 0
}

// Cmp compares a and b: -1, 0 or +1.
func (a Amount) Cmp(b Amount) int {
	if a.big == nil && b.big == nil {
		return cmp.Compare(a.u, b.u)
	}
	return a.dec().Cmp(b.dec())
}

// Equal reports whether a == b.
func (a Amount) Equal(b Amount) bool { return a.Cmp(b) == 0 }

// IsZero reports whether a == 0.
func (a Amount) IsZero() bool { return a.Sign() == 0 }

// IsPositive reports whether a > 0.
func (a Amount) IsPositive() bool { return a.Sign() > 0 }

// IsNegative reports whether a < 0.
func (a Amount) IsNegative() bool { return a.Sign() < 0 }

// Sign is -1, 0 or +1 as a is negative, zero or positive.
func (a Amount) Sign() int {
	if a.big != nil {
		return a.big.Sign()
	}
	return cmp.Compare(a.u, 0)
}

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
			if u, ok := unitsOf(c, exp); ok {
				*a = Amount{u: u}
				return nil
			}
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
		if u, ok := unitsOf(c, exp); ok {
			*a = Amount{u: u}
			return nil
		}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return fmt.Errorf("scan amount %q: %w", s, err)
	}
	*a = fromDecimal(d)
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

// Units returns the amount in units of 10^-Scale when it is held as an
// integer (any amount below 922,337,203 coins), for a caller's own
// integer arithmetic; ok is false otherwise. A caller that adds them
// checks for overflow.
func (a Amount) Units() (u int64, ok bool) { return a.u, a.big == nil }

// FromUnits is the amount of u units of 10^-Scale (Units' inverse).
func FromUnits(u int64) Amount {
	if fitsUnits(u) {
		return Amount{u: u}
	}
	return fromDecimal(decimal.New(u, -Scale))
}

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
			if u, ok := unitsOf(c, exp); ok {
				*a = Amount{u: u}
				return nil
			}
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
