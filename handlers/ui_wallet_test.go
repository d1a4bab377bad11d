package handlers_test

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
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

var dedupRe = regexp.MustCompile(`name="dedup_id" value="([^"]+)"`)

// dedupOf is the send form's dedup id.
func dedupOf(t *testing.T, page string) string {
	t.Helper()
	m := dedupRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no dedup id in page: %.300s", page)
	}
	return m[1]
}

// wallet is an onboarded user of the UI tests.
type wallet struct {
	*browser
	csrf  string
	party coin.PartyID
}

func (e *uiEnv) wallet(t *testing.T, user, usd string) *wallet {
	t.Helper()
	b := e.browser(t)
	csrf := b.onboarded(user)
	p, err := e.l.PartyOf(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	if usd != "" {
		if r := b.post("/tap", url.Values{"csrf_token": {csrf}, "amount": {usd}}); r.status != http.StatusSeeOther {
			t.Fatalf("tap = %d", r.status)
		}
	}
	return &wallet{browser: b, csrf: csrf, party: p}
}

func (w *wallet) balance() string {
	w.t.Helper()
	b, err := w.env.l.Balance(context.Background(), w.party)
	if err != nil {
		w.t.Fatal(err)
	}
	return b.EffectiveUnlocked.String()
}

// send posts the send form as a fresh render of it would.
func (w *wallet) send(form url.Values) resp {
	w.t.Helper()
	page := w.get("/send")
	mustHave(w.t, page, http.StatusOK, `data-testid="send-form"`)
	form.Set("csrf_token", w.csrf)
	form.Set("dedup_id", dedupOf(w.t, page.body))
	return w.post("/send", form)
}

var cidRe = regexp.MustCompile(`data-testid="([a-z-]+)-row" data-cid="([^"]+)"`)

// pending is the contract ids on the offers page by list.
func (w *wallet) pending() map[string][]string {
	w.t.Helper()
	r := w.get("/offers")
	mustHave(w.t, r, http.StatusOK, `data-testid="transfers-list"`)
	return groupIDs(cidRe, r.body)
}

// groupIDs groups the second submatches of re in body by the first.
func groupIDs(re *regexp.Regexp, body string) map[string][]string {
	out := map[string][]string{}
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out[m[1]] = append(out[m[1]], m[2])
	}
	return out
}

