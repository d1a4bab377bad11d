package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// RewardCollection mints the reward coupons of closed rounds for every
// party (the real wallet's CollectRewardsAndMergeAmuletsTrigger polls every
// 200 s).
func RewardCollection(l *ledger.Ledger, every time.Duration) Job {
	return Job{Name: "collect-rewards", Every: every, Run: func(ctx context.Context) error {
		_, err := l.CollectRewards(ctx)
		return err
	}}
}
