package views

import (
	"strings"

	"github.com/ccwallet/ccwallet/ledger"
)

// The view models carry amounts as the ledger's exact decimal strings
// ("19311.2000000000"); these helpers make them readable for people. They
// work on the digits of that string, never through float64, so what a
// person reads is the exact amount rounded only where said (USD).

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

// HumanUSD writes an exact decimal rounded to cents (half away from
// zero), with thousands separators: "96.5560000000" -> "96.56".
func HumanUSD(exact string) string {
	neg, whole, frac, ok := splitDecimal(exact)
	if !ok {
		return exact
	}
	whole, frac = roundFrac(whole, frac, 2)
	return joinDecimal(neg, whole, frac)
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
