package devnet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// Restore and reset of a development network: the snapshots
// (snapshots.go) save the whole network under a name and go back to it
// later (as anvil's snapshot and revert) through replace; Reset starts
// again from a new network with the same identity (DSO, operator party,
// synchronizer). Only the core's Dev reaches the gate and the ledger's
// memory they need, so a production ledger cannot. store/snapshot.go
// says how each engine copies the tables.

// RestoreDrain is how long a restore or reset waits for the requests and
// jobs in flight to finish before it gives up.
const RestoreDrain = 10 * time.Second

// replace runs fn, which may replace the network's state (a restore, a
// scenario's rollback, a reset), with the core's restore gate closed: the
// requests and jobs in flight finish first (RestoreDrain), new ones get
// ledger.ErrRestoring. When fn says it replaced the state, the ledger's
// memory of it is read again and the OnRestore hooks run (Dev.Reload),
// also when fn failed (it may have failed after its commit), and also
// when ctx was cancelled meanwhile; err is fn's, returned with any of
// the reload's.
func replace(ctx context.Context, d ledger.Dev, fn func(context.Context) (replaced bool, err error)) error {
	if err := d.Close(ctx, RestoreDrain); err != nil {
		return err
	}
	defer d.Open()
	replaced, err := fn(ctx)
	if !replaced {
		return err
	}
	if rerr := d.Reload(context.WithoutCancel(ctx)); rerr != nil {
		return errors.Join(err, fmt.Errorf("reload the ledger after restore: %w", rerr))
	}
	return err
}

// snapshotDir is where l's SQLite snapshots live (Config.SnapshotDir, or
// "snapshots" beside the database file); Postgres keeps them in schemas.
func snapshotDir(l *ledger.Ledger) string {
	if dir := l.Core().Config().SnapshotDir; dir != "" {
		return dir
	}
	return l.DB().SnapshotDir()
}
