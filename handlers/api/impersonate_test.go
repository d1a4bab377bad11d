package api_test

import (
	"context"
	"crypto"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/web"
)

// TestImpersonationByToken: on a development network an admin's token
// with ccwallet_act_as acts as that party (the validator's included) and
// every update it makes names the admin; a user's such token, an unknown
// party and a production network are refused, never silently ignored.
func TestImpersonationByToken(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		_, alice := a.User("alice", "100")
		_, bob := a.User("bob", "")
		as := a.ActingAs("admin", alice)
		if r := as.Do("GET", "/v0/wallet/balance", nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"effective_unlocked_qty":"100.0000000000"`) {
			t.Fatalf("balance as alice = %d %s", r.Status, r.Body)
		}
		before := handlerstest.NewestOffset(t, a.L)
		if r := as.Do("POST", "/v0/wallet/transfer-offers", map[string]any{"receiver_party_id": bob, "amount": "2.5",
			"description": "by the admin", "expires_at": time.Now().Add(time.Hour).UnixMicro(), "tracking_id": "imp-offer"}); r.Status != http.StatusOK {
			t.Fatalf("offer as alice = %d %s", r.Status, r.Body)
		}
		evs, err := apiread.New(a.L).UpdatesAfter(context.Background(), before, 10)
		if err != nil || len(evs) != 1 || evs[0].ActedBy != "admin" || !slices.Contains(evs[0].Parties, alice) {
			t.Fatalf("the offer's update = %+v, %v; want acted by admin, alice's", evs, err)
		}
		if r := a.ActingAs("admin", a.L.Operator()).Do("GET", "/v0/wallet/balance", nil); r.Status != http.StatusOK {
			t.Errorf("as the validator's party = %d %s", r.Status, r.Body)
		}
		if r := a.ActingAs("bob", alice).DoOwn("GET", "/v0/wallet/coins", nil); r.Status != http.StatusForbidden {
			t.Errorf("bob acting as alice = %d %s, want 403", r.Status, r.Body)
		}
		unknown := coin.PartyID("nobody::1220" + strings.Repeat("cd", 32))
		if r := a.ActingAs("admin", unknown).DoOwn("GET", "/v0/wallet/coins", nil); r.Status != http.StatusNotFound {
			t.Errorf("acting as an unknown party = %d %s, want 404", r.Status, r.Body)
		}
	})
}

// TestImpersonationRefusedInProduction: the same token on a production
// network is a 403 that says why.
func TestImpersonationRefusedInProduction(t *testing.T) {
	a := handlerstest.NewAPI(t, 0)
	l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, ledgertest.Engines[0]), ledger.Config{AdminUsers: []string{"admin"}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{handlerstest.KID: a.Signer.Public()}, Audience: handlerstest.Audience}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	a.L, a.H = l, handlers.New(l, handlers.Config{Auth: v}, nil).Routes(nil)
	r := a.ActingAs("admin", l.Operator()).DoOwn("GET", "/v0/wallet/coins", nil)
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "development network") {
		t.Fatalf("impersonating in production = %d %s, want 403 naming the development network", r.Status, r.Body)
	}
}
