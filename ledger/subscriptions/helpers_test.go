package subscriptions_test

import (
	"context"
	"sync"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// testApp records the hooks the collection calls; Refuse makes
// InitialPaid refuse the payment.
type testApp struct {
	mu     sync.Mutex
	calls  []string
	Refuse bool
}

func (a *testApp) add(c string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, c)
}

// Calls are the hooks called so far.
func (a *testApp) Calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.calls...)
}

func (a *testApp) InitialPaid(_ context.Context, x *ledger.Tx, req, sub coin.ContractID) error {
	if a.Refuse {
		return subscriptions.ErrSubscriptionRefused
	}
	x.AfterCommit(func(context.Context) error { a.add("initial " + string(req) + " " + string(sub)); return nil })
	return nil
}

func (a *testApp) RenewalPaid(_ context.Context, x *ledger.Tx, req, sub coin.ContractID) error {
	x.AfterCommit(func(context.Context) error { a.add("renewal " + string(req) + " " + string(sub)); return nil })
	return nil
}

func (a *testApp) Expired(_ context.Context, x *ledger.Tx, req, sub coin.ContractID) error {
	x.AfterCommit(func(context.Context) error { a.add("expired " + string(req) + " " + string(sub)); return nil })
	return nil
}

var (
	testAppsMu sync.Mutex
	testApps   = map[string]subscriptions.App{}
)

// registerTestApp makes app's hooks run, under name, for the services the
// tests build from now on (newService).
func registerTestApp(name string, app *testApp) {
	testAppsMu.Lock()
	defer testAppsMu.Unlock()
	testApps[name] = app
}

// newService builds l's subscriptions, as workflows.New does, with the
// name service's hooks and the test apps registered so far; call it once
// per ledger.
func newService(l *ledger.Ledger) *subscriptions.Service {
	testAppsMu.Lock()
	defer testAppsMu.Unlock()
	apps := map[string]subscriptions.App{names.AppName: names.App(l)}
	for n, a := range testApps {
		apps[n] = a
	}
	return subscriptions.New(l, apps)
}
