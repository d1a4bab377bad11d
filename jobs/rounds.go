package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// RoundClock opens a new mining round every interval (the network's tick)
// and runs the per-round work: closing old rounds, validator and liveness
// rewards, dust expiry and reward collection. It checks ten times per
// interval (at least every second), so rounds open on time without drift.
func RoundClock(l *ledger.Ledger, interval time.Duration) Job {
	every := max(interval/10, time.Second)
	return Job{Name: "round-clock", Every: every, Run: func(ctx context.Context) error {
		_, err := l.TickRounds(ctx, interval)
		return err
	}}
}
