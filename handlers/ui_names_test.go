package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestUINames runs the Names page without JavaScript on both engines: a
// refused request keeps the form and says why; a request (the suffix
// added) lists the name waiting for its subscription, linked to the
// confirm page; once the subscription is accepted and the DSO collects,
// the name shows with its expiry, stands beside alice's party on bob's
// pages (offers, home) and her own home, and bob can send to it by name.
func TestUINames(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		ctx := context.Background()
		alice := e.wallet(t, "alice", "5")
		bob := e.wallet(t, "bob", "5")
		mustHave(t, alice.get("/names"), http.StatusOK, `data-testid="names-empty"`, `data-testid="nav-names"`, `name="csrf_token"`)

		r := alice.post("/names", url.Values{"csrf_token": {alice.csrf}, "name": {"Alice!"}})
		mustHave(t, r, http.StatusUnprocessableEntity, `data-testid="names-error"`, "lower-case letters", `value="Alice!"`)
		if r := alice.post("/names", url.Values{"name": {"alice"}}); r.status != http.StatusForbidden {
			t.Errorf("request without the CSRF token = %d, want 403", r.status)
		}

		r = alice.post("/names", url.Values{"csrf_token": {alice.csrf}, "name": {"alice"}, "url": {"https://alice.example"}})
		if r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), "done=name-requested") {
			t.Fatalf("request = %d %s", r.status, r.header.Get("Location"))
		}
		page := alice.get("/names?done=name-requested")
		mustHave(t, page, http.StatusOK, "alice.unverified.cns", `data-testid="names-accept"`, "accept its subscription below")
		req := coin.ContractID(strings.Split(strings.Split(page.body, `href="/confirm-subscription/`)[1], `"`)[0])
		if _, err := e.w.Subscriptions.AcceptSubscriptionRequest(ctx, alice.party, req); err != nil {
			t.Fatal(err)
		}
		if _, err := e.w.Subscriptions.CollectSubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		mustHave(t, alice.get("/names"), http.StatusOK, `data-testid="names-status">Expires `)

		// bob sends to the name: the offer goes to alice.
		if r := bob.send(url.Values{"receiver": {"alice.unverified.cns"}, "amount": {"1"}, "method": {"offer"}, "expires_hours": {"24"}}); r.status != http.StatusSeeOther {
			t.Fatalf("send to a name = %d %.400s", r.status, r.body)
		}
		in := alice.pending()["incoming-offers"]
		if len(in) != 1 {
			t.Fatalf("alice's incoming offers = %v", in)
		}
		// bob's offers page shows alice's name beside her party.
		mustHave(t, bob.get("/offers"), http.StatusOK, `data-testid="party-name">alice.unverified.cns<`)
		// So do bob's outgoing cards on the home page, and alice's own home.
		mustHave(t, bob.get("/home/outgoing"), http.StatusOK, `data-testid="party-name">alice.unverified.cns<`)
		mustHave(t, alice.get("/"), http.StatusOK, `data-testid="party-name">alice.unverified.cns<`)
		ledgertest.Conserved(t, e.l)
	})
}
