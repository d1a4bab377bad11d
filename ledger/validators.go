package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// A second validator on one network, as LocalNet's app provider beside
// its app user: the network (rounds, rules, DSO, registry, holdings) is
// the ledger's, shared; the validator has its own participant namespace
// and operator party, made once and kept in the ledger's meta, and its
// own users and wallet admins. Parties it allocates get its namespace; its
// operator provides the preapprovals it accepts and merges by the
// delegations granted to it.

// metaValidator is the meta key of validator hint's identity: its
// participant namespace (its operator party is hint::namespace).
func metaValidator(hint string) string { return "validator_namespace:" + hint }

// Validators are the validators of the network in this process that
// l's validator is one of: added (Add), and told apart by their
// participant namespaces (HostedElsewhere).
type Validators struct{ l *Ledger }

// Validators returns l's network's validators as l sees them.
func (l *Ledger) Validators() Validators { return Validators{l} }

// Add returns the view of the network of the validator whose
// operator hint is hint, creating its operator party on first use. Its
// users are its own (validator_users.go); its wallet admins are
// adminUsers, bound to its operator party. The hint must not be this ledger's own
// operator's. After a development network's reset or restore the
// validator is there again, with the same identity unless the restored
// state has one for it.
func (vs Validators) Add(ctx context.Context, hint string, adminUsers []string) (*Ledger, error) {
	l := vs.l
	if err := coin.ValidateHint(hint); err != nil {
		return nil, fmt.Errorf("validator party hint: %w", err)
	}
	if hint == l.operator.Hint() {
		return nil, fmt.Errorf("validator %q: the hint is this ledger's own operator's", hint)
	}
	v := &Ledger{core: l.core, cfg: l.cfg, userSpace: userSpaceOf(hint)}
	v.cfg.OperatorHint, v.cfg.AdminUsers = hint, adminUsers
	if err := v.Validators().open(ctx); err != nil {
		return nil, err
	}
	l.validators.add(l, v)
	l.OnRestore(func() {
		if err := v.Validators().open(context.Background()); err != nil {
			l.log.Error("the validator is missing after the restore", "validator", hint, "err", err)
		}
	})
	return v, nil
}

// open reads v's identity from the meta, or writes it there
// (a new one the first time, v's own after a reset), with its operator
// party; then binds its admins to its operator.
func (vs Validators) open(ctx context.Context) error {
	v := vs.l
	hint := v.cfg.OperatorHint
	err := v.change(ctx, func(ctx context.Context, c *change) error {
		if err := v.db.LockKey(ctx, c.tx, "ccwallet:validator:"+hint); err != nil {
			return err
		}
		ns, err := store.MetaValue(ctx, c.tx, metaValidator(hint))
		if err == nil {
			v.namespace = ns
			v.operator, err = coin.NewPartyID(hint, ns)
			return err
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if v.namespace == "" {
			if v.namespace, err = randomKeyFingerprint(); err != nil {
				return err
			}
		}
		if v.operator, err = coin.NewPartyID(hint, v.namespace); err != nil {
			return err
		}
		if err := store.InsertMeta(ctx, c.tx, metaValidator(hint), v.namespace); err != nil {
			return err
		}
		if _, err := store.PartyByID(ctx, c.tx, v.operator); err == nil {
			return nil
		}
		return store.InsertParty(ctx, c.tx, &store.Party{PartyID: v.operator, Hint: hint, Kind: "local", CreatedAt: v.now()})
	})
	if err != nil {
		return fmt.Errorf("open validator %q: %w", hint, err)
	}
	v.validators.refresh()
	return v.ensureAdmins(ctx)
}

// validatorSet is the validators of one network in this process: the
// ledger opened first and those Validators().Add added. With one validator it
// stays empty and every local party is that validator's.
type validatorSet struct {
	mu    sync.Mutex
	views []*Ledger
	// spaces is the views' namespaces, rebuilt (under mu) whenever a
	// view is added or its identity is read again (Validators.open, a
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
