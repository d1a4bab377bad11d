package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger/provider"
)

// DefaultRenewalInterval is how often due preapprovals are renewed.
const DefaultRenewalInterval = time.Minute

// PreapprovalRenewal renews the transfer preapprovals this validator
// provides once they are within ledger.PreapprovalRenewalWindow of expiry
// (the real RenewTransferPreapprovalTrigger).
func PreapprovalRenewal(p *provider.Service, every time.Duration) Job {
	return Job{Name: "renew-preapprovals", Every: every, Run: func(ctx context.Context) error {
		_, err := p.RenewDue(ctx)
		return err
	}}
}
