package jobs

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger/pruning"
)

// PruningSchedule is participantPruningSchedule: off when Cron is empty.
type PruningSchedule struct {
	// Cron is when pruning runs (five fields, or six with seconds).
	Cron string
	// MaxDuration bounds one run; 0 means no bound.
	MaxDuration time.Duration
	// Retention keeps update-log entries newer than this (30 days is a
	// reasonable value: sequencers prune after 30 days).
	Retention time.Duration
}

// Enabled reports whether pruning is on.
func (p PruningSchedule) Enabled() bool { return p.Cron != "" }

// Validate refuses a schedule that is on but incomplete.
func (p PruningSchedule) Validate() error {
	if !p.Enabled() {
		return nil
	}
	if _, err := ParseCron(p.Cron); err != nil {
		return fmt.Errorf("participantPruningSchedule.cron: %w", err)
	}
	if p.Retention <= 0 {
		return fmt.Errorf("participantPruningSchedule.retention: must be positive when pruning is on (30d is a reasonable value)")
	}
	if p.MaxDuration < 0 {
		return fmt.Errorf("participantPruningSchedule.maxDuration: must not be negative")
	}
	return nil
}

// Pruning removes update-log entries older than the retention on the
// schedule, never wallet history or live contracts.
func Pruning(pr *pruning.Service, p PruningSchedule) (Job, error) {
	if err := p.Validate(); err != nil {
		return Job{}, err
	}
	if !p.Enabled() {
		return Job{}, fmt.Errorf("participantPruningSchedule: pruning is off (no cron)")
	}
	lease := p.MaxDuration + time.Minute
	return Job{Name: "participant-pruning", Cron: p.Cron, Lease: lease, Run: func(ctx context.Context) error {
		_, err := pr.Prune(ctx, p.Retention, p.MaxDuration)
		return err
	}}, nil
}

// ParseDuration is time.ParseDuration plus a day unit ("30d"), as the
// deployment values write retentions.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	return d, nil
}
