package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/traffic"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/ledger/workflows"
)

// Automation is the automation part of the operator's configuration.
// Zero values take the defaults below.
type Automation struct {
	// Disabled turns every automation off.
	Disabled bool
	// WalletOff (enableWallet: false) leaves the wallet's automations out
	// (reward collection, merges, renewals, sweeps, auto-accept, top-up);
	// the network's own (round clock, pruning, expiry) still run, so the
	// registry keeps open rounds.
	WalletOff bool
	// RoundInterval is the round clock's tick; default the network rules'
	// TickDuration (10 minutes). Negative turns the round clock off (a
	// node following a network's clock elsewhere).
	RoundInterval time.Duration
	// RewardCollectionInterval defaults to 200 s, as the real wallet.
	RewardCollectionInterval time.Duration
	// MergeInterval is how often merges run; default 1 minute.
	MergeInterval time.Duration
	// Pruning is participantPruningSchedule; off by default.
	Pruning PruningSchedule
	// ExpiryInterval is how often expired transfer offers and instructions
	// end; default DefaultExpiryInterval.
	ExpiryInterval time.Duration
	// RenewalInterval is how often due preapprovals are renewed; default
	// DefaultRenewalInterval.
	RenewalInterval time.Duration
	// PollInterval is the sweep, auto-accept, top-up and preapproval-proposal jobs' interval and
	// the top-up plan's poll interval; default DefaultPollInterval.
	PollInterval time.Duration
	// Sweeps are walletSweep's entries, one job each.
	Sweeps []autotransfer.SweepConfig
	// AutoAccept are autoAcceptTransfers' entries, one job each.
	AutoAccept []AutoAcceptRule
	// Topup is the operator's traffic top-up; off when its throughput is 0.
	// Its PollInterval is taken from PollInterval.
	Topup traffic.TopupConfig
}

// AutoAcceptRule is one autoAcceptTransfers entry.
type AutoAcceptRule struct {
	Receiver coin.PartyID
	From     []coin.PartyID
}

// Default intervals.
const (
	DefaultRewardCollectionInterval = 200 * time.Second
	DefaultMergeInterval            = time.Minute
)

// WithDefaults fills unset intervals from the defaults and the rules.
func (a Automation) WithDefaults(r ledger.Rules) Automation {
	if a.RoundInterval == 0 {
		a.RoundInterval = r.TickDuration
	}
	if a.RewardCollectionInterval == 0 {
		a.RewardCollectionInterval = DefaultRewardCollectionInterval
	}
	if a.MergeInterval == 0 {
		a.MergeInterval = DefaultMergeInterval
	}
	if a.ExpiryInterval == 0 {
		a.ExpiryInterval = DefaultExpiryInterval
	}
	if a.RenewalInterval == 0 {
		a.RenewalInterval = DefaultRenewalInterval
	}
	if a.PollInterval == 0 {
		a.PollInterval = DefaultPollInterval
	}
	a.Topup.PollInterval = a.PollInterval
	return a
}

// Validate refuses a misconfigured automation at start, naming the key.
func (a Automation) Validate() error {
	if a.RewardCollectionInterval < 0 {
		return fmt.Errorf("automation.rewardCollectionInterval: must be positive, not %s", a.RewardCollectionInterval)
	}
	if a.MergeInterval < 0 {
		return fmt.Errorf("automation.mergeInterval: must be positive, not %s", a.MergeInterval)
	}
	if a.ExpiryInterval < 0 {
		return fmt.Errorf("automation.expiryInterval: must be positive, not %s", a.ExpiryInterval)
	}
	if a.RenewalInterval < 0 {
		return fmt.Errorf("automation.renewalInterval: must be positive, not %s", a.RenewalInterval)
	}
	if a.PollInterval < 0 {
		return fmt.Errorf("automation.pollInterval: must be positive, not %s", a.PollInterval)
	}
	if a.Topup.TargetThroughput < 0 {
		return fmt.Errorf("topup.targetThroughput: must not be negative, got %d", a.Topup.TargetThroughput)
	}
	if a.Topup.Active() && a.Topup.MinInterval <= 0 {
		return fmt.Errorf("topup.minTopupInterval: must be a positive duration such as 1m")
	}
	return a.Pruning.Validate()
}

// check refuses sweeps and auto-accept rules naming parties this ledger
// does not know, with the configuration key.
func (a Automation) check(ctx context.Context, w *workflows.Set) error {
	l := w.Ledger
	for _, s := range a.Sweeps {
		if err := w.AutoTransfer.CheckSweep(ctx, s); err != nil {
			return err
		}
	}
	for _, r := range a.AutoAccept {
		key := "autoAcceptTransfers." + string(r.Receiver)
		if len(r.From) == 0 {
			return fmt.Errorf("%s.fromParties: list at least one sender party", key)
		}
		if err := l.KnownParty(ctx, r.Receiver); err != nil {
			if errors.Is(err, fault.ErrNotFound) {
				return fmt.Errorf("%s: receiver %s is not a party of this node", key, r.Receiver)
			}
			return err
		}
	}
	return nil
}

// resolveNames turns the names configured for a sweep's receiver and
// auto-accept's receivers (the entries' keys) and senders into their owners' parties (names.Service.ResolveParty),
// once, at startup: a name that is nobody's stops it with the key.
func (a *Automation) resolveNames(ctx context.Context, names *names.Service) error {
	a.Sweeps = slices.Clone(a.Sweeps)
	for i := range a.Sweeps {
		s := &a.Sweeps[i]
		p, err := names.ResolveParty(ctx, "walletSweep."+string(s.Sender)+".receiver", string(s.Receiver))
		if err != nil {
			return err
		}
		s.Receiver = p
	}
	a.AutoAccept = slices.Clone(a.AutoAccept)
	for i := range a.AutoAccept {
		r := &a.AutoAccept[i]
		p, err := names.ResolveParty(ctx, "autoAcceptTransfers."+string(r.Receiver), string(r.Receiver))
		if err != nil {
			return err
		}
		r.Receiver = p
		r.From = slices.Clone(r.From)
		for j, f := range r.From {
			p, err := names.ResolveParty(ctx, fmt.Sprintf("autoAcceptTransfers.%s.fromParties[%d]", r.Receiver, j), string(f))
			if err != nil {
				return err
			}
			r.From[j] = p
		}
	}
	return nil
}

// Build returns the jobs the configuration turns on, refusing a
// misconfigured one with the key that holds it.
func Build(ctx context.Context, w *workflows.Set, a Automation) ([]Job, error) {
	l := w.Ledger
	if a.Disabled {
		return nil, nil
	}
	a = a.WithDefaults(l.Rules())
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if err := a.resolveNames(ctx, w.Names); err != nil {
		return nil, err
	}
	if err := a.check(ctx, w); err != nil {
		return nil, err
	}
	var js []Job
	if a.RoundInterval > 0 {
		js = append(js, RoundClock(l, a.RoundInterval))
	}
	if a.Pruning.Enabled() {
		p, err := Pruning(w.Pruning, a.Pruning)
		if err != nil {
			return nil, err
		}
		js = append(js, p)
	}
	js = append(js, Expiry(w, a.ExpiryInterval))
	if a.WalletOff {
		return js, nil
	}
	js = append(js, validatorJobs(w, a)...)
	// The entries of parties another validator of the network hosts are
	// that validator's (BuildValidator).
	js = append(js, configuredJobs(w, a.hostedBy(func(p coin.PartyID) bool { return !l.Validators().HostedElsewhere(p) }))...)
	return js, nil
}
