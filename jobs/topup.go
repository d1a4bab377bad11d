package jobs

import (
	"context"

	"github.com/ccwallet/ccwallet/ledger/traffic"
)

// Topup buys extra traffic for the operator's member when it runs low,
// never more often than the plan's interval (the real
// TopupMemberTrafficTrigger). It polls every c.PollInterval.
func Topup(tr *traffic.Service, c traffic.TopupConfig) Job {
	return Job{Name: "traffic-topup", Every: c.PollInterval, Run: func(ctx context.Context) error {
		_, err := tr.Topup(ctx, c)
		return err
	}}
}
