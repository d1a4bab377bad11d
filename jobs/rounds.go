package jobs

import (
	"context"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// RoundClock opens a new mining round every interval (the network's tick)
// and runs the per-round work: closing old rounds, validator and liveness
// rewards, dust expiry and reward collection. It checks ten times per
// interval (at least every second), so rounds open on time without drift.
func RoundClock(l *ledger.Ledger, interval time.Duration) Job {
	every := max(interval/10, time.Second)
	return Job{Name: "round-clock", Every: every, About: "a new mining round opens every " + everyWords(interval),
		Run: func(ctx context.Context) error {
			_, err := l.Rounds().TickRounds(ctx, interval)
			return err
		}}
}

// everyWords writes an interval for people: "10 minutes", "minute",
// "90 seconds", "2 hours".
func everyWords(d time.Duration) string {
	unit, n := "second", int64(d/time.Second)
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		unit, n = "hour", int64(d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		unit, n = "minute", int64(d/time.Minute)
	case d%time.Second != 0:
		return d.String()
	}
	if n == 1 {
		return unit
	}
	return strconv.FormatInt(n, 10) + " " + unit + "s"
}
