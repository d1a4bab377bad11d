package ledger

import (
	"context"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
)

// The validators of one network in this process: the ledger opened first
// and those ledger/validators added (serve --localnet's app provider),
// each a view of the network (the core) with its own participant
// namespace, operator party, users and wallet admins. The core keeps the
// set (a validatorset.Set of its views), which every party check reads
// (HostedElsewhere), and builds and
// names the views through Core (NewView, SetIdentity, Join,
// EnsureAdmins); adding one is ledger/validators'.

// Validators are the validators of the network in this process that
// l's validator is one of, told apart by their participant namespaces
// (HostedElsewhere).
type Validators struct{ l *Ledger }

// Validators returns l's network's validators as l sees them.
func (l *Ledger) Validators() Validators { return Validators{l} }

// NewView is a view of l's network for the validator whose operator hint
// is hint, with adminUsers as its wallet admins and its own users' key
// space: not named yet (SetIdentity) nor in the network's set (Join).
func (c Core) NewView(hint string, adminUsers []string) *Ledger {
	l := c.l
	v := &Ledger{core: l.core, cfg: l.cfg, userSpace: userSpaceOf(hint)}
	v.cfg.OperatorHint, v.cfg.AdminUsers = hint, adminUsers
	return v
}

// SetIdentity names l's view: its participant namespace and operator
// party (its hint::namespace), as the meta keeps them; the network's set
// reads them again.
func (c Core) SetIdentity(namespace string) error {
	l := c.l
	operator, err := coin.NewPartyID(l.cfg.OperatorHint, namespace)
	if err != nil {
		return err
	}
	l.namespace, l.operator = namespace, operator
	l.validators.Refresh()
	return nil
}

// Join adds v, a view NewView made, and l to the network's set.
func (c Core) Join(v *Ledger) { c.l.validators.Add(c.l, v) }

// EnsureAdmins binds l's wallet admins to its operator party, as Open
// does for the first validator's.
func (c Core) EnsureAdmins(ctx context.Context) error { return c.l.ensureAdmins(ctx) }

// HostedElsewhere reports whether party is a party of another validator
// of this network (its namespace is that validator's participant's):
// that validator's automations, not l's, run its wallet.
func (vs Validators) HostedElsewhere(party coin.PartyID) bool {
	return slices.Contains(vs.OtherNamespaces(), party.Namespace())
}

// OtherNamespaces are the participant namespaces of the network's
// validators other than l, read once when the set last changed: their
// automations, not l's, run their parties' wallets. Shared: the caller
// must not change it.
func (vs Validators) OtherNamespaces() []string {
	return vs.l.validators.Others(vs.l.namespace)
}

// operators are the operator parties of the network's
// validators, each recording its liveness once per round (Splice's
// ReceiveFaucetCouponTrigger runs on every validator).
func (vs Validators) operators() []coin.PartyID {
	l := vs.l
	views := l.validators.List()
	if len(views) == 0 {
		return []coin.PartyID{l.operator}
	}
	out := make([]coin.PartyID, len(views))
	for i, v := range views {
		out[i] = v.operator
	}
	return out
}
