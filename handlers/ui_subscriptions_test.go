package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
)

// TestUISubscriptions drives the Subscriptions and confirm pages as a
// browser without JavaScript would: the confirm page sends the user back
// only to an origin the request names (never an open redirect), the
// Subscriptions page accepts, rejects and cancels with a message saying
// what happened, and shows the automation's "could not pay" notice.
func TestUISubscriptions(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		ctx := context.Background()
		b := e.browser(t)
		csrf := b.onboarded("alice")
		alice, err := e.l.PartyOf(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		app, err := e.l.Onboard(ctx, "app", "")
		if err != nil {
			t.Fatal(err)
		}
		ledgertest.Mint(t, e.l, alice, "100")
		request := func(what string) string {
			cid, err := e.w.Subscriptions.RequestSubscription(ctx, subscriptions.SubscriptionRequestSpec{
				Sender: alice, Receiver: app, Provider: app, Description: what, Amount: coin.MustParse("45"),
				Interval: 30 * 24 * time.Hour, Duration: 30 * 24 * time.Hour, Origins: []string{"https://app.example.com"},
			})
			if err != nil {
				t.Fatal(err)
			}
			return string(cid)
		}
		first, second, third := request("name one"), request("name two"), request("name three")

		mustHave(t, b.get("/"), http.StatusOK, `data-testid="nav-subscriptions"`)
		mustHave(t, b.get("/subscriptions"), http.StatusOK, `data-testid="subscription-request" data-cid="`+first,
			`action="/subscriptions/`+second+`/accept"`, `href="/confirm-subscription/`+third+`"`, `data-testid="subscription-every">30 days<`,
			`data-testid="subscriptions-empty"`)

		// The confirm page: the app's origin is named, another is refused.
		page := b.get("/confirm-subscription/" + first + "?redirect=" + url.QueryEscape("https://app.example.com/done?ok=1"))
		mustHave(t, page, http.StatusOK, `data-testid="confirm-subscription"`, "name one", `data-testid="confirm-redirect"`,
			`name="redirect" value="https://app.example.com/done?ok=1"`)
		// The browser follows the answer's redirect only if the page's
		// policy lets its forms lead there.
		if csp := page.header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "form-action 'self' https://app.example.com") {
			t.Errorf("confirm page CSP = %q", csp)
		}
		for _, bad := range []string{"https://evil.example.com/x", "javascript:alert(1)", "//evil.example.com/", "https://app.example.com.evil.com/", "http://app.example.com/"} {
			page := b.get("/confirm-subscription/" + first + "?redirect=" + url.QueryEscape(bad))
			mustHave(t, page, http.StatusOK, `data-testid="confirm-redirect-refused"`)
			if strings.Contains(page.body, `name="redirect"`) {
				t.Errorf("%s: the form carries the refused redirect", bad)
			}
			if csp := page.header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "form-action 'self'") {
				t.Errorf("%s: CSP %q", bad, csp)
			}
		}
		// Even posted straight at the form, a foreign redirect is not followed.
		r := b.post("/confirm-subscription/"+first+"/accept", url.Values{"csrf_token": {csrf}, "redirect": {"https://evil.example.com/x"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/confirm-subscription/"+first+"?done=subscription-accept" {
			t.Fatalf("accept with a foreign redirect = %d to %q: %.300s", r.status, r.header.Get("Location"), r.body)
		}
		mustHave(t, b.get(r.header.Get("Location")), http.StatusOK, `data-testid="flash"><p>Subscription accepted`, `data-testid="confirm-answered"`)
		r = b.post("/confirm-subscription/"+second+"/accept", url.Values{"csrf_token": {csrf}, "redirect": {"https://app.example.com/done?ok=1"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "https://app.example.com/done?ok=1" {
			t.Fatalf("accept with the app's redirect = %d to %q: %.300s", r.status, r.header.Get("Location"), r.body)
		}
		if r := b.post("/confirm-subscription/"+second+"/accept", url.Values{"redirect": {"https://app.example.com/"}}); r.status != http.StatusForbidden {
			t.Errorf("accept without the CSRF token = %d, want 403", r.status)
		}
		other := e.browser(t)
		other.onboarded("bob")
		if r := other.get("/confirm-subscription/" + first); r.status != http.StatusNotFound {
			t.Errorf("bob's view of alice's request = %d, want 404", r.status)
		}

		// The Subscriptions page: reject one; the other two wait, then run.
		if r := b.post("/subscriptions/"+third+"/reject", url.Values{"csrf_token": {csrf}}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/subscriptions?done=subscription-reject" {
			t.Fatalf("reject = %d to %q", r.status, r.header.Get("Location"))
		}
		mustHave(t, b.get("/subscriptions?done=subscription-reject"), http.StatusOK, "Subscription request rejected", `data-testid="subscription-requests-empty"`,
			`data-testid="subscription-waiting" data-cid=`)
		if _, err := e.w.Subscriptions.CollectSubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		// Two payments of 45 CC left alice about 10 CC: the next ones,
		// due now, cannot be paid.
		if rep, err := e.w.Subscriptions.PaySubscriptions(ctx); err != nil || rep.Unpaid != 2 {
			t.Fatalf("PaySubscriptions = %+v, %v", rep, err)
		}
		page = b.get("/subscriptions")
		mustHave(t, page, http.StatusOK, `data-testid="subscription" data-cid=`, `data-testid="subscription-next-due"`,
			`data-testid="subscription-unpaid">could not pay subscription `, "payment 45 CC plus fees")
		subs, err := e.w.Subscriptions.Subscriptions(ctx, alice)
		if err != nil || len(subs) != 2 {
			t.Fatalf("subscriptions = %v, %v", subs, err)
		}
		idle := string(subs[0].Idle.ContractID)
		if r := b.post("/subscriptions/"+idle+"/cancel", url.Values{"csrf_token": {csrf}}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/subscriptions?done=subscription-cancel" {
			t.Fatalf("cancel = %d to %q", r.status, r.header.Get("Location"))
		}
		mustHave(t, b.get("/subscriptions?done=subscription-cancel"), http.StatusOK, "Subscription cancelled")
		// Cancelling again: the subscription is gone, said inline.
		r = b.post("/subscriptions/"+idle+"/cancel", url.Values{"csrf_token": {csrf}})
		mustHave(t, r, http.StatusUnprocessableEntity, `data-testid="subscriptions-error"`)
		if r := b.post("/subscriptions/"+idle+"/pay", url.Values{"csrf_token": {csrf}}); r.status != http.StatusNotFound {
			t.Errorf("unknown action = %d, want 404", r.status)
		}
	})
}
