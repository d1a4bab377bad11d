package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// A second validator on one network, as LocalNet's app provider beside
// its app user: the network (rounds, rules, DSO, registry, holdings) is
// the ledger's, shared; the validator has its own participant namespace
// and operator party, made once and kept in the ledger's meta, and its
// own wallet admins. Parties it allocates get its namespace; its
// operator provides the preapprovals it accepts and merges by the
// delegations granted to it.

// metaValidator is the meta key of validator hint's identity: its
// participant namespace (its operator party is hint::namespace).
func metaValidator(hint string) string { return "validator_namespace:" + hint }

// Validator returns the view of the network of the validator whose
// operator hint is hint, creating its operator party on first use; its
// wallet admins are adminUsers, the users of the network's validators
// being one namespace. The hint must not be this ledger's own
// operator's.
func (l *Ledger) Validator(ctx context.Context, hint string, adminUsers []string) (*Ledger, error) {
	if err := coin.ValidateHint(hint); err != nil {
		return nil, fmt.Errorf("validator party hint: %w", err)
	}
	if hint == l.operator.Hint() {
		return nil, fmt.Errorf("validator %q: the hint is this ledger's own operator's", hint)
	}
	v := &Ledger{core: l.core, cfg: l.cfg}
	v.cfg.OperatorHint, v.cfg.AdminUsers = hint, adminUsers
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.db.LockKey(ctx, c.tx, "ccwallet:validator:"+hint); err != nil {
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
		if ns, err = randomKeyFingerprint(); err != nil {
			return err
		}
		if v.operator, err = coin.NewPartyID(hint, ns); err != nil {
			return err
		}
		v.namespace = ns
		if err := store.InsertMeta(ctx, c.tx, metaValidator(hint), ns); err != nil {
			return err
		}
		return store.InsertParty(ctx, c.tx, &store.Party{PartyID: v.operator, Hint: hint, Kind: "local", CreatedAt: l.now()})
	})
	if err != nil {
		return nil, fmt.Errorf("open validator %q: %w", hint, err)
	}
	// Users are the network's: an admin already bound to another
	// validator's operator stays so and is an admin here too; the others
	// are bound to this validator's operator.
	var unbound []string
	for _, name := range adminUsers {
		if _, err := store.UserByName(ctx, l.db, name); errors.Is(err, store.ErrNotFound) {
			unbound = append(unbound, name)
		} else if err != nil {
			return nil, err
		}
	}
	w := &Ledger{core: v.core, cfg: v.cfg, namespace: v.namespace, operator: v.operator}
	w.cfg.AdminUsers = unbound
	if err := w.ensureAdmins(ctx); err != nil {
		return nil, err
	}
	return v, nil
}
