package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
)

// Subscriptions runs the subscription automations every interval: the
// senders' wallets pay each payment due within its paymentDuration (the
// real SubscriptionReadyForPaymentTrigger; a sender short of coin gets a
// notice and a retry on the next run, and a missed payment expires the
// subscription), and the providers hosted here collect the payments
// (their app's side, embedded), or return those whose lock expired.
func Subscriptions(l *ledger.Ledger, every time.Duration) Job {
	return Job{Name: "subscriptions", Every: every, Run: func(ctx context.Context) error {
		_, perr := l.PaySubscriptions(ctx)
		_, cerr := l.CollectSubscriptions(ctx)
		return errors.Join(perr, cerr)
	}}
}
