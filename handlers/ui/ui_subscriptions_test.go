package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// TestUISubscriptions drives the Subscriptions and confirm pages as a
// browser without JavaScript would: the confirm page sends the user back
// only to an origin the request names (never an open redirect), the
// Subscriptions page accepts, rejects and cancels with a message saying
// what happened, and shows the automation's "could not pay" notice.
func TestUISubscriptions(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		ctx := context.Background()
		b := e.Browser(t)
		csrf := b.Onboarded("alice")
		alice, err := users.Of(e.L).PartyOf(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		app, err := users.Of(e.L).Onboard(ctx, "app", "")
		if err != nil {
			t.Fatal(err)
		}
		ledgertest.Mint(t, e.L, alice, "100")
		request := func(what string) string {
			cid, err := e.W.Subscriptions.RequestSubscription(ctx, subscriptions.SubscriptionRequestSpec{
				Sender: alice, Receiver: app, Provider: app, Description: what, Amount: coin.MustParse("45"),
				Interval: 30 * 24 * time.Hour, Duration: 30 * 24 * time.Hour, Origins: []string{"https://app.example.com"},
			})
			if err != nil {
				t.Fatal(err)
			}
			return string(cid)
		}
		first, second, third := request("name one"), request("name two"), request("name three")

		handlerstest.MustHave(t, b.Get("/"), http.StatusOK, `data-testid="nav-subscriptions"`)
		handlerstest.MustHave(t, b.Get("/subscriptions"), http.StatusOK, `data-testid="subscription-request" data-cid="`+first,
			`action="/subscriptions/`+second+`/accept"`, `href="/confirm-subscription/`+third+`"`, `data-testid="subscription-every">30 days<`,
			`data-testid="subscriptions-empty"`)

		// The confirm page: the app's origin is named, another is refused.
		page := b.Get("/confirm-subscription/" + first + "?redirect=" + url.QueryEscape("https://app.example.com/done?ok=1"))
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="confirm-subscription"`, "name one", `data-testid="confirm-redirect"`,
			`name="redirect" value="https://app.example.com/done?ok=1"`)
		// The browser follows the answer's redirect only if the page's
		// policy lets its forms lead there.
		if csp := page.Header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "form-action 'self' https://app.example.com") {
			t.Errorf("confirm page CSP = %q", csp)
		}
		for _, bad := range []string{"https://evil.example.com/x", "javascript:alert(1)", "//evil.example.com/", "https://app.example.com.evil.com/", "http://app.example.com/"} {
			page := b.Get("/confirm-subscription/" + first + "?redirect=" + url.QueryEscape(bad))
			handlerstest.MustHave(t, page, http.StatusOK, `data-testid="confirm-redirect-refused"`)
			if strings.Contains(page.Body, `name="redirect"`) {
				t.Errorf("%s: the form carries the refused redirect", bad)
			}
			if csp := page.Header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "form-action 'self'") {
				t.Errorf("%s: CSP %q", bad, csp)
			}
		}
		// Even posted straight at the form, a foreign redirect is not followed.
		r := b.Post("/confirm-subscription/"+first+"/accept", url.Values{"csrf_token": {csrf}, "redirect": {"https://evil.example.com/x"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/confirm-subscription/"+first+"?done=subscription-accept" {
			t.Fatalf("accept with a foreign redirect = %d to %q: %.300s", r.Status, r.Header.Get("Location"), r.Body)
		}
		handlerstest.MustHave(t, b.Get(r.Header.Get("Location")), http.StatusOK, `data-testid="flash"><p>Subscription accepted`, `data-testid="confirm-answered"`)
		r = b.Post("/confirm-subscription/"+second+"/accept", url.Values{"csrf_token": {csrf}, "redirect": {"https://app.example.com/done?ok=1"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "https://app.example.com/done?ok=1" {
			t.Fatalf("accept with the app's redirect = %d to %q: %.300s", r.Status, r.Header.Get("Location"), r.Body)
		}
		if r := b.Post("/confirm-subscription/"+second+"/accept", url.Values{"redirect": {"https://app.example.com/"}}); r.Status != http.StatusForbidden {
			t.Errorf("accept without the CSRF token = %d, want 403", r.Status)
		}
		other := e.Browser(t)
		other.Onboarded("bob")
		if r := other.Get("/confirm-subscription/" + first); r.Status != http.StatusNotFound {
			t.Errorf("bob's view of alice's request = %d, want 404", r.Status)
		}

		// The Subscriptions page: reject one; the other two wait, then run.
		if r := b.Post("/subscriptions/"+third+"/reject", url.Values{"csrf_token": {csrf}}); r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/subscriptions?done=subscription-reject" {
			t.Fatalf("reject = %d to %q", r.Status, r.Header.Get("Location"))
		}
		handlerstest.MustHave(t, b.Get("/subscriptions?done=subscription-reject"), http.StatusOK, "Subscription request rejected", `data-testid="subscription-requests-empty"`,
			`data-testid="subscription-waiting" data-cid=`)
		if _, err := e.W.Subscriptions.CollectSubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		// Two payments of 45 CC left alice about 10 CC: the next ones,
		// due now, cannot be paid.
		if rep, err := e.W.Subscriptions.PaySubscriptions(ctx); err != nil || rep.Unpaid != 2 {
			t.Fatalf("PaySubscriptions = %+v, %v", rep, err)
		}
		page = b.Get("/subscriptions")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="subscription" data-cid=`, `data-testid="subscription-next-due"`,
			`data-testid="subscription-unpaid">could not pay subscription `, "payment 45 CC plus fees")
		subs, err := e.W.Subscriptions.Subscriptions(ctx, alice)
		if err != nil || len(subs) != 2 {
			t.Fatalf("subscriptions = %v, %v", subs, err)
		}
		idle := string(subs[0].Idle.ContractID)
		if r := b.Post("/subscriptions/"+idle+"/cancel", url.Values{"csrf_token": {csrf}}); r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/subscriptions?done=subscription-cancel" {
			t.Fatalf("cancel = %d to %q", r.Status, r.Header.Get("Location"))
		}
		handlerstest.MustHave(t, b.Get("/subscriptions?done=subscription-cancel"), http.StatusOK, "Subscription cancelled")
		// Cancelling again: the subscription is gone, said inline.
		r = b.Post("/subscriptions/"+idle+"/cancel", url.Values{"csrf_token": {csrf}})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `data-testid="subscriptions-error"`)
		if r := b.Post("/subscriptions/"+idle+"/pay", url.Values{"csrf_token": {csrf}}); r.Status != http.StatusNotFound {
			t.Errorf("unknown action = %d, want 404", r.Status)
		}
	})
}
