package jobs

import (
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// Automation is the automation part of the operator's configuration.
// Zero values take the defaults below.
type Automation struct {
	// Disabled turns every automation off (enableWallet: false does too).
	Disabled bool
	// RoundInterval is the round clock's tick; default the network rules'
	// TickDuration (10 minutes). Negative turns the round clock off (a
	// node following a network's clock elsewhere).
	RoundInterval time.Duration
	// RewardCollectionInterval defaults to 200 s, as the real wallet.
	RewardCollectionInterval time.Duration
	// MergeInterval is how often delegated merges run; default 1 minute.
	MergeInterval time.Duration
	// Pruning is participantPruningSchedule; off by default.
	Pruning PruningSchedule
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
	return a.Pruning.Validate()
}

// Build returns the jobs the configuration turns on. Jobs of other
// automations (sweep, auto-accept, top-up, expiry, renewal) are appended
// by cmd from their own files.
func Build(l *ledger.Ledger, a Automation) ([]Job, error) {
	if a.Disabled {
		return nil, nil
	}
	a = a.WithDefaults(l.Rules())
	if err := a.Validate(); err != nil {
		return nil, err
	}
	var js []Job
	if a.RoundInterval > 0 {
		js = append(js, RoundClock(l, a.RoundInterval))
	}
	js = append(js, RewardCollection(l, a.RewardCollectionInterval), MergeHoldings(l, a.MergeInterval))
	if a.Pruning.Enabled() {
		p, err := Pruning(l, a.Pruning)
		if err != nil {
			return nil, err
		}
		js = append(js, p)
	}
	return js, nil
}
