package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// MergeHoldings accepts merge delegation proposals and merges the holdings
// of delegating parties with more than ledger.MergeTarget holdings.
func MergeHoldings(l *ledger.Ledger, every time.Duration) Job {
	return Job{Name: "merge-holdings", Every: every, Run: func(ctx context.Context) error {
		_, err := l.MergeHoldings(ctx)
		return err
	}}
}
