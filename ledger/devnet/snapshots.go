package devnet

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Snapshots of a development network: a developer saves the whole network
// under a name and goes back to it later (as anvil's snapshot and
// revert). A restore replaces the state with the core's restore gate
// closed (replace.go), reading the ledger's memory again after it;
// store/snapshot.go says how each engine copies the tables.

// SnapshotNameMax bounds a snapshot's name (a file name on SQLite, part of
// a schema name on Postgres, whose identifiers stop at 63 bytes).
const SnapshotNameMax = 40

var snapshotNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// MaxSnapshots bounds the stored snapshots: each is a whole copy of the
// network, and a script taking one per test must not fill the disk.
const MaxSnapshots = 100

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
		return fault.Invalid("name", "a snapshot needs a name")
	}
	if len(name) > SnapshotNameMax {
		return fault.Invalid("name", "at most %d characters", SnapshotNameMax)
	}
	if !snapshotNameRE.MatchString(name) {
		return fault.Invalid("name", "use lower-case letters, digits, '-' and '_', starting with a letter or digit")
	}
	return nil
}

// Snapshot saves the network's current state as name. It does not stop
// other work: the copy is of one consistent moment.
func (s *Service) Snapshot(ctx context.Context, name string) (Snapshot, error) {
	_, err := s.l.Dev()
	if err != nil {
		return Snapshot{}, err
	}
	if err := ValidateSnapshotName(name); err != nil {
		return Snapshot{}, err
	}
	all, err := s.Snapshots(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	limit := MaxSnapshots
	if s.maxSnapshots > 0 {
		limit = s.maxSnapshots
	}
	if len(all) >= limit && !slices.ContainsFunc(all, func(s Snapshot) bool { return s.Name == name }) {
		return Snapshot{}, fmt.Errorf("%w: there are %d snapshots, the most kept; delete some first", fault.ErrConflict, len(all))
	}
	if err := s.l.DB().CreateSnapshot(ctx, snapshotDir(s.l), name); err != nil {
		if errors.Is(err, store.ErrAlreadyExists) {
			return Snapshot{}, fmt.Errorf("%w: a snapshot called %q exists; delete it first or choose another name", fault.ErrDuplicate, name)
		}
		return Snapshot{}, err
	}
	return s.find(ctx, name)
}

func (s *Service) find(ctx context.Context, name string) (Snapshot, error) {
	all, err := s.Snapshots(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	return Snapshot{}, fmt.Errorf("snapshot %q: %w", name, fault.ErrNotFound)
}

// Snapshots lists the stored snapshots by name.
func (s *Service) Snapshots(ctx context.Context) ([]Snapshot, error) {
	_, err := s.l.Dev()
	if err != nil {
		return nil, err
	}
	infos, err := s.l.DB().Snapshots(ctx, snapshotDir(s.l))
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
func (s *Service) DeleteSnapshot(ctx context.Context, name string) error {
	_, err := s.l.Dev()
	if err != nil {
		return err
	}
	if err := ValidateSnapshotName(name); err != nil {
		return err
	}
	if err := s.l.DB().DeleteSnapshot(ctx, snapshotDir(s.l), name); err != nil {
		return notFoundSnapshot(name, err)
	}
	return nil
}

func notFoundSnapshot(name string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: there is no snapshot called %q", fault.ErrNotFound, name)
	}
	return err
}

// Restore puts the network back to snapshot name, in one transaction,
// with every other request and job of this process held off meanwhile.
func (s *Service) Restore(ctx context.Context, name string) error {
	d, err := s.l.Dev()
	if err != nil {
		return err
	}
	if err := ValidateSnapshotName(name); err != nil {
		return err
	}
	return replace(ctx, d, func(ctx context.Context) (bool, error) {
		err := s.l.DB().RestoreSnapshot(ctx, snapshotDir(s.l), name)
		if errors.Is(err, store.ErrIncompatible) {
			return true, fmt.Errorf("%w: snapshot %q cannot be restored: %w", fault.ErrConflict, name, err)
		}
		return true, notFoundSnapshot(name, err)
	})
}

// Reset replaces the network with a new one of the same identity (the
// keys, DSO, operator party and synchronizer stay; every contract, party,
// user and round goes), as at the first start, in one transaction. The
// snapshots stay. The core makes the network anew (ledger.Dev.Renew)
// with the gate closed (replace).
func (s *Service) Reset(ctx context.Context) error {
	d, err := s.l.Dev()
	if err != nil {
		return err
	}
	return replace(ctx, d, func(ctx context.Context) (bool, error) {
		return true, d.Renew(ctx)
	})
}

// undoable runs fn (a scenario's seed) as one step: with the restore gate
// closed for all of it, after saving the state, which is restored (and the
// ledger's memory read again) when fn fails.
func undoable(ctx context.Context, l *ledger.Ledger, d ledger.Dev, fn func(context.Context) error) error {
	// Its suffix keeps the undo snapshot clear of the developer's own.
	undo := "scenario-undo-" + ledger.UUIDHex()[:8]
	// Only a rollback replaces the state, so only it reloads the ledger's
	// memory and tells the live streams (fn's updates reach them as any do).
	return replace(ctx, d, func(ctx context.Context) (bool, error) {
		if err := l.DB().CreateSnapshot(ctx, snapshotDir(l), undo); err != nil {
			return false, fmt.Errorf("seed: save the state to roll back to: %w", err)
		}
		defer func() { _ = l.DB().DeleteSnapshot(context.WithoutCancel(ctx), snapshotDir(l), undo) }()
		if err := fn(ctx); err != nil {
			if rerr := l.DB().RestoreSnapshot(context.WithoutCancel(ctx), snapshotDir(l), undo); rerr != nil {
				err = errors.Join(err, fmt.Errorf("seed: roll back: %w", rerr))
			}
			return true, err
		}
		return false, nil
	})
}
