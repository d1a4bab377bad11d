package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/ccwallet/ccwallet/ledger/restoregate"
	"github.com/ccwallet/ccwallet/store"
)

// Restore and reset of a development network: the ledger/devnet package
// saves the whole network under a name and goes back to it later (as
// anvil's snapshot and revert) through Dev.Replace; Dev.Reset starts again
// from a new network with the same identity (DSO, operator party,
// synchronizer). Only Dev reaches them, so a production ledger cannot.
// store/snapshot.go says how each engine copies the tables.
//
// A restore replaces every table under a running server, so the ledger's
// memory of the old state (users, known parties, reassignments, the rules
// contract) is read again after it, and while it runs nothing else may
// act: Admit closes a gate around the requests and automations, the
// restore waits for those in flight to finish, and new ones get
// ErrRestoring (503) until it is done. It covers one process; other
// replicas on the same database trust their user cache for up to
// UserCacheTTL more.

// Dev is what only a development network may do to its state: replace
// it (Replace: a restore, a scenario's rollback) and reset it. Ledger.Dev
// is the only way to a working Dev, and a ledger not configured as a
// development network refuses it. Minting outside the faucet is
// ledger/devnet's, on the core's Tx verbs.
type Dev struct{ l *Ledger }

// Dev returns the development network's powers, or ErrDisabled unless
// the ledger runs a development network.
func (l *Ledger) Dev() (Dev, error) {
	if !l.cfg.DevNet {
		return Dev{}, fmt.Errorf("%w: minting outside the faucet is only available on a development network", ErrDisabled)
	}
	return Dev{l: l}, nil
}

// RestoreDrain is how long a restore or reset waits for the requests and
// jobs in flight to finish before it gives up.
const RestoreDrain = 10 * time.Second

// ErrRestoring: a restore or reset is replacing the development network's
// state; the request may be sent again in a moment.
var ErrRestoring = fmt.Errorf("%w: the development network is being restored or reset; retry in a moment", ErrUnavailable)

// Reset replaces the network with a new one of the same identity (the
// keys, DSO, operator party and synchronizer stay; every contract, party,
// user and round goes), as at the first start, in one transaction. The
// snapshots stay.
func (d Dev) Reset(ctx context.Context) error {
	l := d.l
	return d.Replace(ctx, func(ctx context.Context) (bool, error) {
		return true, l.change(ctx, func(ctx context.Context, c *change) error {
			if err := l.db.ClearNetwork(ctx, c.tx); err != nil {
				return err
			}
			return l.genesis(ctx, c)
		})
	})
}

// Replace runs fn, which may replace the network's state (a restore, a
// scenario's rollback), with the gate closed: the requests and jobs in
// flight finish first (RestoreDrain), new ones get ErrRestoring. When fn
// says it replaced the state, the ledger's memory of it is read again and
// the OnRestore hooks run, also when fn failed (it may have failed after
// its commit), and also when ctx was cancelled meanwhile.
func (d Dev) Replace(ctx context.Context, fn func(context.Context) (replaced bool, err error)) error {
	l := d.l
	if err := l.gate.Close(ctx, RestoreDrain, ErrConflict); err != nil {
		return err
	}
	defer l.gate.Open()
	replaced, err := fn(ctx)
	if !replaced {
		return err
	}
	return d.replaced(context.WithoutCancel(ctx), err)
}

// SnapshotDir is where the SQLite snapshots live (Config.SnapshotDir, or
// "snapshots" beside the database file); Postgres keeps them in schemas.
func (d Dev) SnapshotDir() string {
	if d.l.cfg.SnapshotDir != "" {
		return d.l.cfg.SnapshotDir
	}
	return d.l.db.SnapshotDir()
}

// replaced reads the ledger's memory of the state again and runs the
// OnRestore hooks, once the state was replaced (with the gate closed);
// err is the replacing's, returned with any of reload's.
func (d Dev) replaced(ctx context.Context, err error) error {
	l := d.l
	if rerr := d.reload(ctx); rerr != nil {
		return errors.Join(err, fmt.Errorf("reload the ledger after restore: %w", rerr))
	}
	for _, hook := range l.gate.Hooks() {
		hook()
	}
	return err
}

// OnRestore registers fn to run after each restore or reset of a
// development network, before requests are let in again: for what is
// remembered of the state outside the ledger (the live-update streams).
func (l *Ledger) OnRestore(fn func()) { l.gate.AddHook(fn) }

// reload forgets what the ledger remembers of the state and reads it again.
func (d Dev) reload(ctx context.Context) error {
	l := d.l
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
