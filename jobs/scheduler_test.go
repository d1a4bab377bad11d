package jobs_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/cmd/ccwallet/replicas"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/workflows"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

func TestStatusRecordsRunsAndErrors(t *testing.T) {
	leases := replicas.Leases(ledgertest.DB(t, ledgertest.Engines[0])) // as cmd/ccwallet wires them
	done := make(chan struct{})
	var once sync.Once
	s, err := jobs.New(leases, []jobs.Job{{Name: "boom", Every: 50 * time.Millisecond, Run: func(context.Context) error {
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
	leases := replicas.Leases(ledgertest.DB(t, ledgertest.Engines[1]))
	run := func(context.Context) error { return nil }
	tests := []struct {
		name string
		job  jobs.Job
		want string
	}{
		{"no interval", jobs.Job{Name: "a", Run: run}, "interval must be positive"},
		{"both", jobs.Job{Name: "a", Every: time.Second, Cron: "* * * * *", Run: run}, "not both"},
		{"bad cron", jobs.Job{Name: "a", Cron: "* *", Run: run}, "want 5"},
		{"cron parse", jobs.Job{Name: "a", Cron: "99 * * * *", Run: run}, "above maximum"},
		{"no work", jobs.Job{Name: "a", Every: time.Second}, "no work"},
	}
	for _, tt := range tests {
		_, err := jobs.New(leases, []jobs.Job{tt.job}, jobs.Config{}, nil)
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
		{"defaults", jobs.Automation{}, []string{"round-clock", "expire-transfers", "collect-rewards", "merge-holdings", "renew-preapprovals", "accept-preapproval-proposals", "subscriptions"}, ""},
		{"disabled", jobs.Automation{Disabled: true}, nil, ""},
		// enableWallet: false: the network's jobs only.
		{"wallet off", jobs.Automation{WalletOff: true, Pruning: jobs.PruningSchedule{Cron: "0 3 * * *", Retention: time.Hour}},
			[]string{"round-clock", "participant-pruning", "expire-transfers"}, ""},
		{"no round clock", jobs.Automation{RoundInterval: -1}, []string{"expire-transfers", "collect-rewards", "merge-holdings", "renew-preapprovals", "accept-preapproval-proposals", "subscriptions"}, ""},
		{"pruning on", jobs.Automation{Pruning: jobs.PruningSchedule{Cron: "0 3 * * *", Retention: 30 * 24 * time.Hour}},
			[]string{"round-clock", "participant-pruning", "expire-transfers", "collect-rewards", "merge-holdings", "renew-preapprovals", "accept-preapproval-proposals", "subscriptions"}, ""},
		{"pruning without retention", jobs.Automation{Pruning: jobs.PruningSchedule{Cron: "0 3 * * *"}}, nil, "retention: must be positive"},
		{"pruning bad cron", jobs.Automation{Pruning: jobs.PruningSchedule{Cron: "daily", Retention: time.Hour}}, nil, "participantPruningSchedule.cron"},
		{"negative merge interval", jobs.Automation{MergeInterval: -time.Second}, nil, "automation.mergeInterval"},
	}
	for _, tt := range tests {
		js, err := jobs.Build(context.Background(), workflows.New(l), tt.cfg)
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
