package jobs

import (
	"context"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/workflows"
)

// validatorJobs are the automations every validator of a network runs
// for itself (Splice's validator and wallet triggers): collecting its
// parties' rewards, merging their holdings, renewing the preapprovals it
// provides and accepting the proposals naming it, and its parties'
// subscriptions. The network's (round clock, pruning, expiry) run once,
// in Build.
func validatorJobs(w *workflows.Set, a Automation) []Job {
	return []Job{
		RewardCollection(w.Rewards, a.RewardCollectionInterval), MergeHoldings(w.Delegations, a.MergeInterval),
		PreapprovalRenewal(w.Provider, a.RenewalInterval), PreapprovalProposals(w.Provider, a.PollInterval),
		Subscriptions(w.Subscriptions, a.PollInterval),
	}
}

// configuredJobs are the configured automations of w's validator: a job
// per walletSweep and autoAcceptTransfers entry in a (already kept to the
// parties it hosts, hostedBy), and the traffic top-up of its own
// operator.
func configuredJobs(w *workflows.Set, a Automation) []Job {
	var js []Job
	for _, s := range a.Sweeps {
		js = append(js, Sweep(w.AutoTransfer, s, a.PollInterval))
	}
	for _, r := range a.AutoAccept {
		js = append(js, AutoAccept(w.AutoTransfer, r.Receiver, r.From, a.PollInterval))
	}
	if a.Topup.Active() {
		js = append(js, Topup(w.Traffic, a.Topup))
	}
	return js
}

// hostedBy keeps the walletSweep entries whose sender and the
// autoAcceptTransfers entries whose receiver hosts reports as the
// validator's: the validator that hosts a party runs its wallet's
// automation, as each of LocalNet's validator apps runs its own.
func (a Automation) hostedBy(hosts func(coin.PartyID) bool) Automation {
	a.Sweeps = slices.DeleteFunc(slices.Clone(a.Sweeps), func(s autotransfer.SweepConfig) bool { return !hosts(s.Sender) })
	a.AutoAccept = slices.DeleteFunc(slices.Clone(a.AutoAccept), func(r AutoAcceptRule) bool { return !hosts(r.Receiver) })
	return a
}

// BuildValidator returns the automations of another validator of the
// network Build's jobs run (workflows.Set.ForValidator, as LocalNet's app
// provider beside its app user), each named after the validator's
// operator hint, so the network's jobs do not run twice: its own
// (validatorJobs), the configured sweeps and auto-accept rules of the
// parties it hosts (those of its participant's namespace; Build takes
// the others), and its operator's traffic top-up by the one topup
// configuration.
func BuildValidator(ctx context.Context, w *workflows.Set, a Automation) ([]Job, error) {
	if a.Disabled || a.WalletOff {
		return nil, nil
	}
	v := w.Ledger
	a = a.WithDefaults(v.Rules())
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if err := a.resolveNames(ctx, w.Names); err != nil {
		return nil, err
	}
	a = a.hostedBy(func(p coin.PartyID) bool { return p.Namespace() == v.Namespace() })
	if err := a.check(ctx, w); err != nil {
		return nil, err
	}
	js := append(validatorJobs(w, a), configuredJobs(w, a)...)
	for i := range js {
		js[i].Name += "@" + v.Operator().Hint()
	}
	return js, nil
}
