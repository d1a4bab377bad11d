package ui_test

import (
	"bufio"
	"context"
	"crypto"
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/web"
)

var incomingRe = regexp.MustCompile(`data-testid="incoming-card" data-kind="([a-z]+)" data-cid="([^"]+)"`)

// TestUIHomeIncomingCards: the home page shows what waits for the user's
// answer as cards, answered in place with htmx (the cards come back with
// what happened) or by plain posts (redirected home, saying what
// happened); the fragments live updates reload answer on their own.
func TestUIHomeIncomingCards(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100") // 20000 CC
		bob := e.Wallet(t, "bob", "")
		handlerstest.MustHave(t, bob.Get("/"), http.StatusOK, `id="home-incoming"`, `id="incoming-cards"`)
		if got := incoming(bob); len(got) != 0 {
			t.Fatalf("cards before anything was sent: %v", got)
		}
		for _, f := range []url.Values{
			{"method": {"offer"}, "amount": {"12.5"}, "description": {"lunch at Lou's"}},
			{"method": {"instruction"}, "amount": {"3"}, "description": {"rent"}},
		} {
			f.Set("receiver", string(bob.Party))
			f.Set("expires", "1d")
			if r := alice.Send(f); r.Status != http.StatusSeeOther {
				t.Fatalf("send %s = %d: %.300s", f.Get("method"), r.Status, r.Body)
			}
		}
		cards := incoming(bob)
		if len(cards["offers"]) != 1 || len(cards["instructions"]) != 1 {
			t.Fatalf("bob's cards = %v, want one offer and one instruction", cards)
		}
		if got := incoming(alice); len(got) != 0 {
			t.Errorf("the sender has cards: %v", got)
		}
		home := bob.Get("/")
		handlerstest.MustHave(t, home, http.StatusOK, `data-testid="incoming-card"`, `title="`+string(alice.Party)+`"`,
			`data-testid="incoming-amount" title="12.5000000000 CC">12.50 CC<`, "lunch at Lou&#39;s", `data-testid="incoming-description">rent<`,
			`name="from" value="home"`, `action="/offers/`+cards["offers"][0]+`/accept"`, `action="/instructions/`+cards["instructions"][0]+`/reject"`,
			`name="csrf_token" value="`+bob.Csrf+`"`, "Expires ")

		// Accept with htmx: the section comes back saying so, one card
		// fewer, and the balance above is told to reload.
		r := bob.Do(http.MethodPost, "/offers/"+cards["offers"][0]+"/accept", url.Values{"csrf_token": {bob.Csrf}, "from": {"home"}},
			map[string]string{"HX-Request": "true"})
		handlerstest.MustHave(t, r, http.StatusOK, `id="home-incoming"`, `data-testid="incoming-ok"`, "Offer accepted;", `data-kind="instructions"`)
		if strings.Contains(r.Body, `data-kind="offers"`) || strings.Contains(r.Body, "<html") {
			t.Errorf("answer to an htmx accept: %.1000s", r.Body)
		}
		if got := r.Header.Get("HX-Trigger"); got != "wallet-changed" {
			t.Errorf("HX-Trigger = %q, want wallet-changed", got)
		}
		if got := bob.Balance(); got != "12.5000000000" {
			t.Errorf("bob's balance = %s, want 12.5", got)
		}
		// The same again: 422 with the error in place, nothing changed.
		r = bob.Do(http.MethodPost, "/offers/"+cards["offers"][0]+"/accept", url.Values{"csrf_token": {bob.Csrf}, "from": {"home"}},
			map[string]string{"HX-Request": "true"})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `id="home-incoming"`, `data-testid="incoming-error"`, "nothing left to do")
		// Without JavaScript: the whole home page with the error.
		r = bob.Post("/offers/"+cards["offers"][0]+"/accept", url.Values{"csrf_token": {bob.Csrf}, "from": {"home"}})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, "<html", `data-testid="nav-home"`, `data-testid="incoming-error"`, `data-testid="balance-cc"`)
		if got := bob.Balance(); got != "12.5000000000" {
			t.Errorf("bob's balance after the refused accepts = %s", got)
		}

		// Reject without JavaScript: 303 home, which says what happened.
		r = bob.Post("/instructions/"+cards["instructions"][0]+"/reject", url.Values{"csrf_token": {bob.Csrf}, "from": {"home"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/?done=instructions-reject" {
			t.Fatalf("reject = %d %q", r.Status, r.Header.Get("Location"))
		}
		handlerstest.MustHave(t, bob.Get("/?done=instructions-reject"), http.StatusOK, `data-testid="flash"`, "Transfer instruction rejected;")
		if got := incoming(bob); len(got) != 0 {
			t.Errorf("cards after answering both: %v", got)
		}
		if r := bob.Get("/?done=bogus-thing"); strings.Contains(r.Body, `data-testid="incoming-ok"`) || strings.Contains(r.Body, `<p>Transfer instruction rejected`) {
			t.Error("an unknown done shows a message")
		}
		// Answered from the offers page, the answer stays there.
		handlerstest.MustSend(t, alice, bob.Party, "1", "offer")
		id := incoming(bob)["offers"][0]
		if r := bob.Post("/offers/"+id+"/reject", url.Values{"csrf_token": {bob.Csrf}}); r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/offers?done=offers-reject" {
			t.Errorf("reject from the offers page = %d %q", r.Status, r.Header.Get("Location"))
		}
	})
}

