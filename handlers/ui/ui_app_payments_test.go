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
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// TestUIConfirmPayment drives the Payments and confirm-payment pages as a
// browser without JavaScript would: the page shows what the app asks and
// the total with fees; Accept and Reject are plain forms; after an answer
// the user goes back only to a URL of the origin the request names, never
// elsewhere (no open redirect); refusals show inline with 422.
func TestUIConfirmPayment(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		ctx := context.Background()
		alice, err := users.Of(e.L).Onboard(ctx, "alice", "")
		if err != nil {
			t.Fatal(err)
		}
		shop, err := users.Of(e.L).Onboard(ctx, "shop", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := users.Of(e.L).Onboard(ctx, "bob", ""); err != nil {
			t.Fatal(err)
		}
		ledgertest.Mint(t, e.L, alice, "100")
		request := func(amount, desc string) string {
			t.Helper()
			res, err := e.W.AppPayments.RequestAppPayment(ctx, []coin.PartyID{shop}, apppayments.AppPaymentRequest{
				Sender: alice, Provider: shop, ExpiresAt: ledger.FormatTime(time.Now().Add(time.Hour)), Description: desc,
				ReceiverAmounts: []apppayments.ReceiverAmount{{Receiver: shop, Amount: ledger.PaymentAmount{Amount: coin.MustParse(amount), Unit: payments.UnitAmulet}}},
			}, commands.Command{})
			if err != nil {
				t.Fatal(err)
			}
			return string(res.Created)
		}
		b := e.Browser(t)
		b.Login("alice")
		csrf := handlerstest.CSRFOf(t, b.Get("/payments").Body)
		r1, r2, r3 := request("10", "a coffee origin=https://shop.example"), request("5", "a cake origin=https://shop.example"), request("1", "no origin")
		handlerstest.MustHave(t, b.Get("/payments"), http.StatusOK, `data-testid="nav-payments"`, `data-testid="payment-request-row" data-cid="`+r1,
			`href="/confirm-payment/`+r1+`"`, `data-cid="`+r3, `data-testid="accepted-payments-empty"`)

		back := "https://shop.example/thanks?order=7"
		page := b.Get("/confirm-payment/" + r1 + "?redirect=" + url.QueryEscape(back))
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="confirm-description">a coffee<`, `data-testid="confirm-origin">https://shop.example<`,
			`title="10.0000000000 CC"`, `data-testid="confirm-return"`, `name="redirect" value="https://shop.example/thanks?order=7"`,
			`action="/confirm-payment/`+r1+`/accept"`, `name="csrf_token"`)
		// The browser checks form-action on the answer's redirect: the page
		// allows the request's origin, and only when it returns there.
		if csp := page.Header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "form-action 'self' https://shop.example") {
			t.Errorf("confirm page CSP = %q, want form-action to allow https://shop.example", csp)
		}
		evilPage := b.Get("/confirm-payment/" + r1 + "?redirect=" + url.QueryEscape("https://evil.test/"))
		handlerstest.MustHave(t, evilPage, http.StatusOK, `data-testid="confirm-no-return"`)
		if csp := evilPage.Header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "form-action 'self'") {
			t.Errorf("confirm page without a return CSP = %q, want form-action 'self' only", csp)
		}

		answer := func(cid, action, to string) handlerstest.Resp {
			return b.Post("/confirm-payment/"+cid+"/"+action, url.Values{"csrf_token": {csrf}, "redirect": {to}})
		}
		if r := b.Post("/confirm-payment/"+r1+"/accept", url.Values{"redirect": {back}}); r.Status != http.StatusForbidden {
			t.Fatalf("accept without the CSRF token = %d", r.Status)
		}
		// Another origin, or one that only looks like it: the user stays.
		for _, evil := range []string{"https://shop.example.evil.test/", "//evil.test/", "https://shop.example@evil.test/", "http://shop.example/", "/payments"} {
			cid := request("0.1", "a sweet origin=https://shop.example")
			r := answer(cid, "reject", evil)
			if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/confirm-payment/"+cid+"?done=payments-reject" {
				t.Fatalf("reject returning to %q = %d to %q; want the wallet's confirm page", evil, r.Status, r.Header.Get("Location"))
			}
		}
		r := answer(r2, "accept", "https://evil.test/")
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/confirm-payment/"+r2+"?done=payments-accept" {
			t.Fatalf("accept with a foreign return URL = %d to %q; want the wallet's confirm page", r.Status, r.Header.Get("Location"))
		}
		handlerstest.MustHave(t, b.Get("/confirm-payment/"+r2+"?done=payments-accept"), http.StatusOK, "Payment accepted", `data-testid="confirm-answered"`)
		// The origin the request names: back to the app.
		if r := answer(r1, "accept", back); r.Status != http.StatusSeeOther || r.Header.Get("Location") != back {
			t.Fatalf("accept = %d to %q, want %q", r.Status, r.Header.Get("Location"), back)
		}
		bal, err := e.L.Balance(ctx, alice)
		if err != nil || bal.EffectiveLocked.String() != "15.0000000000" || bal.EffectiveUnlocked.String() != "85.0000000000" {
			t.Errorf("after two accepts: %+v, %v", bal, err)
		}
		handlerstest.MustHave(t, b.Get("/payments"), http.StatusOK, `data-testid="accepted-payment-row"`, `data-testid="accepted-total" title="10.0000000000 CC"`)
		handlerstest.MustHave(t, b.Get("/history"), http.StatusOK, `data-subtype="AppPaymentRequest_Accept"`, "App payment accepted (coin locked)")
		// Answered already: inline, 422, nothing more locked.
		handlerstest.MustHave(t, answer(r1, "accept", back), http.StatusUnprocessableEntity, "no longer waiting for your answer")
		// A request naming no origin never redirects.
		if r := answer(r3, "reject", "https://shop.example/"); r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/confirm-payment/"+r3+"?done=payments-reject" {
			t.Fatalf("reject = %d to %q", r.Status, r.Header.Get("Location"))
		}
		handlerstest.MustHave(t, b.Get("/confirm-payment/"+r3+"?done=payments-reject"), http.StatusOK, "Payment request rejected")

		// Too little coin: inline, 422.
		big := request("1000", "a car")
		handlerstest.MustHave(t, answer(big, "accept", ""), http.StatusUnprocessableEntity, `data-testid="confirm-error"`, "Insufficient funds")

		// Someone else's request is not found for bob.
		bob := e.Browser(t)
		bob.Login("bob")
		if r := bob.Get("/confirm-payment/" + big); r.Status != http.StatusNotFound {
			t.Errorf("bob sees alice's request: %d", r.Status)
		}
	})
}
