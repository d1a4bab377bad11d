package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger/provider"
)

// PreapprovalProposals accepts the TransferPreapprovalProposals naming
// the operator as provider that were not accepted when they were made (the
// real validator's automation accepting them).
func PreapprovalProposals(p *provider.Service, every time.Duration) Job {
	return Job{Name: "accept-preapproval-proposals", Every: every, Run: func(ctx context.Context) error {
		_, err := p.AcceptAll(ctx)
		return err
	}}
}
