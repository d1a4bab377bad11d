package ledger

import (
	"context"
	"sync"

	"github.com/ccwallet/ccwallet/coin"
)

// TestSubscriptionApp records the hooks the collection calls; refuse makes
// initialPaid refuse the payment.
type TestSubscriptionApp struct {
	mu     sync.Mutex
	calls  []string
	Refuse bool
}

func (a *TestSubscriptionApp) add(c string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, c)
}

// Calls are the hooks called so far.
func (a *TestSubscriptionApp) Calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.calls...)
}

func (a *TestSubscriptionApp) initialPaid(_ context.Context, t *txn, req, sub coin.ContractID) error {
	if a.Refuse {
		return ErrSubscriptionRefused
	}
	t.afterCommit(func(context.Context) error { a.add("initial " + string(req) + " " + string(sub)); return nil })
	return nil
}

func (a *TestSubscriptionApp) renewalPaid(_ context.Context, t *txn, req, sub coin.ContractID) error {
	t.afterCommit(func(context.Context) error { a.add("renewal " + string(req) + " " + string(sub)); return nil })
	return nil
}

func (a *TestSubscriptionApp) expired(_ context.Context, t *txn, req, sub coin.ContractID) error {
	t.afterCommit(func(context.Context) error { a.add("expired " + string(req) + " " + string(sub)); return nil })
	return nil
}

// RegisterTestSubscriptionApp registers app under name.
func RegisterTestSubscriptionApp(name string, app *TestSubscriptionApp) {
	registerSubscriptionApp(name, app)
}
