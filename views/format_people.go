package views

import (
	"strconv"
	"strings"
	"time"
)

// Amounts and times for people (issue 37 point 4): an amount shows 2
// decimals, more only where 2 would show 0, and the exact value stays in
// the title, in what a selection copies, in the CSV and the API; a time
// shows relative ("in 3 h", "2 min ago") with the exact time in its title.

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

// counterpartyWords names a party in a one-line row: its name when it has
// one (partynames.go), else its shortened ID; none is "".
func counterpartyWords(p PartyRef) string {
	if p.Name != "" {
		return p.Name
	}
	return ShortParty(p.ID)
}

// describedBy is a send field's aria-describedby: its error when the form
// has one for it, then what always describes it (always, "" for none).
func describedBy(f SendForm, field, always string) string {
	ids := always
	if f.Error != "" && f.ErrorField == field {
		ids = strings.TrimSpace("send-" + field + "-error " + always)
	}
	return ids
}
