package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/ccwallet/ccwallet/ledger/subscriptions"
)

// Subscriptions runs the subscription automations every interval: the
// senders' wallets pay each payment due within its paymentDuration (the
// real SubscriptionReadyForPaymentTrigger; a sender short of coin gets a
// notice and a retry on the next run, and a missed payment expires the
// subscription), and the providers hosted here collect the payments
// (their app's side, embedded), or return those whose lock expired.
func Subscriptions(s *subscriptions.Service, every time.Duration) Job {
	return Job{Name: "subscriptions", Every: every, Run: func(ctx context.Context) error {
		_, perr := s.PaySubscriptions(ctx)
		_, cerr := s.CollectSubscriptions(ctx)
		return errors.Join(perr, cerr)
	}}
}
