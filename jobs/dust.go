package jobs

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// DustExpiry archives expired dust holdings. The round clock already does
// it after every round; this job is for nodes that run the round clock
// elsewhere.
func DustExpiry(l *ledger.Ledger, every time.Duration) Job {
	return Job{Name: "expire-dust", Every: every, Run: func(ctx context.Context) error {
		_, err := l.ExpireDust(ctx)
		return err
	}}
}
