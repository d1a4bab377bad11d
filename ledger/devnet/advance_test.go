package devnet_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestAdvanceUntil: a jump until a time opens one round per tick from the
// latest round's opening, rounded up, and refuses a time not after it,
// too far ahead or not RFC 3339, and a request with both or neither.
func TestAdvanceUntil(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		opened := clock.Now()
		tick := l.Rules().TickDuration
		for _, tt := range []struct {
			after time.Duration
			to    coin.Round
		}{{25 * time.Minute, 3}, {3 * tick, 3}, {3*tick + time.Second, 4}} {
			// The clock stands still: every round opens at the same time.
			from := ledgertest.OpenRoundNumbers(t, l)
			rep, err := devnet.New(l).Advance(ctx, devnet.AdvanceRequest{Until: opened.Add(tt.after).Format(time.RFC3339)})
			if err != nil {
				t.Fatalf("until +%s: %v", tt.after, err)
			}
			if got := rep.To - rep.From; got != tt.to || rep.From != from[len(from)-1] {
				t.Errorf("until +%s: %d to %d, want %d rounds", tt.after, rep.From, rep.To, tt.to)
			}
		}
		for _, req := range []devnet.AdvanceRequest{
			{}, {Rounds: 1, Until: opened.Add(time.Hour).Format(time.RFC3339)},
			{Until: "tomorrow"}, {Until: opened.Format(time.RFC3339)}, {Until: opened.Add(-time.Hour).Format(time.RFC3339)},
			{Until: opened.Add(time.Duration(ledger.MaxAdvanceRounds+1) * tick).Format(time.RFC3339)},
		} {
			if _, err := devnet.New(l).Advance(ctx, req); !ledger.IsValidation(err) {
				t.Errorf("Advance(%+v) = %v, want a validation error", req, err)
			}
		}
	})
}
