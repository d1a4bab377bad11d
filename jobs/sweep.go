package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger/autotransfer"
)

// DefaultPollInterval is Splice's automation.pollingInterval, used by the
// sweep, auto-accept and top-up jobs.
const DefaultPollInterval = 30 * time.Second

// Sweep is one walletSweep entry's job (the real WalletSweepTrigger), one
// job per sender so each has its own status.
func Sweep(at *autotransfer.Service, c autotransfer.SweepConfig, every time.Duration) Job {
	return Job{Name: "sweep-" + string(c.Sender), Every: every, Run: func(ctx context.Context) error {
		_, err := at.Sweep(ctx, c)
		return err
	}}
}
