package jobs

import "github.com/ccwallet/ccwallet/ledger/workflows"

// validatorJobs are the automations every validator of a network runs
// for itself (Splice's validator and wallet triggers): collecting its
// parties' rewards, merging their holdings, renewing the preapprovals it
// provides and accepting the proposals naming it, and its parties'
// subscriptions. The network's (round clock, pruning, expiry) run once,
// in Build.
func validatorJobs(w *workflows.Set, a Automation) []Job {
	l := w.Ledger
	return []Job{
		RewardCollection(w.Rewards, a.RewardCollectionInterval), MergeHoldings(w.Delegations, a.MergeInterval),
		PreapprovalRenewal(l, a.RenewalInterval), PreapprovalProposals(l, a.PollInterval),
		Subscriptions(w.Subscriptions, a.PollInterval),
	}
}

// BuildValidator returns the automations of another validator of the
// network Build's jobs run (workflows.Set.ForValidator, as LocalNet's app
// provider beside its app user): its own (validatorJobs), each named
// after the validator's operator hint, so the network's jobs do not run
// twice. The configured sweeps, auto-accept rules and top-up stay with
// the first validator, which the configuration describes.
func BuildValidator(w *workflows.Set, a Automation) ([]Job, error) {
	if a.Disabled || a.WalletOff {
		return nil, nil
	}
	a = a.WithDefaults(w.Ledger.Rules())
	if err := a.Validate(); err != nil {
		return nil, err
	}
	js := validatorJobs(w, a)
	for i := range js {
		js[i].Name += "@" + w.Ledger.Operator().Hint()
	}
	return js, nil
}
