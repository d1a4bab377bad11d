package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// MergeHoldings accepts merge delegation proposals and merges the holdings
// of every party the wallet acts for (ledger.PendingMerges) down to their
// target.
func MergeHoldings(l *ledger.Ledger, every time.Duration) Job {
	return Job{Name: "merge-holdings", Every: every, Run: func(ctx context.Context) error {
		_, err := l.MergeHoldings(ctx)
		return err
	}}
}