// TestUIHomeIncomingCapped: a user with more incoming transfers than the
// home page shows gets the first 20 (offers first, newest first) and a
// link to them all.
func TestUIHomeIncomingCapped(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100")
		bob := e.Wallet(t, "bob", "")
		carol, err := users.Of(e.L).Onboard(t.Context(), "carol", "")
		if err != nil {
			t.Fatal(err)
		}
		ledgertest.Mint(t, e.L, carol, "100")
		for i := range 21 {
			// Two senders: one may have at most 20 open offers to bob.
			from := alice.Party
			if i == 20 {
				from = carol
			}
			_, _, err := e.L.Offers().Create(t.Context(), ledger.OfferRequest{Sender: from, Receiver: bob.Party,
				Amount: coin.MustParse("1"), ExpiresAt: time.Now().Add(time.Hour), TrackingID: fmt.Sprint("cap-", i)})
			if err != nil {
				t.Fatal(err)
			}
		}
		handlerstest.MustSend(t, alice, bob.Party, "1", "instruction")
		if got := incoming(bob); len(got["offers"]) != 20 || len(got["instructions"]) != 0 {
			t.Errorf("cards: %d offers, %d instructions; want the first 20 offers", len(got["offers"]), len(got["instructions"]))
		}
		handlerstest.MustHave(t, bob.Get("/"), http.StatusOK, `data-testid="incoming-more"`, "Showing 20 of 22.", `href="/offers" data-testid="incoming-all"`)
		if r := alice.Get("/"); strings.Contains(r.Body, `data-testid="incoming-more"`) {
			t.Error("the sender is told of more incoming transfers")
		}
	})
}

// TestUIOffersLive: the offers page listens for live updates, and its
// fragment is the balance and lists without the message above them.
func TestUIOffersLive(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100")
		bob := e.Wallet(t, "bob", "")
		handlerstest.MustHave(t, bob.Get("/offers"), http.StatusOK, `data-events="/events"`, `id="transfers-live"`, `hx-get="/offers/live"`,
			`hx-trigger="transfers-changed from:body, wallet-changed from:body"`)
		handlerstest.MustSend(t, alice, bob.Party, "7", "offer")
		r := bob.Do(http.MethodGet, "/offers/live", nil, map[string]string{"HX-Request": "true"})
		handlerstest.MustHave(t, r, http.StatusOK, `id="transfers-live"`, `data-testid="incoming-offers-row"`, `title="7.0000000000 CC"`,
			`data-testid="transfers-balance"`, `data-testid="outgoing-offers-empty"`)
		if strings.Contains(r.Body, "<html") || strings.Contains(r.Body, `id="transfers-list"`) {
			t.Errorf("GET /offers/live: %.500s", r.Body)
		}
	})
}

