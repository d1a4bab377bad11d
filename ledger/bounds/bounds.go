// Package bounds owns the bounds every value a request carries is held
// to before it is stored, whichever surface it came through (JSON API,
// web forms, external parties' prepare and submit, the registry,
// automations): a row one party can write must stay readable for every
// other party it concerns, on both engines. A value out of bounds is a
// fault.ValidationError naming its field. Of the ledger it imports only
// ledger/fault.
package bounds

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

// MinTime and MaxTime bound every time a request carries (expiries,
// deadlines). SQLite keeps times as text with a four-digit year, so a time
// in year 10000 or later is stored but can never be read back ("hour out of
// range"), which broke every read of the offer's receiver and sender;
// Postgres takes such times. One range holds on both engines.
var (
	MinTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
)

// TimeLayout is how the ledger writes a time (ledger.FormatTime, the
// contracts' times), so the range reads in a refusal as the times it
// bounds do.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// MaxDescriptionLen bounds descriptions and offers' tracking ids: the Daml
// TransferOffer requires fewer than 280 characters (TransferOffer.daml).
const MaxDescriptionLen = 280

// MaxIDLength bounds, in bytes, the other ids a client chooses (command,
// submission, deduplication and tracking ids, synchronizer ids), which
// become part of stored keys: Canton's LedgerString limit (255), the same
// on the wallet APIs and the Ledger API, so an id one takes the other
// takes too.
const MaxIDLength = 255

// MaxTrafficBytes bounds one traffic purchase (1 TiB): int64 bytes near
// the type's limit answered 500 on SQLite, and a member's purchased total,
// which anyone may add to, now takes millions of purchases to overflow.
const MaxTrafficBytes = 1 << 40

// CheckText refuses a description (or an offer's tracking id) of
// MaxDescriptionLen characters or more, as the Daml TransferOffer does, or
// holding NUL or invalid UTF-8. Every description goes through it, so one
// text is taken or refused alike by every way of sending.
func CheckText(field, s string) error {
	if utf8.RuneCountInString(s) >= MaxDescriptionLen {
		return fault.Invalid(field, "must be shorter than %d characters", MaxDescriptionLen)
	}
	return TextFields(field, s)
}

// CheckID refuses a client-chosen id longer than MaxIDLength bytes or
// holding NUL or invalid UTF-8.
func CheckID(field, id string) error {
	if len(id) > MaxIDLength {
		return fault.Invalid(field, "must be at most %d bytes", MaxIDLength)
	}
	return TextFields(field, id)
}

// TextFields refuses the NUL character and invalid UTF-8 in text fields
// (name, value pairs): no field of ours has a use for them and Postgres
// text cannot hold them, so they would fail the transaction (and a batch
// of sends) late, and SQLite would keep bytes no page can show.
func TextFields(kv ...string) error {
	for i := 0; i+1 < len(kv); i += 2 {
		if strings.IndexByte(kv[i+1], 0) >= 0 {
			return fault.Invalid(kv[i], "must not contain the NUL character (U+0000)")
		}
		if !utf8.ValidString(kv[i+1]) {
			return fault.Invalid(kv[i], "must be valid UTF-8 text")
		}
	}
	return nil
}

// CheckTime refuses a time outside [MinTime, MaxTime], naming field.
func CheckTime(field string, t time.Time) error {
	if t.Before(MinTime) || t.After(MaxTime) {
		return fault.Invalid(field, "must be between %s and %s", MinTime.Format(TimeLayout), MaxTime.Format(TimeLayout))
	}
	return nil
}

// CheckExpiry refuses a deadline outside the time range or not after now.
func CheckExpiry(field string, t, now time.Time) error {
	if err := CheckTime(field, t); err != nil {
		return err
	}
	if !t.After(now) {
		return fault.Invalid(field, "must be in the future")
	}
	return nil
}

// CheckAmount refuses an amount that is not positive or that no column can
// hold (coin.MaxAmount).
func CheckAmount(field string, a coin.Amount) error {
	if !a.IsPositive() {
		return fault.Invalid(field, "enter an amount greater than 0")
	}
	return CheckFits(field, a)
}

// CheckFits refuses an amount beyond coin.MaxAmount; a computed amount
// (a conversion, a sum) can get there though every input fits.
func CheckFits(field string, a coin.Amount) error {
	if !a.Fits() {
		return fault.Invalid(field, "%s is more than the largest amount the ledger holds (%s)", a.Short(), coin.MaxAmount)
	}
	return nil
}

// ParseTime parses a Daml-JSON timestamp field, bounded.
func ParseTime(field, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fault.Invalid(field, "want an ISO 8601 timestamp, not %q", s)
	}
	t = t.UTC().Truncate(time.Microsecond)
	return t, CheckTime(field, t)
}

// Clip shortens s for an error message.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
