package jobs_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// TestTwoSchedulersRunEachJobOncePerPeriod starts two schedulers (two
// replicas) on one database. Every successful run takes the job's lease for
// 90% of the period, so across both replicas runs can start at most once
// per lease: the count is bounded by about elapsed/lease, little more than
// half of what two unlocked schedulers would do.
func TestTwoSchedulersRunEachJobOncePerPeriod(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			l := ledgertest.New(t, e)
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
				s, err := jobs.New(l, []jobs.Job{job}, jobs.Config{Holder: holder, StopTimeout: time.Second}, nil)
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

func TestStatusRecordsRunsAndErrors(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[0])
	done := make(chan struct{})
	var once sync.Once
	s, err := jobs.New(l, []jobs.Job{{Name: "boom", Every: 50 * time.Millisecond, Run: func(context.Context) error {
		once.Do(func() { close(done) })
		return errors.New("boom")
	}}}, jobs.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	<-done
	time.Sleep(20 * time.Millisecond)
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := s.Statuses()
	if len(st) != 1 || st[0].Name != "boom" || st[0].Runs < 1 || st[0].Failed < 1 || st[0].LastError != "boom" ||
		st[0].LastRun.IsZero() || st[0].Schedule != "every 50ms" {
		t.Errorf("status = %+v", st)
	}
}

func TestMisconfiguredJobsAreRefused(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[1])
	run := func(context.Context) error { return nil }
	tests := []struct {
		name string
		job  jobs.Job
		want string
	}{
		{"no interval", jobs.Job{Name: "a", Run: run}, "interval must be positive"},
		{"both", jobs.Job{Name: "a", Every: time.Second, Cron: "* * * * *", Run: run}, "not both"},
		{"bad cron", jobs.Job{Name: "a", Cron: "* *", Run: run}, "5 fields"},
		{"cron parse", jobs.Job{Name: "a", Cron: "99 * * * *", Run: run}, "schedule cron"},
		{"no work", jobs.Job{Name: "a", Every: time.Second}, "no work"},
	}
	for _, tt := range tests {
		_, err := jobs.New(l, []jobs.Job{tt.job}, jobs.Config{}, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestAutomationConfig(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[1])
	tests := []struct {
		name  string
		cfg   jobs.Automation
		jobs  []string
		wantE string
	}{
		{"defaults", jobs.Automation{}, []string{"round-clock", "collect-rewards", "merge-holdings", "expire-transfers", "renew-preapprovals"}, ""},
		{"disabled", jobs.Automation{Disabled: true}, nil, ""},
		// enableWallet: false: the network's jobs only.
		{"wallet off", jobs.Automation{WalletOff: true, Pruning: jobs.PruningSchedule{Cron: "0 3 * * *", Retention: time.Hour}},
			[]string{"round-clock", "participant-pruning", "expire-transfers"}, ""},
		{"no round clock", jobs.Automation{RoundInterval: -1}, []string{"collect-rewards", "merge-holdings", "expire-transfers", "renew-preapprovals"}, ""},
		{"pruning on", jobs.Automation{Pruning: jobs.PruningSchedule{Cron: "0 3 * * *", Retention: 30 * 24 * time.Hour}},
			[]string{"round-clock", "collect-rewards", "merge-holdings", "participant-pruning", "expire-transfers", "renew-preapprovals"}, ""},
		{"pruning without retention", jobs.Automation{Pruning: jobs.PruningSchedule{Cron: "0 3 * * *"}}, nil, "retention: must be positive"},
		{"pruning bad cron", jobs.Automation{Pruning: jobs.PruningSchedule{Cron: "daily", Retention: time.Hour}}, nil, "participantPruningSchedule.cron"},
		{"negative merge interval", jobs.Automation{MergeInterval: -time.Second}, nil, "automation.mergeInterval"},
	}
	for _, tt := range tests {
		js, err := jobs.Build(context.Background(), l, tt.cfg)
		if tt.wantE != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantE) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantE)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var names []string
		for _, j := range js {
			names = append(names, j.Name)
		}
		if strings.Join(names, ",") != strings.Join(tt.jobs, ",") {
			t.Errorf("%s: jobs %v, want %v", tt.name, names, tt.jobs)
		}
	}
	if d := (jobs.Automation{}).WithDefaults(l.Rules()).RoundInterval; d != ledger.DefaultRules().TickDuration {
		t.Errorf("default round interval %s, want the tick duration", d)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "90m": 90 * time.Minute, "": 0, "1.5d": 36 * time.Hour} {
		if got, err := jobs.ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"d", "-1d", "soon"} {
		if _, err := jobs.ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", bad)
		}
	}
}

// TestRoundClockJob runs the real round-clock job's work with a fake
// ledger clock: nothing before the interval, a round at it.
func TestRoundClockJob(t *testing.T) {
	clock := ledgertest.NewClock()
	l := ledgertest.New(t, ledgertest.Engines[1], ledgertest.Options{Clock: clock})
	job := jobs.RoundClock(l, 10*time.Minute)
	if job.Every != time.Minute {
		t.Errorf("round clock checks every %s, want 1m", job.Every)
	}
	// The admin page shows this: the check interval alone read as the
	// round's length.
	for d, want := range map[time.Duration]string{10 * time.Minute: "a new mining round opens every 10 minutes",
		time.Minute: "a new mining round opens every minute", 2 * time.Hour: "a new mining round opens every 2 hours",
		90 * time.Second: "a new mining round opens every 90 seconds", 1500 * time.Millisecond: "a new mining round opens every 1.5s"} {
		if got := jobs.RoundClock(l, d).About; got != want {
			t.Errorf("round clock of %s says %q, want %q", d, got, want)
		}
	}
	ctx := context.Background()
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := l.CurrentRound(ctx); r != 0 {
		t.Errorf("round %d before the interval", r)
	}
	clock.Advance(10 * time.Minute)
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := l.CurrentRound(ctx); r != 1 {
		t.Errorf("round %d at the interval, want 1", r)
	}
}
