package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
)

// AutomationConfig is the values file's `automation:` block. Durations are
// Go durations or days ("30d"); empty means the default.
//
//	automation:
//	  enabled: true                  # default true (also off with enableWallet: false)
//	  roundInterval: 10m             # the round clock's tick (the network's default); "off" disables it
//	  rewardCollectionInterval: 200s # as the real wallet
//	  mergeInterval: 1m              # delegated merges
//	  mergeDelegationAtOnboarding: true # new users propose a merge delegation (default true)
type AutomationConfig struct {
	Enabled                     *bool  `yaml:"enabled"`
	MergeDelegationAtOnboarding *bool  `yaml:"mergeDelegationAtOnboarding"`
	RoundInterval               string `yaml:"roundInterval"`
	RewardCollectionInterval    string `yaml:"rewardCollectionInterval"`
	MergeInterval               string `yaml:"mergeInterval"`
}

// automation turns the configuration into jobs.Automation, refusing bad
// values with the key that holds them.
func (c Config) automation() (jobs.Automation, error) {
	a := jobs.Automation{Disabled: !c.WalletEnabled() || (c.Automation.Enabled != nil && !*c.Automation.Enabled)}
	parse := func(key, v string, dst *time.Duration) error {
		d, err := jobs.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		*dst = d
		return nil
	}
	if c.Automation.RoundInterval == "off" {
		a.RoundInterval = -1
	} else if err := parse("automation.roundInterval", c.Automation.RoundInterval, &a.RoundInterval); err != nil {
		return a, err
	}
	if err := parse("automation.rewardCollectionInterval", c.Automation.RewardCollectionInterval, &a.RewardCollectionInterval); err != nil {
		return a, err
	}
	if err := parse("automation.mergeInterval", c.Automation.MergeInterval, &a.MergeInterval); err != nil {
		return a, err
	}
	// participantPruningSchedule's keys are parsed and checked in config.go.
	if p := c.ParticipantPruningSchedule; p != nil {
		a.Pruning.Cron = p.Cron
		a.Pruning.MaxDuration = p.MaxDuration.Std()
		a.Pruning.Retention = p.Retention.Std()
	}
	return a, a.Validate()
}

// startAutomations builds and starts the scheduler of the configured jobs.
// More automations (sweep, auto-accept, top-up, expiry, renewal) append
// their jobs.Job here.
func startAutomations(l *ledger.Ledger, cfg Config, log *slog.Logger) (*jobs.Scheduler, error) {
	a, err := cfg.automation()
	if err != nil {
		return nil, err
	}
	js, err := jobs.Build(l, a)
	if err != nil {
		return nil, err
	}
	s, err := jobs.New(l, js, jobs.Config{StopTimeout: 30 * time.Second}, log)
	if err != nil {
		return nil, err
	}
	s.Start()
	a = a.WithDefaults(l.Rules())
	log.Info("automations started", "jobs", len(js), "round_interval", a.RoundInterval,
		"reward_collection_interval", a.RewardCollectionInterval, "merge_interval", a.MergeInterval,
		"pruning", a.Pruning.Enabled(), "holder", s.Holder())
	return s, nil
}

// stopAutomations stops the scheduler on shutdown and hands its leases on.
func stopAutomations(s *jobs.Scheduler, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		log.Warn("stop automations", "err", err)
	}
}

// jobStatuses adapts the scheduler's status for GET /v0/admin/jobs.
func jobStatuses(s *jobs.Scheduler) func() []handlers.JobStatus {
	return func() []handlers.JobStatus {
		var out []handlers.JobStatus
		for _, st := range s.Statuses() {
			js := handlers.JobStatus{
				Name: st.Name, Schedule: st.Schedule, LastDurationMS: st.LastDuration.Milliseconds(), LastError: st.LastError,
				Runs: st.Runs, Failures: st.Failed, Skipped: st.Skipped, Running: st.Running,
			}
			if !st.LastRun.IsZero() {
				t := st.LastRun.UTC()
				js.LastRun = &t
			}
			if !st.NextRun.IsZero() {
				t := st.NextRun.UTC()
				js.NextRun = &t
			}
			out = append(out, js)
		}
		return out
	}
}

// advanceRoundsCmd is `ccwallet advance-rounds --rounds N`: the development
// network's time control, run directly on the configured database (no
// running server or token needed; a running server sees the new rounds at
// once, as it reads rounds from the database).
func advanceRoundsCmd(ctx context.Context, args []string, env envVars, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("advance-rounds", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	n := fs.Int("rounds", 1, fmt.Sprintf("rounds to advance (1..%d)", ledger.MaxAdvanceRounds))
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := c.load(env, nil)
	if err != nil {
		return err
	}
	if !cfg.DevNet() {
		return errors.New("advance-rounds: only available on a development network (network: devnet)")
	}
	log := newLogger(cfg, stderr)
	db, err := openStore(ctx, cfg, env, log)
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := ledger.Open(ctx, db, ledger.Config{OperatorHint: cfg.ValidatorPartyHint, AdminUsers: cfg.ValidatorWalletUsers, DevNet: true}, log)
	if err != nil {
		return err
	}
	rep, err := l.AdvanceRounds(ctx, *n)
	if err != nil {
		return fmt.Errorf("advance-rounds: %w", err)
	}
	fmt.Fprintf(stdout, "advanced from round %d to round %d; closed %d rounds, expired %d holdings, collected %d reward coupons\n",
		rep.From, rep.To, len(rep.Closed), rep.Expired, rep.Collected)
	return nil
}

// mergeAtOnboarding reports automation.mergeDelegationAtOnboarding
// (default true, as the real wallet has users sign it at onboarding).
func (c Config) mergeAtOnboarding() bool {
	return c.Automation.MergeDelegationAtOnboarding == nil || *c.Automation.MergeDelegationAtOnboarding
}
