package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestUISendOfferAcceptRejectWithdraw(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100") // 20000 CC
		bob := e.Wallet(t, "bob", "")
		page := alice.Get("/send")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="nav-send"`, `aria-current="page" data-testid="nav-send"`, `data-testid="method-offer"`,
			`data-testid="method-instruction"`, `data-testid="send-balance">Available: <span class="amt" title="20000.0000000000 CC">20,000.00 CC<`)
		if strings.Contains(page.Body, `data-testid="method-direct"`) {
			t.Error("direct method offered before the receiver is checked")
		}
		if handlerstest.DedupOf(t, page.Body) == handlerstest.DedupOf(t, alice.Get("/send").Body) {
			t.Error("two renders share a dedup id")
		}

		// A double submit of one form creates one offer.
		form := url.Values{"csrf_token": {alice.Csrf}, "dedup_id": {handlerstest.DedupOf(t, page.Body)}, "receiver": {string(bob.Party)},
			"amount": {"100"}, "description": {"lunch"}, "method": {"offer"}, "expires": {"1d"}}
		for i := 0; i < 2; i++ {
			r := alice.Post("/send", form)
			if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/send?done=sent-offer" {
				t.Fatalf("send %d = %d %q: %.300s", i, r.Status, r.Header.Get("Location"), r.Body)
			}
		}
		handlerstest.MustHave(t, alice.Get("/send?done=sent-offer"), http.StatusOK, `data-testid="flash"><p>Transfer offer sent; the receiver can accept it.</p>`)
		offers := bob.Pending()["incoming-offers"]
		if len(offers) != 1 {
			t.Fatalf("bob has %d incoming offers, want 1", len(offers))
		}
		if got := alice.Pending()["outgoing-offers"]; len(got) != 1 || got[0] != offers[0] {
			t.Fatalf("alice's outgoing offers = %v", got)
		}

		// Accept with htmx: the list fragment comes back with the balance.
		r := bob.Do(http.MethodPost, "/offers/"+offers[0]+"/accept", url.Values{"csrf_token": {bob.Csrf}}, map[string]string{"HX-Request": "true"})
		handlerstest.MustHave(t, r, http.StatusOK, `id="transfers-list"`, `hx-swap-oob="true"><p>Offer accepted; the coin is in your wallet.</p>`, `data-testid="transfers-balance" title="100.0000000000 CC">100.00 CC<`,
			`data-testid="incoming-offers-empty"`)
		if strings.Contains(r.Body, "<html") {
			t.Error("htmx answer is a whole page")
		}
		if got := bob.Balance(); got != "100.0000000000" {
			t.Errorf("bob's balance = %s", got)
		}
		if got := alice.Balance(); !strings.HasPrefix(got, "199") {
			t.Errorf("alice's balance = %s, want 20000 - 100 - fees", got)
		}
		handlerstest.MustHave(t, bob.Get("/history"), http.StatusOK, `data-subtype="P2PPaymentCompleted"`, "Transfer offer paid", string(alice.Party), "100.0000000000 CC")
		handlerstest.MustHave(t, alice.Get("/history"), http.StatusOK, `data-subtype="P2PPaymentCompleted"`, string(bob.Party), "-100.")

		// Accepting again: the offer is gone, 422 inline.
		r = bob.Do(http.MethodPost, "/offers/"+offers[0]+"/accept", url.Values{"csrf_token": {bob.Csrf}}, map[string]string{"HX-Request": "true"})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `data-testid="transfers-error"`)
		// Without JavaScript the same error comes as the whole page.
		r = bob.Post("/offers/"+offers[0]+"/accept", url.Values{"csrf_token": {bob.Csrf}})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `<html`, `data-testid="transfers-error"`, `data-testid="nav-offers"`)

		// Reject without JavaScript: 303 back to the list.
		handlerstest.MustSend(t, alice, bob.Party, "5", "offer")
		id := bob.Pending()["incoming-offers"][0]
		if r := bob.Post("/offers/"+id+"/reject", url.Values{"csrf_token": {bob.Csrf}}); r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/offers?done=offers-reject" {
			t.Fatalf("reject = %d %q", r.Status, r.Header.Get("Location"))
		}
		if got := bob.Pending()["incoming-offers"]; len(got) != 0 {
			t.Errorf("rejected offer still listed: %v", got)
		}
		handlerstest.MustHave(t, alice.Get("/history"), http.StatusOK, `data-subtype="TransferOfferRejected"`, "Transfer offer rejected")

		// Withdraw; the receiver cannot withdraw (403), the sender can.
		handlerstest.MustSend(t, alice, bob.Party, "6", "offer")
		id = alice.Pending()["outgoing-offers"][0]
		handlerstest.MustHave(t, bob.Post("/offers/"+id+"/withdraw", url.Values{"csrf_token": {bob.Csrf}}), http.StatusForbidden)
		r = alice.Do(http.MethodPost, "/offers/"+id+"/withdraw", url.Values{"csrf_token": {alice.Csrf}}, map[string]string{"HX-Request": "true"})
		handlerstest.MustHave(t, r, http.StatusOK, `data-testid="flash" hx-swap-oob="true"><p>Offer withdrawn.</p>`, `data-testid="outgoing-offers-empty"`)
		handlerstest.MustHave(t, bob.Do(http.MethodPost, "/offers/"+id+"/bogus", url.Values{"csrf_token": {bob.Csrf}}, nil), http.StatusNotFound)
	})
}

func TestUISendErrors(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "1") // 200 CC
		bob := e.Wallet(t, "bob", "")
		tests := []struct {
			name                                    string
			receiver, amount, method, expires, want string
		}{
			{"no receiver", "", "1", "offer", "1d", "Enter the receiver"},
			{"bad party id", "nobody", "1", "offer", "1d", "No party has the name nobody"},
			{"unknown party", "ghost::1220" + strings.Repeat("ab", 32), "1", "offer", "1d", "is known on this network"},
			{"own party", string(alice.Party), "1", "offer", "1d", "your own party"},
			{"bad amount", string(bob.Party), "lots", "offer", "1d", "is not a number"},
			{"negative amount", string(bob.Party), "-1", "instruction", "1d", "Enter an amount greater than 0."},
			{"bad expiry", string(bob.Party), "1", "offer", "1w", "how long the receiver has to accept: 1 hour, 1 day, 7 days, 30 days"},
			{"no preapproval", string(bob.Party), "1", "direct", "1d", "has not pre-approved"},
			{"insufficient funds", string(bob.Party), "5000", "instruction", "1d", "Insufficient funds"},
			{"offer beyond the balance", string(bob.Party), "5000", "offer", "1d", "more than your available"},
			{"unknown method", string(bob.Party), "1", "mail", "1d", "how to send"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := alice.Send(url.Values{"receiver": {tc.receiver}, "amount": {tc.amount}, "method": {tc.method}, "expires": {tc.expires}})
				handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `data-testid="send-error"`, tc.want, `value="`+tc.amount+`"`)
			})
		}
		if got := alice.Balance(); got != "200.0000000000" {
			t.Errorf("a failed send moved coin: %s", got)
		}
		// The no-JavaScript receiver check re-renders the form, 200.
		r := alice.Post("/send", url.Values{"csrf_token": {alice.Csrf}, "action": {"check"}, "receiver": {string(bob.Party)}, "amount": {"3"}})
		handlerstest.MustHave(t, r, http.StatusOK, `data-testid="no-preapproval"`, `value="3"`)
		handlerstest.MustHave(t, alice.Get("/send/check?receiver=nobody"), http.StatusOK, `data-testid="send-check-error"`)
	})
}

func TestUIPreapprovalAndDirectSend(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100")
		bob := e.Wallet(t, "bob", "")
		handlerstest.MustHave(t, bob.Get("/approvals"), http.StatusOK, `data-testid="preapproval-none"`, `data-testid="preapproval-create"`,
			"Pre-approve incoming direct transfers")
		if r := bob.Post("/preapproval", url.Values{"csrf_token": {bob.Csrf}}); r.Status != http.StatusSeeOther {
			t.Fatalf("create preapproval = %d: %.300s", r.Status, r.Body)
		}
		handlerstest.MustHave(t, bob.Get("/approvals?done=preapproved"), http.StatusOK, `data-testid="preapproval-active"`, `data-testid="flash"><p>Direct transfers pre-approved`)
		// Creating it again keeps the one there is.
		if r := bob.Post("/preapproval", url.Values{"csrf_token": {bob.Csrf}}); r.Status != http.StatusSeeOther {
			t.Fatalf("create preapproval again = %d", r.Status)
		}

		handlerstest.MustHave(t, alice.Get("/send/check?receiver="+url.QueryEscape(string(bob.Party))+"&method=direct"), http.StatusOK,
			`data-testid="method-direct"`, `value="direct" checked`)
		page := alice.Get("/send")
		form := url.Values{"csrf_token": {alice.Csrf}, "dedup_id": {handlerstest.DedupOf(t, page.Body)}, "receiver": {string(bob.Party)},
			"amount": {"42"}, "method": {"direct"}, "description": {"rent"}}
		// A one-step send is shown to confirm first (issue 37).
		handlerstest.MustHave(t, alice.Post("/send", form), http.StatusOK, `data-testid="send-review"`, `data-testid="send-confirm"`)
		form.Set("action", "confirm")
		for i := 0; i < 2; i++ { // a double submit transfers once
			if r := alice.Post("/send", form); r.Status != http.StatusSeeOther {
				t.Fatalf("direct send %d = %d: %.500s", i, r.Status, r.Body)
			}
		}
		if got := bob.Balance(); got != "42.0000000000" {
			t.Errorf("bob's balance = %s, want 42", got)
		}
		handlerstest.MustHave(t, bob.Get("/history"), http.StatusOK, `data-subtype="TransferPreapprovalSend"`, "Direct transfer (preapproved)", string(alice.Party), "42.0000000000 CC", "rent")
	})
}

func TestUIInstructionWithdrawAndAccept(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100")
		bob := e.Wallet(t, "bob", "")
		handlerstest.MustSend(t, alice, bob.Party, "300", "instruction")
		if got := alice.Balance(); !strings.HasPrefix(got, "19700") && !strings.HasPrefix(got, "196") {
			t.Errorf("alice's unlocked balance = %s after locking 300", got)
		}
		id := alice.Pending()["outgoing-instructions"]
		if len(id) != 1 || len(bob.Pending()["incoming-instructions"]) != 1 {
			t.Fatalf("instructions: alice %v, bob %v", id, bob.Pending())
		}
		r := alice.Do(http.MethodPost, "/instructions/"+id[0]+"/withdraw", url.Values{"csrf_token": {alice.Csrf}}, map[string]string{"HX-Request": "true"})
		handlerstest.MustHave(t, r, http.StatusOK, `hx-swap-oob="true"><p>Transfer instruction withdrawn; the coin is yours again.</p>`, `data-testid="outgoing-instructions-empty"`)
		if r.Header.Get("HX-Trigger") != "wallet-changed" {
			t.Errorf("HX-Trigger = %q", r.Header.Get("HX-Trigger"))
		}
		handlerstest.MustHave(t, alice.Get("/history"), http.StatusOK, `data-subtype="CreateTokenStandardTransferInstruction"`, "Transfer instruction sent",
			`data-subtype="TransferInstruction_Withdraw"`, string(bob.Party))

		handlerstest.MustSend(t, alice, bob.Party, "7", "instruction")
		id = bob.Pending()["incoming-instructions"]
		if r := bob.Post("/instructions/"+id[0]+"/accept", url.Values{"csrf_token": {bob.Csrf}}); r.Status != http.StatusSeeOther {
			t.Fatalf("accept = %d: %.300s", r.Status, r.Body)
		}
		if got := bob.Balance(); got != "7.0000000000" {
			t.Errorf("bob's balance = %s", got)
		}
		handlerstest.MustHave(t, bob.Get("/history"), http.StatusOK, "Transfer instruction accepted", "7.0000000000 CC")
	})
}

func TestUITraffic(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100")
		page := alice.Get("/traffic")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="traffic-form"`, `data-testid="traffic-status"`, string(e.L.Operator()))
		tests := []struct {
			name, member, amount, unit, want string
		}{
			{"below minimum", string(alice.Party), "1000", "bytes", "The minimum traffic purchase is 200,000 bytes (about 667 CC)."},
			{"not a number", string(alice.Party), "lots", "bytes", "whole number of bytes"},
			{"bad coin amount", string(alice.Party), "-3", "cc", "Enter an amount of CC greater than 0."},
			{"unknown member", "ghost::1220" + strings.Repeat("ab", 32), "200000", "bytes", "is known on this network"},
			{"no member", "", "200000", "bytes", "Enter a party ID"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := alice.Post("/traffic", url.Values{"csrf_token": {alice.Csrf}, "step": {"quote"}, "member": {tc.member}, "amount": {tc.amount}, "unit": {tc.unit}})
				handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `data-testid="traffic-error"`, tc.want)
			})
		}
		// 200000 bytes at 16.67 USD/MB is 3.334 USD, 666.8 CC at 0.005 USD.
		q := alice.Post("/traffic", url.Values{"csrf_token": {alice.Csrf}, "step": {"quote"}, "member": {string(e.L.Operator())}, "amount": {"200000"}, "unit": {"bytes"}})
		handlerstest.MustHave(t, q, http.StatusOK, `data-testid="traffic-confirm"`, `data-testid="traffic-cost-cc" title="666.8000000000 CC">666.80 CC<`,
			`data-testid="traffic-cost-usd" title="3.3340000000 USD" tabindex="0"><span class="amt-short" aria-hidden="true">3.33</span><span class="amt-full">3.334</span> USD<`)
		// In CC: 700 CC buys the most bytes costing at most 700 CC.
		qc := alice.Post("/traffic", url.Values{"csrf_token": {alice.Csrf}, "step": {"quote"}, "member": {string(alice.Party)}, "amount": {"700"}, "unit": {"cc"}})
		handlerstest.MustHave(t, qc, http.StatusOK, `name="amount" value="209958"`)
		tracking := regexp.MustCompile(`name="tracking_id" value="([^"]+)"`).FindStringSubmatch(q.Body)[1]
		confirm := url.Values{"csrf_token": {alice.Csrf}, "step": {"confirm"}, "member": {string(e.L.Operator())}, "amount": {"200000"}, "unit": {"bytes"}, "tracking_id": {tracking}}
		for i := 0; i < 2; i++ { // a double submit buys once
			if r := alice.Post("/traffic", confirm); r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/traffic?tracking="+tracking+"&done=traffic-bought" {
				t.Fatalf("confirm %d = %d %q: %.300s", i, r.Status, r.Header.Get("Location"), r.Body)
			}
		}
		handlerstest.MustHave(t, alice.Get("/traffic?tracking="+tracking), http.StatusOK, `data-testid="traffic-request-status">completed`, "200,000 bytes bought")
		if got := alice.Balance(); got != "19333.2000000000" {
			t.Errorf("alice's balance = %s, want 20000 - 666.8", got)
		}
		handlerstest.MustHave(t, alice.Get("/history"), http.StatusOK, `data-subtype="ExtraTrafficPurchase"`, "Traffic bought", "-666.8")
	})
}

