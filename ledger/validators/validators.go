// Package validators owns adding a second validator to a network, as
// LocalNet's app provider beside its app user (serve --localnet): the
// network (rounds, rules, DSO, registry, holdings) is the ledger's,
// shared; the validator has its own participant namespace and operator
// party, made once and kept in the ledger's meta, and its own users and
// wallet admins. Parties it allocates get its namespace; its operator
// provides the preapprovals it accepts and merges by the delegations
// granted to it.
//
// The core keeps, through ledger.Core, the view it builds for a
// validator (NewView), the identity it sets (SetIdentity), the set of
// the network's validators that every party check reads
// (Ledger.Validators: HostedElsewhere) and the wallet admins it binds
// (EnsureAdmins).
package validators

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// metaValidator is the meta key of validator hint's identity: its
// participant namespace (its operator party is hint::namespace).
func metaValidator(hint string) string { return "validator_namespace:" + hint }

// Add returns the view of l's network of the validator whose operator
// hint is hint, creating its operator party on first use. Its users are
// its own (ledger/users); its wallet admins are adminUsers, bound to its
// operator party. The hint must not be l's own operator's. After a
// development network's reset or restore the validator is there again,
// with the same identity unless the restored state has one for it.
func Add(ctx context.Context, l *ledger.Ledger, hint string, adminUsers []string) (*ledger.Ledger, error) {
	if err := coin.ValidateHint(hint); err != nil {
		return nil, fmt.Errorf("validator party hint: %w", err)
	}
	if hint == l.Operator().Hint() {
		return nil, fmt.Errorf("validator %q: the hint is this ledger's own operator's", hint)
	}
	v := l.Core().NewView(hint, adminUsers)
	if err := open(ctx, v); err != nil {
		return nil, err
	}
	l.Core().Join(v)
	l.OnRestore(func() {
		if err := open(context.Background(), v); err != nil {
			l.Logger().Error("the validator is missing after the restore", "validator", hint, "err", err)
		}
	})
	return v, nil
}

// open reads v's identity from the meta, or writes it there
// (a new one the first time, v's own after a reset), with its operator
// party; then binds its admins to its operator.
func open(ctx context.Context, v *ledger.Ledger) error {
	core := v.Core()
	hint := core.Config().OperatorHint
	ns := v.Namespace()
	err := v.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.LockKey(ctx, "ccwallet:validator:"+hint); err != nil {
			return err
		}
		got, err := store.MetaValue(ctx, x.DB(), metaValidator(hint))
		if err == nil {
			ns = got
			_, err = coin.NewPartyID(hint, ns)
			return err
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if ns == "" {
			if ns, err = randomKeyFingerprint(); err != nil {
				return err
			}
		}
		operator, err := coin.NewPartyID(hint, ns)
		if err != nil {
			return err
		}
		if err := store.InsertMeta(ctx, x.DB(), metaValidator(hint), ns); err != nil {
			return err
		}
		if _, err := store.PartyByID(ctx, x.DB(), operator); err == nil {
			return nil
		}
		return store.InsertParty(ctx, x.DB(), &store.Party{PartyID: operator, Hint: hint, Kind: "local", CreatedAt: v.Now()})
	})
	if err == nil {
		err = core.SetIdentity(ns)
	}
	if err != nil {
		return fmt.Errorf("open validator %q: %w", hint, err)
	}
	return core.EnsureAdmins(ctx)
}

// randomKeyFingerprint is the fingerprint of a fresh Ed25519 key: a new
// participant namespace.
func randomKeyFingerprint() (string, error) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	return coin.Fingerprint(pub), nil
}
