package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/store"
)

// Snapshots, restore and reset of a development network: a developer
// saves the whole network under a name and goes back to it later (as
// anvil's snapshot and revert), or starts again from a new network with
// the same identity (DSO, operator party, synchronizer). Only Dev reaches
// them, so a production ledger cannot. store/snapshot.go says how each
// engine copies the tables.
//
// A restore replaces every table under a running server, so the ledger's
// memory of the old state (users, known parties, reassignments, the rules
// contract) is read again after it, and while it runs nothing else may
// act: Admit closes a gate around the requests and automations, the
// restore waits for those in flight to finish, and new ones get
// ErrRestoring (503) until it is done. It covers one process; other
// replicas on the same database trust their user cache for up to
// UserCacheTTL more.

// SnapshotNameMax bounds a snapshot's name (a file name on SQLite, part of
// a schema name on Postgres, whose identifiers stop at 63 bytes).
const SnapshotNameMax = 40

var snapshotNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// MaxSnapshots bounds the stored snapshots: each is a whole copy of the
// network, and a script taking one per test must not fill the disk.
const MaxSnapshots = 100

// RestoreDrain is how long a restore or reset waits for the requests and
// jobs in flight to finish before it gives up.
const RestoreDrain = 10 * time.Second

// ErrRestoring: a restore or reset is replacing the development network's
// state; the request may be sent again in a moment.
var ErrRestoring = fmt.Errorf("%w: the development network is being restored or reset; retry in a moment", ErrUnavailable)

// Snapshot describes a stored snapshot of the network.
type Snapshot struct {
	Name      string
	CreatedAt time.Time
	Bytes     int64
}

// ValidateSnapshotName refuses a name that is not 1 to SnapshotNameMax
// lower-case letters, digits, '-' and '_', starting with a letter or digit:
// it names a file and a schema, so nothing else may reach the path or
// the SQL.
func ValidateSnapshotName(name string) error {
	if name == "" {
		return invalid("name", "a snapshot needs a name")
	}
	if len(name) > SnapshotNameMax {
		return invalid("name", "at most %d characters", SnapshotNameMax)
	}
	if !snapshotNameRE.MatchString(name) {
		return invalid("name", "use lower-case letters, digits, '-' and '_', starting with a letter or digit")
	}
	return nil
}

// snapshotDir is where the SQLite snapshots live: Config.SnapshotDir, or
// "snapshots" beside the database file.
func (l *Ledger) snapshotDir() string {
	if l.cfg.SnapshotDir != "" {
		return l.cfg.SnapshotDir
	}
	return l.db.SnapshotDir()
}

