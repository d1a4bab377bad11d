package ledgertest

import (
	"context"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
)

// OpenRoundNumbers is the numbers of l's open rounds, oldest first.
func OpenRoundNumbers(t testing.TB, l *ledger.Ledger) []coin.Round {
	t.Helper()
	rs, err := l.Rounds().OpenRounds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []coin.Round
	for _, r := range rs {
		out = append(out, r.Number)
	}
	return out
}

// CloseRounds advances rounds until every round open now is closed.
func CloseRounds(t testing.TB, l *ledger.Ledger) {
	t.Helper()
	if _, err := devnet.New(l).AdvanceRounds(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
}
