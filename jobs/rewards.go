package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger/rewards"
)

// RewardCollection mints the reward coupons of closed rounds for every
// party (the real wallet's CollectRewardsAndMergeAmuletsTrigger polls every
// 200 s).
func RewardCollection(r *rewards.Service, every time.Duration) Job {
	return Job{Name: "collect-rewards", Every: every, Run: func(ctx context.Context) error {
		_, err := r.Collect(ctx)
		return err
	}}
}
