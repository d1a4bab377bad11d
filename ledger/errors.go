package ledger

import (
	"fmt"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

// The core's words for what it refuses over money; the errors themselves,
// their sentinels and statuses, are ledger/fault's.

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

// notEnough is fault.ErrInsufficientFunds when need is more than have.
func notEnough(need, have coin.Amount) error {
	return problem(fault.ErrInsufficientFunds, "insufficient funds: this needs %s CC including fees, and %s CC is available; use a smaller amount, or wait for incoming coin",
		HumanCC(need), HumanCC(have))
}

// problem is a *fault.Problem of sentinel kind.
func problem(kind error, format string, args ...any) error {
	return &fault.Problem{Err: kind, Msg: fmt.Sprintf(format, args...)}
}