func TestUIMergeDelegation(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "")
		page := alice.Get("/approvals")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="merge-delegation"`)
		if strings.Contains(page.Body, `data-testid="merge-none"`) {
			if r := alice.Post("/merge-delegation", url.Values{"csrf_token": {alice.Csrf}}); r.Status != http.StatusSeeOther {
				t.Fatalf("propose = %d: %.300s", r.Status, r.Body)
			}
		}
		handlerstest.MustHave(t, alice.Get("/approvals"), http.StatusOK, `data-testid="merge-proposed"`)
		if _, err := delegations.New(e.L).AcceptMergeDelegations(context.Background()); err != nil {
			t.Fatal(err)
		}
		handlerstest.MustHave(t, alice.Get("/approvals"), http.StatusOK, `data-testid="merge-active"`)
		// A second proposal while one is active is a conflict, shown inline.
		handlerstest.MustHave(t, alice.Post("/merge-delegation", url.Values{"csrf_token": {alice.Csrf}}), http.StatusUnprocessableEntity,
			`data-testid="delegations-error"`, "already has an active merge delegation")
	})
}

func TestUIAdminJobsAndMerges(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			last := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			next := last.Add(time.Minute)
			e := handlerstest.NewUIEnv(t, engine, handlers.JobStatus{Name: "merge-holdings", Schedule: "every 1m0s", LastRun: &last, NextRun: &next,
				LastDurationMS: 1500, LastError: "database is busy"}, handlers.JobStatus{Name: "expire-offers", Schedule: "every 10s"},
				handlers.JobStatus{Name: "round-clock", Schedule: "every 1m0s", About: "a new mining round opens every 10 minutes"})
			alice := e.Wallet(t, "alice", "")
			if _, err := delegations.New(e.L).ProposeMergeDelegation(context.Background(), alice.Party); err != nil {
				t.Fatal(err)
			}
			if _, err := delegations.New(e.L).AcceptMergeDelegations(context.Background()); err != nil {
				t.Fatal(err)
			}
			amounts := make([]coin.Amount, 12)
			for i := range amounts {
				amounts[i] = coin.FromInt(1)
			}
			if err := ledgertest.Dev(t, e.L).MintBulk(context.Background(), alice.Party, amounts); err != nil {
				t.Fatal(err)
			}
			admin := e.Browser(t)
			admin.Login("admin")
			handlerstest.MustHave(t, admin.Get("/admin"), http.StatusOK, `data-name="merge-holdings"`, "every 1m0s", "2026-01-02 03:04:05 UTC",
				"2026-01-02 03:05:05 UTC", "1.5s", "database is busy", `data-name="expire-offers"`, `data-testid="merge-row"`, string(alice.Party),
				`<span data-testid="automation-about">a new mining round opens every 10 minutes</span><div class="muted">checks every 1m0s</div>`)
		})
	}
}

func TestUINewFormsRefuseCSRF(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "")
		cid := string(coin.NewContractID())
		for _, p := range []string{"/send", "/offers/" + cid + "/accept", "/instructions/" + cid + "/withdraw", "/preapproval",
			"/merge-delegation", "/traffic", "/allocations/" + cid + "/allocate"} {
			for name, form := range map[string]url.Values{"no token": {}, "wrong token": {"csrf_token": {"x" + alice.Csrf}}} {
				if r := alice.Post(p, form); r.Status != http.StatusForbidden {
					t.Errorf("POST %s with %s = %d, want 403", p, name, r.Status)
				}
			}
		}
		// Logged out, the new pages go to the login.
		b := e.Browser(t)
		for _, p := range []string{"/send", "/offers", "/approvals", "/traffic", "/allocations"} {
			if r := b.Get(p); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/login?next=") {
				t.Errorf("GET %s logged out = %d %q", p, r.Status, r.Header.Get("Location"))
			}
		}
	})
}

func TestUIFeaturedAppRight(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "")
		handlerstest.MustHave(t, alice.Get("/approvals"), http.StatusOK, `data-testid="featured-none"`, `data-testid="featured-grant"`)
		if r := alice.Post("/featured-app-right", url.Values{"csrf_token": {alice.Csrf}, "action": {"grant"}}); r.Status != http.StatusSeeOther {
			t.Fatalf("grant = %d: %.300s", r.Status, r.Body)
		}
		handlerstest.MustHave(t, alice.Get("/approvals?done=featured-grant"), http.StatusOK, `data-testid="featured-active"`,
			`data-testid="featured-cancel"`, "Your party is now a featured app provider.")
		if f, err := featured.New(e.L).IsFeatured(context.Background(), alice.Party); err != nil || !f {
			t.Fatalf("alice featured after the grant = %v, %v", f, err)
		}
		handlerstest.MustHave(t, alice.Get("/history"), http.StatusOK, "Featured app right granted")
		if r := alice.Post("/featured-app-right", url.Values{"csrf_token": {alice.Csrf}, "action": {"cancel"}}); r.Status != http.StatusSeeOther {
			t.Fatalf("cancel = %d: %.300s", r.Status, r.Body)
		}
		handlerstest.MustHave(t, alice.Get("/approvals"), http.StatusOK, `data-testid="featured-none"`)
		handlerstest.MustHave(t, alice.Post("/featured-app-right", url.Values{"csrf_token": {alice.Csrf}, "action": {"steal"}}),
			http.StatusUnprocessableEntity, `data-testid="delegations-error"`, "nknown action: choose grant or cancel")
		// Without the CSRF token nothing is granted.
		if r := alice.Post("/featured-app-right", url.Values{"action": {"grant"}}); r.Status != http.StatusForbidden {
			t.Errorf("grant without CSRF = %d", r.Status)
		}
		if f, _ := featured.New(e.L).IsFeatured(context.Background(), alice.Party); f {
			t.Error("a form without CSRF token granted the right")
		}
	})
}
