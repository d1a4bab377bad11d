package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger/delegations"
)

// MergeHoldings accepts merge delegation proposals and merges the holdings
// of every party the wallet acts for (delegations.Service.PendingMerges) down to their
// target.
func MergeHoldings(dg *delegations.Service, every time.Duration) Job {
	return Job{Name: "merge-holdings", Every: every, Run: func(ctx context.Context) error {
		_, err := dg.MergeHoldings(ctx)
		return err
	}}
}