// waitPending opens a live-update stream for each wallet and returns a
// function that waits until each stream has sent "pending" (passing over
// "changed"), failing the test after timeout.
func waitPending(t *testing.T, timeout time.Duration, ws ...*handlerstest.Wallet) func(what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	var streams []*bufio.Reader
	for _, w := range ws {
		_, res := w.OpenStream(ctx)
		if res == nil {
			t.Fatal("no stream")
		}
		streams = append(streams, bufio.NewReader(res.Body))
	}
	return func(what string) {
		t.Helper()
		for i, s := range streams {
			for {
				line, err := s.ReadString('\n')
				if err != nil {
					t.Fatalf("%s: stream %d: %v", what, i, err)
				}
				ev, ok := strings.CutPrefix(strings.TrimSpace(line), "event: ")
				if ev == "pending" {
					break
				}
				if ok && ev != "changed" {
					t.Fatalf("%s: stream %d sent %q", what, i, ev)
				}
			}
		}
	}
}

// TestUIEventsPending: an offer or instruction created, answered or
// expired sends "pending" to the open streams of both parties, whoever
// made the change and however (here the ledger itself, as a job or
// another replica would).
func TestUIEventsPending(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100")
		bob := e.Wallet(t, "bob", "")
		wait := waitPending(t, 30*time.Second, alice, bob)
		ctx := t.Context()
		o, _, err := e.L.Offers().Create(ctx, ledger.OfferRequest{Sender: alice.Party, Receiver: bob.Party, Amount: coin.MustParse("2"),
			ExpiresAt: time.Now().Add(time.Hour), TrackingID: "api-1"})
		if err != nil {
			t.Fatal(err)
		}
		wait("offer created")
		if err := e.L.Offers().Withdraw(ctx, alice.Party, o.ContractID); err != nil {
			t.Fatal(err)
		}
		wait("offer withdrawn")
	})
}

// TestUIEventsNudged: a change made through this process's JSON API or
// web forms reaches the open streams at once, not at the next tick (an
// hour here).
func TestUIEventsNudged(t *testing.T) {
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{"k": key.Public()}, Audience: "aud"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			e := handlerstest.NewUIEnvWith(t, engine, func(cfg *handlers.Config) {
				cfg.UI.EventInterval = time.Hour
				cfg.Auth = v
			})
			alice := e.Wallet(t, "alice", "100")
			bob := e.Wallet(t, "bob", "")
			wait := waitPending(t, 20*time.Second, bob)
			handlerstest.MustSend(t, alice, bob.Party, "2", "offer")
			wait("offer sent with the form")

			tok, err := web.SignDevToken(key, "k", "", "aud", "alice", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodPost, e.Srv.URL+"/v0/wallet/transfer-offers/"+incoming(bob)["offers"][0]+"/withdraw", strings.NewReader("{}"))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("withdraw through the API = %d", res.StatusCode)
			}
			wait("offer withdrawn through the API")
		})
	}
}

