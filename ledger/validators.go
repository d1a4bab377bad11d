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

// Validator returns the view of the network of the validator whose
// operator hint is hint, creating its operator party on first use. Its
// users are its own (validator_users.go); its wallet admins are
// adminUsers, bound to its operator party. The hint must not be this ledger's own
// operator's. After a development network's reset or restore the
// validator is there again, with the same identity unless the restored
// state has one for it.
func (l *Ledger) Validator(ctx context.Context, hint string, adminUsers []string) (*Ledger, error) {
	if err := coin.ValidateHint(hint); err != nil {
		return nil, fmt.Errorf("validator party hint: %w", err)
	}
	if hint == l.operator.Hint() {
		return nil, fmt.Errorf("validator %q: the hint is this ledger's own operator's", hint)
	}
	v := &Ledger{core: l.core, cfg: l.cfg, userSpace: userSpaceOf(hint)}
	v.cfg.OperatorHint, v.cfg.AdminUsers = hint, adminUsers
	if err := v.openValidator(ctx); err != nil {
		return nil, err
	}
	l.validators.add(l, v)
	l.OnRestore(func() {
		if err := v.openValidator(context.Background()); err != nil {
			l.log.Error("the validator is missing after the restore", "validator", hint, "err", err)
		}
	})
	return v, nil
}

// openValidator reads v's identity from the meta, or writes it there
// (a new one the first time, v's own after a reset), with its operator
// party; then binds its admins to its operator.
func (v *Ledger) openValidator(ctx context.Context) error {
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
// ledger opened first and those Validator added. With one validator it
// stays empty and every local party is that validator's.
type validatorSet struct {
	mu    sync.Mutex
	views []*Ledger
	// spaces is the views' namespaces, rebuilt (under mu) whenever a
	// view is added or its identity is read again (openValidator, a
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
func (l *Ledger) HostedElsewhere(party coin.PartyID) bool {
	return slices.Contains(l.otherNamespaces(), party.Namespace())
}

// otherNamespaces are the participant namespaces of the network's
// validators other than l, read once when the set last changed: shared,
// the caller must not change it.
func (l *Ledger) otherNamespaces() []string {
	ns := l.validators.spaces.Load()
	if ns == nil {
		return nil
	}
	return ns.others[l.namespace]
}

// validatorOperators are the operator parties of the network's
// validators, each recording its liveness once per round (Splice's
// ReceiveFaucetCouponTrigger runs on every validator).
func (l *Ledger) validatorOperators() []coin.PartyID {
	vs := l.validators.list()
	if len(vs) == 0 {
		return []coin.PartyID{l.operator}
	}
	out := make([]coin.PartyID, len(vs))
	for i, v := range vs {
		out[i] = v.operator
	}
	return out
}
