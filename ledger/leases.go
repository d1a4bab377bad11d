package ledger

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/store"
)

// AcquireLease takes (or renews) the lease that lets holder run the
// background job name until now+ttl; false means another replica holds a
// live lease. The caller passes its own clock, so a scheduler's lease
// follows the scheduler's time, not the ledger's (which tests freeze).
// Jobs stay correct without the lease; it only avoids wasted double runs.
func (l *Ledger) AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	return store.AcquireLease(ctx, l.db, name, holder, now, now.Add(ttl))
}

// ReleaseLease gives up holder's lease on name so another replica may run
// the job at once (used on shutdown).
func (l *Ledger) ReleaseLease(ctx context.Context, name, holder string) error {
	return store.ReleaseLease(ctx, l.db, name, holder)
}