func TestUISendOfferAcceptRejectWithdraw(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		alice := e.wallet(t, "alice", "100") // 20000 CC
		bob := e.wallet(t, "bob", "")
		page := alice.get("/send")
		mustHave(t, page, http.StatusOK, `data-testid="nav-send"`, `aria-current="page" data-testid="nav-send"`, `data-testid="method-offer"`,
			`data-testid="method-instruction"`, `data-testid="send-balance">Available: <span class="amt" title="20000.0000000000 CC">20,000.00 CC<`)
		if strings.Contains(page.body, `data-testid="method-direct"`) {
			t.Error("direct method offered before the receiver is checked")
		}
		if dedupOf(t, page.body) == dedupOf(t, alice.get("/send").body) {
			t.Error("two renders share a dedup id")
		}

		// A double submit of one form creates one offer.
		form := url.Values{"csrf_token": {alice.csrf}, "dedup_id": {dedupOf(t, page.body)}, "receiver": {string(bob.party)},
			"amount": {"100"}, "description": {"lunch"}, "method": {"offer"}, "expires": {"1d"}}
		for i := 0; i < 2; i++ {
			r := alice.post("/send", form)
			if r.status != http.StatusSeeOther || r.header.Get("Location") != "/send?done=sent-offer" {
				t.Fatalf("send %d = %d %q: %.300s", i, r.status, r.header.Get("Location"), r.body)
			}
		}
		mustHave(t, alice.get("/send?done=sent-offer"), http.StatusOK, `data-testid="flash"><p>Transfer offer sent; the receiver can accept it.</p>`)
		offers := bob.pending()["incoming-offers"]
		if len(offers) != 1 {
			t.Fatalf("bob has %d incoming offers, want 1", len(offers))
		}
		if got := alice.pending()["outgoing-offers"]; len(got) != 1 || got[0] != offers[0] {
			t.Fatalf("alice's outgoing offers = %v", got)
		}

		// Accept with htmx: the list fragment comes back with the balance.
		r := bob.do(http.MethodPost, "/offers/"+offers[0]+"/accept", url.Values{"csrf_token": {bob.csrf}}, map[string]string{"HX-Request": "true"})
		mustHave(t, r, http.StatusOK, `id="transfers-list"`, `hx-swap-oob="true"><p>Offer accepted; the coin is in your wallet.</p>`, `data-testid="transfers-balance" title="100.0000000000 CC">100.00 CC<`,
			`data-testid="incoming-offers-empty"`)
		if strings.Contains(r.body, "<html") {
			t.Error("htmx answer is a whole page")
		}
		if got := bob.balance(); got != "100.0000000000" {
			t.Errorf("bob's balance = %s", got)
		}
		if got := alice.balance(); !strings.HasPrefix(got, "199") {
			t.Errorf("alice's balance = %s, want 20000 - 100 - fees", got)
		}
		mustHave(t, bob.get("/history"), http.StatusOK, `data-subtype="P2PPaymentCompleted"`, "Transfer offer paid", string(alice.party), "100.0000000000 CC")
		mustHave(t, alice.get("/history"), http.StatusOK, `data-subtype="P2PPaymentCompleted"`, string(bob.party), "-100.")

		// Accepting again: the offer is gone, 422 inline.
		r = bob.do(http.MethodPost, "/offers/"+offers[0]+"/accept", url.Values{"csrf_token": {bob.csrf}}, map[string]string{"HX-Request": "true"})
		mustHave(t, r, http.StatusUnprocessableEntity, `data-testid="transfers-error"`)
		// Without JavaScript the same error comes as the whole page.
		r = bob.post("/offers/"+offers[0]+"/accept", url.Values{"csrf_token": {bob.csrf}})
		mustHave(t, r, http.StatusUnprocessableEntity, `<html`, `data-testid="transfers-error"`, `data-testid="nav-offers"`)

		// Reject without JavaScript: 303 back to the list.
		mustSend(t, alice, bob.party, "5", "offer")
		id := bob.pending()["incoming-offers"][0]
		if r := bob.post("/offers/"+id+"/reject", url.Values{"csrf_token": {bob.csrf}}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/offers?done=offers-reject" {
			t.Fatalf("reject = %d %q", r.status, r.header.Get("Location"))
		}
		if got := bob.pending()["incoming-offers"]; len(got) != 0 {
			t.Errorf("rejected offer still listed: %v", got)
		}
		mustHave(t, alice.get("/history"), http.StatusOK, `data-subtype="TransferOfferRejected"`, "Transfer offer rejected")

		// Withdraw; the receiver cannot withdraw (403), the sender can.
		mustSend(t, alice, bob.party, "6", "offer")
		id = alice.pending()["outgoing-offers"][0]
		mustHave(t, bob.post("/offers/"+id+"/withdraw", url.Values{"csrf_token": {bob.csrf}}), http.StatusForbidden)
		r = alice.do(http.MethodPost, "/offers/"+id+"/withdraw", url.Values{"csrf_token": {alice.csrf}}, map[string]string{"HX-Request": "true"})
		mustHave(t, r, http.StatusOK, `data-testid="flash" hx-swap-oob="true"><p>Offer withdrawn.</p>`, `data-testid="outgoing-offers-empty"`)
		mustHave(t, bob.do(http.MethodPost, "/offers/"+id+"/bogus", url.Values{"csrf_token": {bob.csrf}}, nil), http.StatusNotFound)
	})
}

