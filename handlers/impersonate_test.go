package handlers_test

import (
	"context"
	"crypto"
	"log/slog"
	"net/http"
	"net/url"
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

// actingAs is a client with a token of user asking to act as party.
func (a *testAPI) actingAs(user string, party coin.PartyID) apiClient {
	a.t.Helper()
	tok, err := web.SignDevTokenActAs(a.signer, testKID, "", testAudience, user, string(party), time.Hour)
	if err != nil {
		a.t.Fatal(err)
	}
	return apiClient{t: a.t, h: a.h, token: tok}
}

// TestImpersonationByToken: on a development network an admin's token
// with ccwallet_act_as acts as that party (the validator's included) and
// every update it makes names the admin; a user's such token, an unknown
// party and a production network are refused, never silently ignored.
func TestImpersonationByToken(t *testing.T) {
	forEachEngine(t, func(t *testing.T, a *testAPI) {
		_, alice := a.user("alice", "100")
		_, bob := a.user("bob", "")
		as := a.actingAs("admin", alice)
		if r := as.do("GET", "/v0/wallet/balance", nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"effective_unlocked_qty":"100.0000000000"`) {
			t.Fatalf("balance as alice = %d %s", r.Status, r.Body)
		}
		before := newest(t, a.l)
		if r := as.do("POST", "/v0/wallet/transfer-offers", map[string]any{"receiver_party_id": bob, "amount": "2.5",
			"description": "by the admin", "expires_at": time.Now().Add(time.Hour).UnixMicro(), "tracking_id": "imp-offer"}); r.Status != http.StatusOK {
			t.Fatalf("offer as alice = %d %s", r.Status, r.Body)
		}
		evs, err := apiread.New(a.l).UpdatesAfter(context.Background(), before, 10)
		if err != nil || len(evs) != 1 || evs[0].ActedBy != "admin" || !contains(evs[0].Parties, alice) {
			t.Fatalf("the offer's update = %+v, %v; want acted by admin, alice's", evs, err)
		}
		if r := a.actingAs("admin", a.l.Operator()).do("GET", "/v0/wallet/balance", nil); r.Status != http.StatusOK {
			t.Errorf("as the validator's party = %d %s", r.Status, r.Body)
		}
		if r := a.actingAs("bob", alice).doOwn("GET", "/v0/wallet/coins", nil); r.Status != http.StatusForbidden {
			t.Errorf("bob acting as alice = %d %s, want 403", r.Status, r.Body)
		}
		unknown := coin.PartyID("nobody::1220" + strings.Repeat("cd", 32))
		if r := a.actingAs("admin", unknown).doOwn("GET", "/v0/wallet/coins", nil); r.Status != http.StatusNotFound {
			t.Errorf("acting as an unknown party = %d %s, want 404", r.Status, r.Body)
		}
	})
}

// TestImpersonationRefusedInProduction: the same token on a production
// network is a 403 that says why.
func TestImpersonationRefusedInProduction(t *testing.T) {
	a := newTestAPI(t, 0)
	l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, ledgertest.Engines[0]), ledger.Config{AdminUsers: []string{"admin"}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{testKID: a.signer.Public()}, Audience: testAudience}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	a.l, a.h = l, handlers.New(l, handlers.Config{Auth: v}, nil).Routes(nil)
	r := a.actingAs("admin", l.Operator()).doOwn("GET", "/v0/wallet/coins", nil)
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "development network") {
		t.Fatalf("impersonating in production = %d %s, want 403 naming the development network", r.Status, r.Body)
	}
}

// TestViewAsInTheWebWallet: an admin views the wallet as alice from the
// admin page; every page says so, her balance shows, a change made is
// marked as the admin's; stopping returns to the admin's own wallet. A
// user cannot ask.
func TestViewAsInTheWebWallet(t *testing.T) {
	e := handlerstest.NewUIEnv(t, ledgertest.Engines[0])
	alice := e.Wallet(t, "alice", "10")
	adminB := e.Browser(t)
	adminB.Login("admin") // the validator operator, onboarded from the start
	page := adminB.Get("/admin")
	handlerstest.MustHave(t, page, http.StatusOK, `data-testid="view-as-form"`)
	csrf := handlerstest.CSRFOf(t, page.Body)
	party := alice.Party

	bad := adminB.Post("/admin/view-as", url.Values{"csrf_token": {csrf}, "party": {"nobody"}})
	handlerstest.MustHave(t, bad, http.StatusUnprocessableEntity, `data-testid="view-as-error"`)
	r := adminB.Post("/admin/view-as", url.Values{"csrf_token": {csrf}, "party": {string(party)}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/?done=viewing-as" {
		t.Fatalf("view as = %d %q %s", r.Status, r.Header.Get("Location"), r.Body)
	}
	home := adminB.Get("/")
	handlerstest.MustHave(t, home, http.StatusOK, `data-testid="view-as-banner"`, string(party), "2,000")
	before := newest(t, e.L)
	handlerstest.MustHave(t, adminB.Post("/tap", url.Values{"csrf_token": {csrf}, "amount": {"1"}}), http.StatusSeeOther)
	evs, err := apiread.New(e.L).UpdatesAfter(context.Background(), before, 10)
	if err != nil || len(evs) != 1 || evs[0].ActedBy != "admin" || !contains(evs[0].Parties, party) {
		t.Fatalf("the tap's update = %+v, %v; want alice's, acted by admin", evs, err)
	}
	r = adminB.Post("/view-as/stop", url.Values{"csrf_token": {csrf}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("stop = %d", r.Status)
	}
	if home := adminB.Get("/"); strings.Contains(home.Body, `data-testid="view-as-banner"`) {
		t.Error("the banner stays after stopping")
	}
	// A user has no such form and cannot post it.
	aliceCSRF := alice.Csrf
	if r := alice.Post("/admin/view-as", url.Values{"csrf_token": {aliceCSRF}, "party": {string(party)}}); r.Status != http.StatusForbidden {
		t.Errorf("a user asking to view as = %d, want 403", r.Status)
	}
}

func newest(t *testing.T, l *ledger.Ledger) int64 {
	t.Helper()
	evs, err := apiread.New(l).UpdatesAfter(context.Background(), 0, 1_000_000)
	if err != nil || len(evs) == 0 {
		t.Fatalf("updates: %d, %v", len(evs), err)
	}
	return evs[len(evs)-1].Offset
}

func contains(ps []coin.PartyID, p coin.PartyID) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}
