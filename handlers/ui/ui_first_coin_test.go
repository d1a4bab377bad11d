package ui_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// TestUIFirstCoinInProduction: on a production network there is no
// faucet; a new wallet's Home says how to receive coin, with the way to
// Receive, and no faucet anywhere (issue 37 point 7).
func TestUIFirstCoinInProduction(t *testing.T) {
	l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, store.SQLite), ledger.Config{AdminUsers: []string{"admin"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.DevNet() {
		t.Fatal("the ledger is a development network's")
	}
	e := handlerstest.NewUIEnvOn(t, l, nil, func(*handlers.Config) {})
	b := e.Browser(t)
	b.Onboarded("alice")
	home := b.Get("/")
	handlerstest.MustHave(t, home, http.StatusOK, `data-testid="first-coin"`, "Get your first coin", "Your wallet is empty. To receive coin, give the sender your party ID",
		`<a class="button" href="/receive" data-testid="first-coin-receive">`)
	for _, faucet := range []string{`data-testid="tap-form"`, `action="/tap"`, "faucet"} {
		if strings.Contains(home.Body, faucet) {
			t.Errorf("a production wallet's Home has %s", faucet)
		}
	}
	handlerstest.MustHave(t, b.Get("/receive"), http.StatusOK, `data-testid="receive-party"`)
}