func mustSend(t *testing.T, w *wallet, to coin.PartyID, amount, method string) {
	t.Helper()
	r := w.send(url.Values{"receiver": {string(to)}, "amount": {amount}, "method": {method}, "expires": {"1d"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("send %s %s = %d: %.500s", method, amount, r.status, r.body)
	}
}

func TestUISendErrors(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		alice := e.wallet(t, "alice", "1") // 200 CC
		bob := e.wallet(t, "bob", "")
		tests := []struct {
			name                                    string
			receiver, amount, method, expires, want string
		}{
			{"no receiver", "", "1", "offer", "1d", "Enter the receiver"},
			{"bad party id", "nobody", "1", "offer", "1d", "No party has the name nobody"},
			{"unknown party", "ghost::1220" + strings.Repeat("ab", 32), "1", "offer", "1d", "is known on this network"},
			{"own party", string(alice.party), "1", "offer", "1d", "your own party"},
			{"bad amount", string(bob.party), "lots", "offer", "1d", "is not a number"},
			{"negative amount", string(bob.party), "-1", "instruction", "1d", "Enter an amount greater than 0."},
			{"bad expiry", string(bob.party), "1", "offer", "1w", "how long the receiver has to accept: 1 hour, 1 day, 7 days, 30 days"},
			{"no preapproval", string(bob.party), "1", "direct", "1d", "has not pre-approved"},
			{"insufficient funds", string(bob.party), "5000", "instruction", "1d", "Insufficient funds"},
			{"offer beyond the balance", string(bob.party), "5000", "offer", "1d", "more than your available"},
			{"unknown method", string(bob.party), "1", "mail", "1d", "how to send"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := alice.send(url.Values{"receiver": {tc.receiver}, "amount": {tc.amount}, "method": {tc.method}, "expires": {tc.expires}})
				mustHave(t, r, http.StatusUnprocessableEntity, `data-testid="send-error"`, tc.want, `value="`+tc.amount+`"`)
			})
		}
		if got := alice.balance(); got != "200.0000000000" {
			t.Errorf("a failed send moved coin: %s", got)
		}
		// The no-JavaScript receiver check re-renders the form, 200.
		r := alice.post("/send", url.Values{"csrf_token": {alice.csrf}, "action": {"check"}, "receiver": {string(bob.party)}, "amount": {"3"}})
		mustHave(t, r, http.StatusOK, `data-testid="no-preapproval"`, `value="3"`)
		mustHave(t, alice.get("/send/check?receiver=nobody"), http.StatusOK, `data-testid="send-check-error"`)
	})
}

func TestUIPreapprovalAndDirectSend(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		alice := e.wallet(t, "alice", "100")
		bob := e.wallet(t, "bob", "")
		mustHave(t, bob.get("/approvals"), http.StatusOK, `data-testid="preapproval-none"`, `data-testid="preapproval-create"`,
			"Pre-approve incoming direct transfers")
		if r := bob.post("/preapproval", url.Values{"csrf_token": {bob.csrf}}); r.status != http.StatusSeeOther {
			t.Fatalf("create preapproval = %d: %.300s", r.status, r.body)
		}
		mustHave(t, bob.get("/approvals?done=preapproved"), http.StatusOK, `data-testid="preapproval-active"`, `data-testid="flash"><p>Direct transfers pre-approved`)
		// Creating it again keeps the one there is.
		if r := bob.post("/preapproval", url.Values{"csrf_token": {bob.csrf}}); r.status != http.StatusSeeOther {
			t.Fatalf("create preapproval again = %d", r.status)
		}

		mustHave(t, alice.get("/send/check?receiver="+url.QueryEscape(string(bob.party))+"&method=direct"), http.StatusOK,
			`data-testid="method-direct"`, `value="direct" checked`)
		page := alice.get("/send")
		form := url.Values{"csrf_token": {alice.csrf}, "dedup_id": {dedupOf(t, page.body)}, "receiver": {string(bob.party)},
			"amount": {"42"}, "method": {"direct"}, "description": {"rent"}}
		// A one-step send is shown to confirm first (issue 37).
		mustHave(t, alice.post("/send", form), http.StatusOK, `data-testid="send-review"`, `data-testid="send-confirm"`)
		form.Set("action", "confirm")
		for i := 0; i < 2; i++ { // a double submit transfers once
			if r := alice.post("/send", form); r.status != http.StatusSeeOther {
				t.Fatalf("direct send %d = %d: %.500s", i, r.status, r.body)
			}
		}
		if got := bob.balance(); got != "42.0000000000" {
			t.Errorf("bob's balance = %s, want 42", got)
		}
		mustHave(t, bob.get("/history"), http.StatusOK, `data-subtype="TransferPreapprovalSend"`, "Direct transfer (preapproved)", string(alice.party), "42.0000000000 CC", "rent")
	})
}

