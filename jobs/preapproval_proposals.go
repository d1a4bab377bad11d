package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// PreapprovalProposals accepts the TransferPreapprovalProposals naming
// the operator as provider that were not accepted when they were made (the
// real validator's automation accepting them).
func PreapprovalProposals(l *ledger.Ledger, every time.Duration) Job {
	return Job{Name: "accept-preapproval-proposals", Every: every, Run: func(ctx context.Context) error {
		_, err := l.AcceptPreapprovalProposals(ctx)
		return err
	}}
}
