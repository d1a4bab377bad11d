package views

import (
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// The view models carry amounts as the ledger's exact decimal strings
// ("19311.2000000000"); these helpers make them readable for people. They
// work on the digits of that string, never through float64.
//
// Amounts and times for people (issue 37 point 4): an amount shows 2
// decimals, more only where 2 would show 0, and the exact value stays in
// the title, in what a selection copies, in the CSV and the API; a time
// shows relative ("in 3 h", "2 min ago") with the exact time in its title.

// HumanAmount writes an exact decimal with thousands separators and its
// trailing fractional zeros trimmed: "19311.2000000000" -> "19,311.2",
// "-100.0000000000" -> "-100". Text that is not a plain decimal is
// returned as is.
func HumanAmount(exact string) string {
	neg, whole, frac, ok := splitDecimal(exact)
	if !ok {
		return exact
	}
	frac = strings.TrimRight(frac, "0")
	return joinDecimal(neg, whole, frac)
}

// PeopleAmount writes an exact decimal for reading: thousands separators
// and 2 decimals, rounded half away from zero ("19311.2" -> "19,311.20",
// "50281.3938345" -> "50,281.39"). A nonzero amount that 2 decimals would
// show as 0 keeps its digits up to the second significant one, cut, not
// rounded ("0.0012345" -> "0.0012"). lossy says the text drops nonzero
// digits of exact, so a page must offer the exact value too. Text that is
// not a plain decimal is returned as is.
func PeopleAmount(exact string) (text string, lossy bool) {
	neg, whole, frac, ok := splitDecimal(exact)
	if !ok {
		return exact, false
	}
	frac = strings.TrimRight(frac, "0")
	w, f := roundFrac(whole, frac, 2)
	if w == "0" && f == "00" && frac != "" {
		first := strings.IndexFunc(frac, func(r rune) bool { return r != '0' })
		w, f = "0", frac[:min(len(frac), first+2)]
	}
	return joinDecimal(neg, w, f), strings.TrimRight(f, "0") != frac || w != whole
}

// RelTime writes t relative to now for people: "just now", "2 min ago",
// "in 3 h", "2 d ago", "in 90 d" (a deadline counts in days up to 99);
// a past time beyond a week, or a later deadline, is a date ("5 Nov", or
// "5 Nov 2025" in another year). The zero time is "".
func RelTime(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := t.Sub(now)
	future := d > 0
	if !future {
		d = -d
	}
	var n string
	switch {
	case d < 45*time.Second:
		return "just now"
	case d < 59*time.Minute+30*time.Second:
		n = strconv.Itoa(max(1, int((d+30*time.Second)/time.Minute))) + " min"
	case d < 23*time.Hour+30*time.Minute:
		n = strconv.Itoa(int((d+30*time.Minute)/time.Hour)) + " h"
	case d < 7*24*time.Hour || future && d < 100*24*time.Hour:
		n = strconv.Itoa(int((d+12*time.Hour)/(24*time.Hour))) + " d"
	default:
		u := t.UTC()
		if u.Year() == now.UTC().Year() {
			return u.Format("2 Jan")
		}
		return u.Format("2 Jan 2006")
	}
	if future {
		return "in " + n
	}
	return n + " ago"
}

// ExactTime is the time a title shows (the browser's script, app.js,
// turns it into the reader's local time): "2026-11-28 09:10:05 UTC".
func ExactTime(t time.Time) string { return t.UTC().Format(time.DateTime + " UTC") }

// signedPeople is PeopleAmount with a plus sign on a gain, as an activity
// row shows it ("+12.50", "-100.00"); zero has no sign.
func signedPeople(exact string) string {
	s, _ := PeopleAmount(exact)
	if s != "" && s[0] != '-' && strings.Trim(s, "0.,") != "" && allDigits(s[:1]) {
		return "+" + s
	}
	return s
}

// roundFrac rounds whole.frac to places fractional digits, half away from
// zero (on the digits, never through float64).
func roundFrac(whole, frac string, places int) (string, string) {
	frac += strings.Repeat("0", places+1)
	up := frac[places] >= '5'
	digits := []byte(whole + frac[:places])
	for i := len(digits) - 1; up && i >= 0; i-- {
		if digits[i] == '9' {
			digits[i] = '0'
			continue
		}
		digits[i]++
		up = false
	}
	s := string(digits)
	if up {
		s = "1" + s
	}
	return s[:len(s)-places], s[len(s)-places:]
}

// splitDecimal splits "-123.4500" into its sign, integer digits without
// leading zeros ("0" at least) and fractional digits.
func splitDecimal(s string) (neg bool, whole, frac string, ok bool) {
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	whole, frac, _ = strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || !allDigits(frac) {
		return false, "", "", false
	}
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	return neg, whole, frac, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// joinDecimal writes sign, grouped integer digits and fraction; a zero
// amount has no sign ("-0" reads as a mistake).
func joinDecimal(neg bool, whole, frac string) string {
	var b strings.Builder
	if neg && (whole != "0" || strings.Trim(frac, "0") != "") {
		b.WriteByte('-')
	}
	for i := 0; i < len(whole); i++ {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(whole[i])
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// ShortParty writes a party ID as its hint, "::", and the first 8 and the
// last 4 hex digits of its fingerprint: "alice::1220ab12…e88d". IDs too
// short to shorten, or without "::", are returned as they are.
func ShortParty(id string) string {
	hint, fp, ok := strings.Cut(id, "::")
	if !ok || len(fp) <= 13 {
		return id
	}
	return hint + "::" + fp[:8] + "…" + fp[len(fp)-4:]
}

// counterpartyWords names a party in a one-line row: its name when it has
// one (partynames.go), else its shortened ID; none is "".
func counterpartyWords(p PartyRef) string {
	if p.Name != "" {
		return p.Name
	}
	return ShortParty(p.ID)
}

// HistoryKind is a history entry's kind in words ("balance_change" is
// "Balance change"; ledger.HistoryKind's table); an unknown kind shows as
// it is.
func HistoryKind(kind string) string { return ledger.HistoryKind(kind).Words() }

// inWords looks key up in words; a key it lacks shows as it is.
func inWords(words map[string]string, key string) string {
	if w, ok := words[key]; ok {
		return w
	}
	return key
}

// ShortID writes a long hex ID (an update ID) as its first 4 and last 8
// digits: "1220…5a7c26ef". Update IDs begin with "1220" and a timestamp,
// which most IDs of a day share, so the end is what tells them apart. IDs
// of 16 characters or fewer are returned as they are.
func ShortID(id string) string {
	if len(id) <= 16 {
		return id
	}
	return id[:4] + "…" + id[len(id)-8:]
}

// rewardKinds name the reward kinds in words.
var rewardKinds = map[string]string{
	"app":       "App reward",
	"validator": "Validator reward",
	"liveness":  "Liveness (validator faucet)",
}

// RewardKind is a reward kind in words; an unknown kind shows as it is.
func RewardKind(kind string) string { return inWords(rewardKinds, kind) }