func TestUIInstructionWithdrawAndAccept(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		alice := e.wallet(t, "alice", "100")
		bob := e.wallet(t, "bob", "")
		mustSend(t, alice, bob.party, "300", "instruction")
		if got := alice.balance(); !strings.HasPrefix(got, "19700") && !strings.HasPrefix(got, "196") {
			t.Errorf("alice's unlocked balance = %s after locking 300", got)
		}
		id := alice.pending()["outgoing-instructions"]
		if len(id) != 1 || len(bob.pending()["incoming-instructions"]) != 1 {
			t.Fatalf("instructions: alice %v, bob %v", id, bob.pending())
		}
		r := alice.do(http.MethodPost, "/instructions/"+id[0]+"/withdraw", url.Values{"csrf_token": {alice.csrf}}, map[string]string{"HX-Request": "true"})
		mustHave(t, r, http.StatusOK, `hx-swap-oob="true"><p>Transfer instruction withdrawn; the coin is yours again.</p>`, `data-testid="outgoing-instructions-empty"`)
		if r.header.Get("HX-Trigger") != "wallet-changed" {
			t.Errorf("HX-Trigger = %q", r.header.Get("HX-Trigger"))
		}
		mustHave(t, alice.get("/history"), http.StatusOK, `data-subtype="CreateTokenStandardTransferInstruction"`, "Transfer instruction sent",
			`data-subtype="TransferInstruction_Withdraw"`, string(bob.party))

		mustSend(t, alice, bob.party, "7", "instruction")
		id = bob.pending()["incoming-instructions"]
		if r := bob.post("/instructions/"+id[0]+"/accept", url.Values{"csrf_token": {bob.csrf}}); r.status != http.StatusSeeOther {
			t.Fatalf("accept = %d: %.300s", r.status, r.body)
		}
		if got := bob.balance(); got != "7.0000000000" {
			t.Errorf("bob's balance = %s", got)
		}
		mustHave(t, bob.get("/history"), http.StatusOK, "Transfer instruction accepted", "7.0000000000 CC")
	})
}

