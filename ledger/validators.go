package ledger

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ccwallet/ccwallet/coin"
)

// The validators of one network in this process: the ledger opened first
// and those ledger/validators added (serve --localnet's app provider),
// each a view of the network (the core) with its own participant
// namespace, operator party, users and wallet admins. The core keeps the
// set, which every party check reads (HostedElsewhere), and builds and
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
	l.validators.refresh()
	return nil
}

// Join adds v, a view NewView made, and l to the network's set.
func (c Core) Join(v *Ledger) { c.l.validators.add(c.l, v) }

// EnsureAdmins binds l's wallet admins to its operator party, as Open
// does for the first validator's.
func (c Core) EnsureAdmins(ctx context.Context) error { return c.l.ensureAdmins(ctx) }

// validatorSet is the validators of one network in this process: the
// ledger opened first and those ledger/validators added. With one validator it
// stays empty and every local party is that validator's.
type validatorSet struct {
	mu    sync.Mutex
	views []*Ledger
	// spaces is the views' namespaces, rebuilt (under mu) whenever a
	// view is added or its identity is read again (Core.SetIdentity, a
	// restore), so the readers on every party check (HostedElsewhere,
	// OtherNamespaces) build nothing and take no lock.
	spaces atomic.Pointer[namespaces]
}

// namespaces is one immutable reading of a validator set's namespaces.
type namespaces struct {
	// others are, per validator namespace, those of the others.
	others map[string][]string
}

// add adds the validators not there yet.
func (s *validatorSet) add(vs ...*Ledger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vs {
		if !slices.Contains(s.views, v) {
			s.views = append(s.views, v)
		}
	}
	s.rebuild()
}

// refresh reads the views' namespaces again (one changed).
func (s *validatorSet) refresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rebuild()
}

// rebuild stores a new reading of the views' namespaces; s.mu is held.
func (s *validatorSet) rebuild() {
	ns := &namespaces{others: map[string][]string{}}
	for _, v := range s.views {
		var out []string
		for _, w := range s.views {
			if w.namespace != v.namespace {
				out = append(out, w.namespace)
			}
		}
		ns.others[v.namespace] = out
	}
	s.spaces.Store(ns)
}

// list returns the validators, the first opened first.
func (s *validatorSet) list() []*Ledger {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.views)
}

// HostedElsewhere reports whether party is a party of another validator
// of this network (its namespace is that validator's participant's):
// that validator's automations, not l's, run its wallet.
func (vs Validators) HostedElsewhere(party coin.PartyID) bool {
	return slices.Contains(vs.otherNamespaces(), party.Namespace())
}

// otherNamespaces are the participant namespaces of the network's
// validators other than l, read once when the set last changed: shared,
// the caller must not change it.
func (vs Validators) otherNamespaces() []string {
	l := vs.l
	ns := l.validators.spaces.Load()
	if ns == nil {
		return nil
	}
	return ns.others[l.namespace]
}

// operators are the operator parties of the network's
// validators, each recording its liveness once per round (Splice's
// ReceiveFaucetCouponTrigger runs on every validator).
func (vs Validators) operators() []coin.PartyID {
	l := vs.l
	views := l.validators.list()
	if len(views) == 0 {
		return []coin.PartyID{l.operator}
	}
	out := make([]coin.PartyID, len(views))
	for i, v := range views {
		out[i] = v.operator
	}
	return out
}
