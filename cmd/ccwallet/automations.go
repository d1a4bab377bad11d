package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger/traffic"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/ledger/workflows"
)

// AutomationConfig is the values file's `automation:` block. Durations are
// Go durations or days ("30d"); empty means the default.
//
//	automation:
//	  enabled: true                  # default true (enableWallet: false turns the wallet's off)
//	  roundInterval: 10m             # the round clock's tick (the network's default); "off" disables it
//	  rewardCollectionInterval: 200s # as the real wallet
//	  mergeInterval: 1m              # merges (holdings)
//	  mergeDelegationAtOnboarding: true # new users propose a merge delegation (default true)
//	  expiryInterval: 30s            # ending expired transfer offers and instructions
//	  renewalInterval: 1m            # renewing preapprovals due within 30 days
//	  pollInterval: 30s              # walletSweep, autoAcceptTransfers and topup (Splice's pollingInterval)
//
// walletSweep, autoAcceptTransfers and topup are top-level keys (config.go)
// whose jobs are built here too.
type AutomationConfig struct {
	Enabled                     *bool  `yaml:"enabled"`
	MergeDelegationAtOnboarding *bool  `yaml:"mergeDelegationAtOnboarding"`
	RoundInterval               string `yaml:"roundInterval"`
	RewardCollectionInterval    string `yaml:"rewardCollectionInterval"`
	MergeInterval               string `yaml:"mergeInterval"`
	ExpiryInterval              string `yaml:"expiryInterval"`
	RenewalInterval             string `yaml:"renewalInterval"`
	PollInterval                string `yaml:"pollInterval"`
}

// automation turns the configuration into jobs.Automation, refusing bad
// values with the key that holds them.
func (c Config) automation() (jobs.Automation, error) {
	a := jobs.Automation{Disabled: c.Automation.Enabled != nil && !*c.Automation.Enabled, WalletOff: !c.WalletEnabled()}
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
	if err := parse("automation.expiryInterval", c.Automation.ExpiryInterval, &a.ExpiryInterval); err != nil {
		return a, err
	}
	if err := parse("automation.renewalInterval", c.Automation.RenewalInterval, &a.RenewalInterval); err != nil {
		return a, err
	}
	if err := parse("automation.pollInterval", c.Automation.PollInterval, &a.PollInterval); err != nil {
		return a, err
	}
	party := func(key, v string) (coin.PartyID, error) {
		p, err := coin.ParsePartyID(v)
		if err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
		return p, nil
	}
	// A sweep's receiver and auto-accept's senders may be names, which
	// jobs.Build resolves with the ledger.
	partyOrName := func(key, v string) (coin.PartyID, error) {
		p, err := partyOrName(v)
		if err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
		return p, nil
	}
	for _, sender := range sortedKeys(c.WalletSweep) {
		w := c.WalletSweep[sender]
		key := "walletSweep." + sender
		sc := autotransfer.SweepConfig{MaxBalanceUSD: w.MaxBalanceUSD, MinBalanceUSD: w.MinBalanceUSD, UsePreapproval: w.UseTransferPreapproval}
		var err error
		if sc.Sender, err = party(key, sender); err != nil {
			return a, err
		}
		if sc.Receiver, err = partyOrName(key+".receiver", w.Receiver); err != nil {
			return a, err
		}
		a.Sweeps = append(a.Sweeps, sc)
	}
	for _, receiver := range sortedKeys(c.AutoAcceptTransfers) {
		key := "autoAcceptTransfers." + receiver
		r, err := partyOrName(key, receiver) // a name: resolved by jobs.Build
		if err != nil {
			return a, err
		}
		rule := jobs.AutoAcceptRule{Receiver: r}
		for i, f := range c.AutoAcceptTransfers[receiver].FromParties {
			p, err := partyOrName(fmt.Sprintf("%s.fromParties[%d]", key, i), f)
			if err != nil {
				return a, err
			}
			rule.From = append(rule.From, p)
		}
		a.AutoAccept = append(a.AutoAccept, rule)
	}
	if c.Topup.Active() {
		a.Topup = traffic.TopupConfig{TargetThroughput: c.Topup.TargetThroughput, MinInterval: c.Topup.MinTopupInterval.Std()}
	}
	// participantPruningSchedule's keys are parsed and checked in config.go.
	if p := c.ParticipantPruningSchedule; p != nil {
		a.Pruning.Cron = p.Cron
		a.Pruning.MaxDuration = p.MaxDuration.Std()
		a.Pruning.Retention = p.Retention.Std()
	}
	return a, a.Validate()
}