func TestUITraffic(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		alice := e.wallet(t, "alice", "100")
		page := alice.get("/traffic")
		mustHave(t, page, http.StatusOK, `data-testid="traffic-form"`, `data-testid="traffic-status"`, string(e.l.Operator()))
		tests := []struct {
			name, member, amount, unit, want string
		}{
			{"below minimum", string(alice.party), "1000", "bytes", "The minimum traffic purchase is 200,000 bytes (about 667 CC)."},
			{"not a number", string(alice.party), "lots", "bytes", "whole number of bytes"},
			{"bad coin amount", string(alice.party), "-3", "cc", "Enter an amount of CC greater than 0."},
			{"unknown member", "ghost::1220" + strings.Repeat("ab", 32), "200000", "bytes", "is known on this network"},
			{"no member", "", "200000", "bytes", "Enter a party ID"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := alice.post("/traffic", url.Values{"csrf_token": {alice.csrf}, "step": {"quote"}, "member": {tc.member}, "amount": {tc.amount}, "unit": {tc.unit}})
				mustHave(t, r, http.StatusUnprocessableEntity, `data-testid="traffic-error"`, tc.want)
			})
		}
		// 200000 bytes at 16.67 USD/MB is 3.334 USD, 666.8 CC at 0.005 USD.
		q := alice.post("/traffic", url.Values{"csrf_token": {alice.csrf}, "step": {"quote"}, "member": {string(e.l.Operator())}, "amount": {"200000"}, "unit": {"bytes"}})
		mustHave(t, q, http.StatusOK, `data-testid="traffic-confirm"`, `data-testid="traffic-cost-cc" title="666.8000000000 CC">666.80 CC<`,
			`data-testid="traffic-cost-usd" title="3.3340000000 USD" tabindex="0"><span class="amt-short" aria-hidden="true">3.33</span><span class="amt-full">3.334</span> USD<`)
		// In CC: 700 CC buys the most bytes costing at most 700 CC.
		qc := alice.post("/traffic", url.Values{"csrf_token": {alice.csrf}, "step": {"quote"}, "member": {string(alice.party)}, "amount": {"700"}, "unit": {"cc"}})
		mustHave(t, qc, http.StatusOK, `name="amount" value="209958"`)
		tracking := regexp.MustCompile(`name="tracking_id" value="([^"]+)"`).FindStringSubmatch(q.body)[1]
		confirm := url.Values{"csrf_token": {alice.csrf}, "step": {"confirm"}, "member": {string(e.l.Operator())}, "amount": {"200000"}, "unit": {"bytes"}, "tracking_id": {tracking}}
		for i := 0; i < 2; i++ { // a double submit buys once
			if r := alice.post("/traffic", confirm); r.status != http.StatusSeeOther || r.header.Get("Location") != "/traffic?tracking="+tracking+"&done=traffic-bought" {
				t.Fatalf("confirm %d = %d %q: %.300s", i, r.status, r.header.Get("Location"), r.body)
			}
		}
		mustHave(t, alice.get("/traffic?tracking="+tracking), http.StatusOK, `data-testid="traffic-request-status">completed`, "200,000 bytes bought")
		if got := alice.balance(); got != "19333.2000000000" {
			t.Errorf("alice's balance = %s, want 20000 - 666.8", got)
		}
		mustHave(t, alice.get("/history"), http.StatusOK, `data-subtype="ExtraTrafficPurchase"`, "Traffic bought", "-666.8")
	})
}

func TestUIMergeDelegation(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		alice := e.wallet(t, "alice", "")
		page := alice.get("/approvals")
		mustHave(t, page, http.StatusOK, `data-testid="merge-delegation"`)
		if strings.Contains(page.body, `data-testid="merge-none"`) {
			if r := alice.post("/merge-delegation", url.Values{"csrf_token": {alice.csrf}}); r.status != http.StatusSeeOther {
				t.Fatalf("propose = %d: %.300s", r.status, r.body)
			}
		}
		mustHave(t, alice.get("/approvals"), http.StatusOK, `data-testid="merge-proposed"`)
		if _, err := delegations.New(e.l).AcceptMergeDelegations(context.Background()); err != nil {
			t.Fatal(err)
		}
		mustHave(t, alice.get("/approvals"), http.StatusOK, `data-testid="merge-active"`)
		// A second proposal while one is active is a conflict, shown inline.
		mustHave(t, alice.post("/merge-delegation", url.Values{"csrf_token": {alice.csrf}}), http.StatusUnprocessableEntity,
			`data-testid="delegations-error"`, "already has an active merge delegation")
	})
}