// TestUISendDefaultsAndExpiry: the send form chooses the one-step direct
// transfer for a receiver with a preapproval (on ?to=, on the htmx check
// and on the no-JavaScript check) unless the user chose another method;
// a post without a method goes by the ledger's rule; the expiry is a
// choice of lifetimes, which the offer gets.
func TestUISendDefaultsAndExpiry(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100")
		bob := e.Wallet(t, "bob", "")
		carol := ledgertest.Party(t, e.L) // without a preapproval
		if r := bob.Post("/preapproval", url.Values{"csrf_token": {bob.Csrf}}); r.Status != http.StatusSeeOther {
			t.Fatalf("preapprove = %d", r.Status)
		}
		page := alice.Get("/send")
		handlerstest.MustHave(t, page, http.StatusOK, `<select id="send-expires" name="expires"`, `<option value="1d" selected>1 day</option>`,
			`<option value="30d">30 days</option>`, `name="default_method" value="offer"`, `value="offer" checked`)
		handlerstest.MustHave(t, alice.Get("/send?to="+url.QueryEscape(string(bob.Party))), http.StatusOK, `value="`+string(bob.Party)+`"`,
			`value="direct" checked`, `name="default_method" value="direct"`)
		check := func(to coin.PartyID, method, prevDefault, want string) {
			t.Helper()
			q := url.Values{"receiver": {string(to)}, "method": {method}, "default_method": {prevDefault}}
			handlerstest.MustHave(t, alice.Get("/send/check?"+q.Encode()), http.StatusOK, `value="`+want+`" checked`)
			// The no-JavaScript check re-renders the whole form alike.
			q.Set("csrf_token", alice.Csrf)
			q.Set("action", "check")
			handlerstest.MustHave(t, alice.Post("/send", q), http.StatusOK, `data-testid="send-form"`, `value="`+want+`" checked`)
		}
		check(bob.Party, "offer", "offer", "direct")            // the default, not chosen: direct
		check(bob.Party, "instruction", "offer", "instruction") // chosen before the check: kept
		check(bob.Party, "offer", "direct", "offer")            // direct turned down: kept
		check(carol, "direct", "direct", "offer")               // no preapproval: no direct
		check(carol, "instruction", "direct", "instruction")

		// No method: the ledger's rule sends bob's in one step, which is
		// shown to confirm first (issue 37).
		handlerstest.MustHave(t, alice.Send(url.Values{"receiver": {string(bob.Party)}, "amount": {"4"}}), http.StatusOK, `data-testid="send-review"`,
			`name="method" value="direct"`)
		r := alice.Send(url.Values{"receiver": {string(bob.Party)}, "amount": {"4"}, "action": {"confirm"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/send?done=sent-direct" {
			t.Fatalf("send without a method = %d %q: %.300s", r.Status, r.Header.Get("Location"), r.Body)
		}
		if got := bob.Balance(); got != "4.0000000000" {
			t.Errorf("bob's balance = %s, want 4", got)
		}

		// The lifetime chosen is the offer's.
		for _, c := range []struct {
			value string
			d     time.Duration
		}{{"1h", time.Hour}, {"7d", 7 * 24 * time.Hour}, {"30d", 30 * 24 * time.Hour}} {
			before := time.Now()
			r := alice.Send(url.Values{"receiver": {string(carol)}, "amount": {"1"}, "method": {"offer"}, "expires": {c.value}})
			if r.Status != http.StatusSeeOther {
				t.Fatalf("send expiring after %s = %d: %.300s", c.value, r.Status, r.Body)
			}
			in, err := pending.New(e.L).Incoming(t.Context(), carol)
			if err != nil {
				t.Fatal(err)
			}
			got := in.Offers[0].ExpiresAt // the newest
			if got.Before(before.Add(c.d).Truncate(time.Second)) || got.After(time.Now().Add(c.d)) {
				t.Errorf("expires %s: the offer expires at %s, want %s from %s", c.value, got, c.d, before)
			}
		}
		// A failed send keeps the choice.
		r = alice.Send(url.Values{"receiver": {string(carol)}, "amount": {"lots"}, "method": {"offer"}, "expires": {"7d"}})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `data-testid="send-error"`, `<option value="7d" selected>7 days</option>`)
	})
}

// incoming is the cards of w's home page fragment, kind -> contract ids.
func incoming(w *handlerstest.Wallet) map[string][]string {
	w.T.Helper()
	r := w.Do(http.MethodGet, "/home/incoming", nil, map[string]string{"HX-Request": "true"})
	handlerstest.MustHave(w.T, r, http.StatusOK, `id="incoming-cards"`, `hx-get="/home/incoming"`)
	if strings.Contains(r.Body, "<html") {
		w.T.Error("GET /home/incoming answered a whole page")
	}
	return handlerstest.GroupIDs(incomingRe, r.Body)
}