// effective returns the automation block with every unset switch and
// interval replaced by the default it stands for, so `config print` shows
// the round clock's interval (the network's tick) and the others.
func (a AutomationConfig) effective() AutomationConfig {
	on := func(b *bool) *bool {
		v := b == nil || *b
		return &v
	}
	a.Enabled, a.MergeDelegationAtOnboarding = on(a.Enabled), on(a.MergeDelegationAtOnboarding)
	d := jobs.Automation{}.WithDefaults(ledger.DefaultRules())
	fill := func(v *string, def time.Duration) {
		if *v == "" {
			*v = def.String()
		}
	}
	fill(&a.RoundInterval, d.RoundInterval)
	fill(&a.RewardCollectionInterval, d.RewardCollectionInterval)
	fill(&a.MergeInterval, d.MergeInterval)
	fill(&a.ExpiryInterval, d.ExpiryInterval)
	fill(&a.RenewalInterval, d.RenewalInterval)
	fill(&a.PollInterval, d.PollInterval)
	return a
}

// startAutomations builds and starts the scheduler of the configured jobs,
// which take their leases from leases, with the automations of the
// network's other validators (--localnet's app provider): their own, the
// configured sweeps and auto-accept rules of the parties they host, and
// their operators' top-ups. With metrics on (m non-nil) every run is
// counted.
func startAutomations(ctx context.Context, w *workflows.Set, others []*workflows.Set, leases jobs.Leaser, cfg Config, m *metrics, log *slog.Logger) (*jobs.Scheduler, error) {
	a, err := cfg.automation()
	if err != nil {
		return nil, err
	}
	l := w.Ledger
	js, err := jobs.Build(ctx, w, a)
	if err != nil {
		return nil, err
	}
	for _, o := range others {
		ojs, err := jobs.BuildValidator(ctx, o, a)
		if err != nil {
			return nil, err
		}
		js = append(js, ojs...)
	}
	for i := range js {
		js[i].Run = admitted(l, js[i].Run)
	}
	jc := jobs.Config{StopTimeout: 30 * time.Second}
	if m != nil {
		jc.OnRun = m.JobRun
		names := make([]string, len(js))
		for i, j := range js {
			names[i] = j.Name
		}
		m.declare(names)
	}
	s, err := jobs.New(leases, js, jc, log)
	if err != nil {
		return nil, err
	}
	s.Start()
	a = a.WithDefaults(l.Rules())
	log.Info("automations started", "jobs", len(js), "round_interval", a.RoundInterval,
		"reward_collection_interval", a.RewardCollectionInterval, "merge_interval", a.MergeInterval,
		"pruning", a.Pruning.Enabled(), "sweeps", len(a.Sweeps), "auto_accept", len(a.AutoAccept),
		"topup", a.Topup.Active(), "holder", s.Holder())
	return s, nil
}

// admitted runs a job unless a development network's restore or reset is
// running (ledger.Admit), so a restore waits for the runs in flight and no
// run sees half of one; a run that falls in one is skipped, not failed.
func admitted(l *ledger.Ledger, run func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		done, err := l.Admit()
		if err != nil {
			return nil
		}
		defer done()
		return run(ctx)
	}
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
				Name: st.Name, Schedule: st.Schedule, About: st.About, LastDurationMS: st.LastDuration.Milliseconds(), LastError: st.LastError,
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

// advanceRoundsCmd is `ccwallet advance-rounds --rounds N` (or `--until
// TIME`): the development network's time control, run directly on the
// configured database (no running server or token needed; a running
// server sees the new rounds at once, as it reads rounds from the
// database).
func advanceRoundsCmd(ctx context.Context, args []string, env envVars, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("advance-rounds", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	n := fs.Int("rounds", 1, fmt.Sprintf("rounds to advance (1..%d)", devnet.MaxAdvanceRounds))
	until := fs.String("until", "", "instead of --rounds: advance until this RFC 3339 time, one round per tick of the rules' tickDuration (10m by default) from the latest round's opening")
	if err := fs.Parse(args); err != nil {
		return err
	}
	req := devnet.AdvanceRequest{Rounds: *n, Until: *until}
	roundsSet := false
	fs.Visit(func(f *flag.Flag) { roundsSet = roundsSet || f.Name == "rounds" })
	if *until != "" && !roundsSet {
		req.Rounds = 0 // --until alone; both are refused by the ledger
	}
	cfg, err := c.load(env, nil)
	if err != nil {
		return err
	}
	if !cfg.DevNet() {
		return errors.New("advance-rounds: only available on a development network (network: devnet)")
	}
	l, closeDB, err := openDevLedger(ctx, cfg, env, stderr)
	if err != nil {
		return err
	}
	defer closeDB()
	// The workflows' automations run after the jump (the subscriptions').
	rep, err := workflows.New(l).Devnet.Advance(ctx, req)
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

// partyOrName reads a configured party: a party ID, or a name of the name
// service (checked for its form here, resolved to its owner by jobs.Build
// at startup), carried as it is.
func partyOrName(v string) (coin.PartyID, error) {
	if strings.Contains(v, "::") {
		return coin.ParsePartyID(v)
	}
	if err := names.CheckName(ledger.DefaultAnsConfig(), v); err != nil {
		return "", fmt.Errorf("%q is neither a party ID (name::1220 followed by 64 hex digits) nor a name such as alice%s", v, names.Suffix(ledger.DefaultAnsConfig()))
	}
	return coin.PartyID(v), nil
}
