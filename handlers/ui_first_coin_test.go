package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers"
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
	e := newUIEnvOn(t, l, nil, func(*handlers.Config) {})
	b := e.browser(t)
	b.onboarded("alice")
	home := b.get("/")
	mustHave(t, home, http.StatusOK, `data-testid="first-coin"`, "Get your first coin", "Your wallet is empty. To receive coin, give the sender your party ID",
		`<a class="button" href="/receive" data-testid="first-coin-receive">`)
	for _, faucet := range []string{`data-testid="tap-form"`, `action="/tap"`, "faucet"} {
		if strings.Contains(home.body, faucet) {
			t.Errorf("a production wallet's Home has %s", faucet)
		}
	}
	mustHave(t, b.get("/receive"), http.StatusOK, `data-testid="receive-party"`)

}