// Snapshot saves the network's current state as name. It does not stop
// other work: the copy is of one consistent moment.
func (d Dev) Snapshot(ctx context.Context, name string) (Snapshot, error) {
	if err := ValidateSnapshotName(name); err != nil {
		return Snapshot{}, err
	}
	all, err := d.Snapshots(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	limit := MaxSnapshots
	if d.l.maxSnapshots > 0 {
		limit = d.l.maxSnapshots
	}
	if len(all) >= limit && !slices.ContainsFunc(all, func(s Snapshot) bool { return s.Name == name }) {
		return Snapshot{}, fmt.Errorf("%w: there are %d snapshots, the most kept; delete some first", ErrConflict, len(all))
	}
	if err := d.l.db.CreateSnapshot(ctx, d.l.snapshotDir(), name); err != nil {
		if errors.Is(err, store.ErrAlreadyExists) {
			return Snapshot{}, fmt.Errorf("%w: a snapshot called %q exists; delete it first or choose another name", ErrDuplicate, name)
		}
		return Snapshot{}, err
	}
	return d.find(ctx, name)
}

func (d Dev) find(ctx context.Context, name string) (Snapshot, error) {
	all, err := d.Snapshots(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	return Snapshot{}, fmt.Errorf("snapshot %q: %w", name, ErrNotFound)
}

// Snapshots lists the stored snapshots by name.
func (d Dev) Snapshots(ctx context.Context) ([]Snapshot, error) {
	infos, err := d.l.db.Snapshots(ctx, d.l.snapshotDir())
	if err != nil {
		return nil, err
	}
	out := make([]Snapshot, 0, len(infos))
	for _, i := range infos {
		out = append(out, Snapshot(i))
	}
	return out, nil
}

// DeleteSnapshot removes snapshot name.
func (d Dev) DeleteSnapshot(ctx context.Context, name string) error {
	if err := ValidateSnapshotName(name); err != nil {
		return err
	}
	if err := d.l.db.DeleteSnapshot(ctx, d.l.snapshotDir(), name); err != nil {
		return notFoundSnapshot(name, err)
	}
	return nil
}

func notFoundSnapshot(name string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: there is no snapshot called %q", ErrNotFound, name)
	}
	return err
}

// Restore puts the network back to snapshot name, in one transaction,
// with every other request and job of this process held off meanwhile.
func (d Dev) Restore(ctx context.Context, name string) error {
	if err := ValidateSnapshotName(name); err != nil {
		return err
	}
	return d.l.exclusive(ctx, func() error {
		err := d.l.db.RestoreSnapshot(ctx, d.l.snapshotDir(), name)
		if errors.Is(err, store.ErrIncompatible) {
			return fmt.Errorf("%w: snapshot %q cannot be restored: %w", ErrConflict, name, err)
		}
		return notFoundSnapshot(name, err)
	})
}

// Reset replaces the network with a new one of the same identity (the
// keys, DSO, operator party and synchronizer stay; every contract, party,
// user and round goes), as at the first start, in one transaction. The
// snapshots stay.
func (d Dev) Reset(ctx context.Context) error {
	l := d.l
	return l.exclusive(ctx, func() error {
		return l.change(ctx, func(ctx context.Context, c *change) error {
			if err := l.db.ClearNetwork(ctx, c.tx); err != nil {
				return err
			}
			return l.genesis(ctx, c)
		})
	})
}

// exclusive runs fn, which replaces the network's state, with the gate
// closed, and then reads the ledger's memory of the state again (also
// when fn failed: it may have failed after its commit).
func (l *Ledger) exclusive(ctx context.Context, fn func() error) error {
	if err := l.gate.close(ctx, RestoreDrain); err != nil {
		return err
	}
	defer l.gate.open()
	return l.replaced(ctx, fn())
}

// replaced reads the ledger's memory of the state again and runs the
// OnRestore hooks, once the state was replaced (with the gate closed);
// err is the replacing's, returned with any of reload's.
func (l *Ledger) replaced(ctx context.Context, err error) error {
	if rerr := l.reload(ctx); rerr != nil {
		return errors.Join(err, fmt.Errorf("reload the ledger after restore: %w", rerr))
	}
	for _, hook := range l.gate.restoreHooks() {
		hook()
	}
	return err
}

// OnRestore registers fn to run after each restore or reset of a
// development network, before requests are let in again: for what is
// remembered of the state outside the ledger (the live-update streams).
func (l *Ledger) OnRestore(fn func()) {
	l.gate.mu.Lock()
	defer l.gate.mu.Unlock()
	l.gate.hooks = append(l.gate.hooks, fn)
}

// reload forgets what the ledger remembers of the state and reads it again.
func (l *Ledger) reload(ctx context.Context) error {
	l.users.clear()
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
	if !l.gate.enter() {
		return nil, ErrRestoring
	}
	return l.gate.leave, nil
}

// restoreGate counts the requests and jobs in flight, so a restore can
// wait for them, and turns new ones away while it runs.
type restoreGate struct {
	mu      sync.Mutex
	active  int
	closed  bool
	drained chan struct{} // closed when active reaches 0 while closed
	hooks   []func()      // OnRestore's
}

func (g *restoreGate) restoreHooks() []func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.hooks)
}

func (g *restoreGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.active++
	return true
}

func (g *restoreGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active--
	if g.closed && g.active == 0 && g.drained != nil {
		close(g.drained)
		g.drained = nil
	}
}

// close turns new entries away and waits up to wait for those in flight.
func (g *restoreGate) close(ctx context.Context, wait time.Duration) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return fmt.Errorf("%w: another restore or reset is running", ErrConflict)
	}
	g.closed = true
	if g.active == 0 {
		g.mu.Unlock()
		return nil
	}
	drained := make(chan struct{})
	g.drained = drained
	g.mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-drained:
		return nil
	case <-timer.C:
		g.open()
		return fmt.Errorf("%w: requests still running after %s; try again", ErrConflict, wait)
	case <-ctx.Done():
		g.open()
		return ctx.Err()
	}
}

func (g *restoreGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = false
	g.drained = nil
}
