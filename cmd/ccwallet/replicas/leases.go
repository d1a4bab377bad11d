package replicas

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/store"
)

// Leases is jobs.Leaser on db's job_leases table. A lease lets its holder
// run a job until now+ttl, by the scheduler's own clock (not the
// ledger's, which tests freeze). Jobs stay correct without it; it only
// spares the replicas double runs.
func Leases(db *store.DB) jobs.Leaser { return leases{db} }

type leases struct{ db *store.DB }

func (l leases) AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	return store.AcquireLease(ctx, l.db, name, holder, now, now.Add(ttl))
}

func (l leases) ReleaseLease(ctx context.Context, name, holder string) error {
	return store.ReleaseLease(ctx, l.db, name, holder)
}
