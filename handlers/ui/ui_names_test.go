package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestUINames runs the Names page without JavaScript on both engines: a
// refused request keeps the form and says why; a request (the suffix
// added) lists the name waiting for its subscription, linked to the
// confirm page; once the subscription is accepted and the DSO collects,
// the name shows with its expiry, stands beside alice's party on bob's
// pages (offers, home) and her own home, and bob can send to it by name.
func TestUINames(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		ctx := context.Background()
		alice := e.Wallet(t, "alice", "5")
		bob := e.Wallet(t, "bob", "5")
		handlerstest.MustHave(t, alice.Get("/names"), http.StatusOK, `data-testid="names-empty"`, `data-testid="nav-names"`, `name="csrf_token"`)

		r := alice.Post("/names", url.Values{"csrf_token": {alice.Csrf}, "name": {"Alice!"}})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `data-testid="names-error"`, "lower-case letters", `value="Alice!"`)
		if r := alice.Post("/names", url.Values{"name": {"alice"}}); r.Status != http.StatusForbidden {
			t.Errorf("request without the CSRF token = %d, want 403", r.Status)
		}

		r = alice.Post("/names", url.Values{"csrf_token": {alice.Csrf}, "name": {"alice"}, "url": {"https://alice.example"}})
		if r.Status != http.StatusSeeOther || !strings.Contains(r.Header.Get("Location"), "done=name-requested") {
			t.Fatalf("request = %d %s", r.Status, r.Header.Get("Location"))
		}
		page := alice.Get("/names?done=name-requested")
		handlerstest.MustHave(t, page, http.StatusOK, "alice.unverified.cns", `data-testid="names-accept"`, "accept its subscription below")
		req := coin.ContractID(strings.Split(strings.Split(page.Body, `href="/confirm-subscription/`)[1], `"`)[0])
		if _, err := e.W.Subscriptions.AcceptSubscriptionRequest(ctx, alice.Party, req); err != nil {
			t.Fatal(err)
		}
		if _, err := e.W.Subscriptions.CollectSubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		handlerstest.MustHave(t, alice.Get("/names"), http.StatusOK, `data-testid="names-status">Expires `)

		// bob sends to the name: the offer goes to alice.
		if r := bob.Send(url.Values{"receiver": {"alice.unverified.cns"}, "amount": {"1"}, "method": {"offer"}, "expires_hours": {"24"}}); r.Status != http.StatusSeeOther {
			t.Fatalf("send to a name = %d %.400s", r.Status, r.Body)
		}
		in := alice.Pending()["incoming-offers"]
		if len(in) != 1 {
			t.Fatalf("alice's incoming offers = %v", in)
		}
		// bob's offers page shows alice's name beside her party.
		handlerstest.MustHave(t, bob.Get("/offers"), http.StatusOK, `data-testid="party-name">alice.unverified.cns<`)
		// So do bob's outgoing cards on the home page, and alice's own home.
		handlerstest.MustHave(t, bob.Get("/home/outgoing"), http.StatusOK, `data-testid="party-name">alice.unverified.cns<`)
		handlerstest.MustHave(t, alice.Get("/"), http.StatusOK, `data-testid="party-name">alice.unverified.cns<`)
		ledgertest.Conserved(t, e.L)
	})
}