func TestUIAdminJobsAndMerges(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			last := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			next := last.Add(time.Minute)
			e := newUIEnv(t, engine, handlers.JobStatus{Name: "merge-holdings", Schedule: "every 1m0s", LastRun: &last, NextRun: &next,
				LastDurationMS: 1500, LastError: "database is busy"}, handlers.JobStatus{Name: "expire-offers", Schedule: "every 10s"},
				handlers.JobStatus{Name: "round-clock", Schedule: "every 1m0s", About: "a new mining round opens every 10 minutes"})
			alice := e.wallet(t, "alice", "")
			if _, err := delegations.New(e.l).ProposeMergeDelegation(context.Background(), alice.party); err != nil {
				t.Fatal(err)
			}
			if _, err := delegations.New(e.l).AcceptMergeDelegations(context.Background()); err != nil {
				t.Fatal(err)
			}
			amounts := make([]coin.Amount, 12)
			for i := range amounts {
				amounts[i] = coin.FromInt(1)
			}
			if err := ledgertest.Dev(t, e.l).MintBulk(context.Background(), alice.party, amounts); err != nil {
				t.Fatal(err)
			}
			admin := e.browser(t)
			admin.login("admin")
			mustHave(t, admin.get("/admin"), http.StatusOK, `data-name="merge-holdings"`, "every 1m0s", "2026-01-02 03:04:05 UTC",
				"2026-01-02 03:05:05 UTC", "1.5s", "database is busy", `data-name="expire-offers"`, `data-testid="merge-row"`, string(alice.party),
				`<span data-testid="automation-about">a new mining round opens every 10 minutes</span><div class="muted">checks every 1m0s</div>`)
		})
	}
}

func TestUINewFormsRefuseCSRF(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		alice := e.wallet(t, "alice", "")
		cid := string(coin.NewContractID())
		for _, p := range []string{"/send", "/offers/" + cid + "/accept", "/instructions/" + cid + "/withdraw", "/preapproval",
			"/merge-delegation", "/traffic", "/allocations/" + cid + "/allocate"} {
			for name, form := range map[string]url.Values{"no token": {}, "wrong token": {"csrf_token": {"x" + alice.csrf}}} {
				if r := alice.post(p, form); r.status != http.StatusForbidden {
					t.Errorf("POST %s with %s = %d, want 403", p, name, r.status)
				}
			}
		}
		// Logged out, the new pages go to the login.
		b := e.browser(t)
		for _, p := range []string{"/send", "/offers", "/approvals", "/traffic", "/allocations"} {
			if r := b.get(p); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login?next=") {
				t.Errorf("GET %s logged out = %d %q", p, r.status, r.header.Get("Location"))
			}
		}
	})
}

func TestUIFeaturedAppRight(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		alice := e.wallet(t, "alice", "")
		mustHave(t, alice.get("/approvals"), http.StatusOK, `data-testid="featured-none"`, `data-testid="featured-grant"`)
		if r := alice.post("/featured-app-right", url.Values{"csrf_token": {alice.csrf}, "action": {"grant"}}); r.status != http.StatusSeeOther {
			t.Fatalf("grant = %d: %.300s", r.status, r.body)
		}
		mustHave(t, alice.get("/approvals?done=featured-grant"), http.StatusOK, `data-testid="featured-active"`,
			`data-testid="featured-cancel"`, "Your party is now a featured app provider.")
		if f, err := featured.New(e.l).IsFeatured(context.Background(), alice.party); err != nil || !f {
			t.Fatalf("alice featured after the grant = %v, %v", f, err)
		}
		mustHave(t, alice.get("/history"), http.StatusOK, "Featured app right granted")
		if r := alice.post("/featured-app-right", url.Values{"csrf_token": {alice.csrf}, "action": {"cancel"}}); r.status != http.StatusSeeOther {
			t.Fatalf("cancel = %d: %.300s", r.status, r.body)
		}
		mustHave(t, alice.get("/approvals"), http.StatusOK, `data-testid="featured-none"`)
		mustHave(t, alice.post("/featured-app-right", url.Values{"csrf_token": {alice.csrf}, "action": {"steal"}}),
			http.StatusUnprocessableEntity, `data-testid="delegations-error"`, "nknown action: choose grant or cancel")
		// Without the CSRF token nothing is granted.
		if r := alice.post("/featured-app-right", url.Values{"action": {"grant"}}); r.status != http.StatusForbidden {
			t.Errorf("grant without CSRF = %d", r.status)
		}
		if f, _ := featured.New(e.l).IsFeatured(context.Background(), alice.party); f {
			t.Error("a form without CSRF token granted the right")
		}
	})
}
