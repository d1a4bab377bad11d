package ledger

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/restoregate"
	"github.com/ccwallet/ccwallet/store"
)

// A development network's restore and reset (ledger/devnet's workflow,
// on Dev) replace every table under a running server, so the ledger's
// memory of the old state (users, known parties, reassignments, the rules
// contract) is read again after it (Dev.Reload), and while it runs
// nothing else may act: Admit keeps a gate around the requests and
// automations, which Dev.Close closes once those in flight finish, and
// new ones get ErrRestoring (503) until Dev.Open. It covers one process;
// other replicas on the same database trust their user cache for up to
// UserCacheTTL more.

// Dev is what only a development network may do to its state: close and
// open the restore gate, read its memory of the state again, and make
// the network anew. Ledger.Dev is the only way to a working Dev, and a
// ledger not configured as a development network refuses it; restore,
// reset and minting outside the faucet are ledger/devnet's.
type Dev struct{ l *Ledger }

// Dev returns the development network's powers, or fault.ErrDisabled unless
// the ledger runs a development network.
func (l *Ledger) Dev() (Dev, error) {
	if !l.cfg.DevNet {
		return Dev{}, fmt.Errorf("%w: minting outside the faucet is only available on a development network", fault.ErrDisabled)
	}
	return Dev{l: l}, nil
}

// ErrRestoring: a restore or reset is replacing the development network's
// state; the request may be sent again in a moment.
var ErrRestoring = fmt.Errorf("%w: the development network is being restored or reset; retry in a moment", fault.ErrUnavailable)

// Close closes the restore gate: it waits up to drain for the requests
// and jobs in flight to finish (else fault.ErrConflict) and turns new ones
// away with ErrRestoring until Open.
func (d Dev) Close(ctx context.Context, drain time.Duration) error {
	return d.l.gate.Close(ctx, drain, fault.ErrConflict)
}

// Open opens the restore gate Close closed.
func (d Dev) Open() { d.l.gate.Open() }

// Renew replaces the network with a new one of the same identity (the
// keys, DSO, operator party and synchronizer stay; every contract, party,
// user and round goes), as at the first start, in one transaction; the
// caller closes the gate and reloads after it.
func (d Dev) Renew(ctx context.Context) error {
	l := d.l
	return l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.db.ClearNetwork(ctx, c.tx); err != nil {
			return err
		}
		return l.genesis(ctx, c)
	})
}

// Reload reads the ledger's memory of the state again and runs the
// OnRestore hooks, once the state was replaced (with the gate closed).
func (d Dev) Reload(ctx context.Context) error {
	if err := d.reload(ctx); err != nil {
		return err
	}
	for _, hook := range d.l.gate.Hooks() {
		hook()
	}
	return nil
}

// OnRestore registers fn to run after each restore or reset of a
// development network, before requests are let in again: for what is
// remembered of the state outside the ledger (the live-update streams).
func (l *Ledger) OnRestore(fn func()) { l.gate.AddHook(fn) }

// reload forgets what the ledger remembers of the state and reads it again.
func (d Dev) reload(ctx context.Context) error {
	l := d.l
	l.db.ForgetEnds()
	l.users.Clear()
	l.referenceVersion.Add(1)
	l.rights.Clear()
	l.blobs.Clear()
	l.knownParties.Clear()
	l.partyRows.Clear()
	// Read into a copy and change only what differs: the few readers the
	// gate does not hold off (the live-update hub, the metrics) then never
	// race with a write of the same value. A restore changes the rules
	// contract after a reset, the identity only for a snapshot file of
	// another network.
	fresh := &Ledger{core: &core{db: l.db}, cfg: l.cfg}
	if err := fresh.loadMeta(ctx); err != nil {
		return err
	}
	if !bytes.Equal(fresh.blobKey, l.blobKey) || fresh.namespace != l.namespace || fresh.dso != l.dso ||
		fresh.operator != l.operator || fresh.synchronizerID != l.synchronizerID {
		l.blobKey, l.namespace, l.dso, l.operator, l.synchronizerID = fresh.blobKey, fresh.namespace, fresh.dso, fresh.operator, fresh.synchronizerID
		l.validators.Refresh()
	}
	if fresh.rulesCID != l.rulesCID {
		l.rulesCID = fresh.rulesCID
	}
	if !reflect.DeepEqual(fresh.rules, l.rules) {
		l.rules = fresh.rules
	}
	n, err := store.CountReassignments(ctx, l.db)
	if err != nil {
		return err
	}
	l.reassigning.Store(int64(n))
	return l.ensureAdmins(ctx)
}

// Admit lets a request or an automation run unless a restore or reset is
// running (ErrRestoring). done must be called when it ends. A production
// ledger has no restore, and admits everything at no cost.
func (l *Ledger) Admit() (done func(), err error) {
	if !l.cfg.DevNet {
		return func() {}, nil
	}
	if !l.gate.Enter() {
		return nil, ErrRestoring
	}
	return l.gate.Leave, nil
}

// restoreGate is the network's gate a restore closes (ledger/restoregate).
type restoreGate = restoregate.Gate
