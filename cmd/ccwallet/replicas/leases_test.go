package replicas_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/cmd/ccwallet/replicas"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestLeases: a live lease is its holder's alone; the holder renews it,
// another replica takes it once it has expired or been released.
func TestLeases(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			url := ledgertest.DBURL(t, e)
			a, b := replicas.Leases(ledgertest.OpenDB(t, url)), replicas.Leases(ledgertest.OpenDB(t, url))
			now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
			take := func(l jobs.Leaser, holder string, at time.Time, want bool) {
				t.Helper()
				if ok, err := l.AcquireLease(ctx, "job", holder, at, time.Minute); err != nil || ok != want {
					t.Fatalf("%s acquires at %s: %v, %v; want %v", holder, at.Format(time.TimeOnly), ok, err, want)
				}
			}
			take(a, "a", now, true)
			take(b, "b", now.Add(30*time.Second), false)
			take(a, "a", now.Add(30*time.Second), true) // renewed until 12:01:30
			take(b, "b", now.Add(time.Minute), false)
			take(b, "b", now.Add(90*time.Second), true) // expired
			if err := b.ReleaseLease(ctx, "job", "b"); err != nil {
				t.Fatal(err)
			}
			take(a, "a", now.Add(91*time.Second), true)
			if err := b.ReleaseLease(ctx, "job", "b"); err != nil { // not b's: a keeps it
				t.Fatal(err)
			}
			take(b, "b", now.Add(92*time.Second), false)
		})
	}
}

// TestTwoSchedulersRunEachJobOncePerPeriod starts two schedulers (two
// replicas, each with its own connections) on one database. Every successful run takes the job's lease for
// 90% of the period, so across both replicas runs can start at most once
// per lease: the count is bounded by about elapsed/lease, little more than
// half of what two unlocked schedulers would do.
func TestTwoSchedulersRunEachJobOncePerPeriod(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			url := ledgertest.DBURL(t, e)
			const period = 200 * time.Millisecond
			var runs atomic.Int64
			var mu sync.Mutex
			by := map[string]int{}
			mk := func(holder string) *jobs.Scheduler {
				job := jobs.Job{Name: "count", Every: period, Run: func(context.Context) error {
					runs.Add(1)
					mu.Lock()
					by[holder]++
					mu.Unlock()
					return nil
				}}
				s, err := jobs.New(replicas.Leases(ledgertest.OpenDB(t, url)), []jobs.Job{job}, jobs.Config{Holder: holder, StopTimeout: time.Second}, nil)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			a, b := mk("replica-a"), mk("replica-b")
			start := time.Now()
			a.Start()
			b.Start()
			time.Sleep(2 * time.Second)
			if err := a.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := b.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			elapsed := time.Since(start)
			lease := period * 9 / 10
			// +2: the first run, and one early timer of the lease holder
			// itself (it may renew its own lease).
			bound := int64(elapsed/lease) + 2
			if n := runs.Load(); n < 1 || n > bound {
				t.Errorf("%d runs in %s across two replicas, want 1..%d (%v)", n, elapsed, bound, by)
			}
			sa, sb := a.Statuses()[0], b.Statuses()[0]
			if sa.Runs+sb.Runs != runs.Load() || sa.Skipped+sb.Skipped == 0 {
				t.Errorf("statuses %+v / %+v: want runs to add up and one replica to skip", sa, sb)
			}
		})
	}
}
