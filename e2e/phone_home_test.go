package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// navTo follows the navigation's link to the page key, opening More when
// the link is under it.
func navTo(t *testing.T, p playwright.Page, key string) {
	t.Helper()
	link := testID(p, "nav-"+key)
	if v, err := link.IsVisible(); err != nil || !v {
		must(t, testID(p, "nav-more").Click())
	}
	must(t, link.Click())
}

// box is an element's bounding box, failing the test without one.
func box(t *testing.T, l playwright.Locator, what string) *playwright.Rect {
	t.Helper()
	b, err := l.BoundingBox()
	must(t, err)
	if b == nil {
		t.Fatalf("%s has no box (not shown)", what)
	}
	return b
}

// TestPhoneHomeBalanceFirst: on a 390 px phone the available balance in
// CC and USD is the first thing under the header, with Send and Receive
// under it, all above the fold even with three offers waiting; the offers
// follow as compact rows under "3 waiting for your answer", then the
// user's own pending sends and the last activities with a link to all;
// the round, the holdings count and the chart are in a details section
// (issue 37 point 1).
func TestPhoneHomeBalanceFirst(t *testing.T) {
	t.Parallel()
	base := ownWallet(t)
	alice, bob := newPage(t, true), newPage(t, true)
	loginAt(t, alice, base, "alice", false)
	must(t, alice.Locator("#tap-amount").Fill("100"))
	must(t, testID(alice, "tap-submit").Click())
	mustBalance(t, testID(alice, "balance-cc"), "20,000.00 CC")
	aliceParty, err := testID(alice, "party-id").GetAttribute("title")
	must(t, err)
	loginAt(t, bob, base, "bob", false)
	bobParty, err := testID(bob, "party-id").GetAttribute("title")
	must(t, err)
	token := devToken(t, walletBin, "alice")
	for i := range 3 {
		apiOffer(t, base, token, bobParty, fmt.Sprint(i+1), fmt.Sprintf("Offer number %d", i+1), time.Now().Add(time.Hour))
	}
	// Bob has coin and a pending send of his own.
	must(t, bob.Locator("#tap-amount").Fill("10"))
	must(t, testID(bob, "tap-submit").Click())
	mustBalance(t, testID(bob, "balance-cc"), "2,000.00 CC")
	_, err = bob.Goto(base + "/send")
	must(t, err)
	must(t, bob.Locator("#send-receiver").Fill(aliceParty))
	must(t, bob.Locator("#send-amount").Fill("7"))
	must(t, testID(bob, "send-submit").Click())
	waitURL(t, bob, base+"/send?done=sent-offer")

	for _, w := range []int{390, 1280} {
		must(t, bob.SetViewportSize(w, 844))
		_, err := bob.Goto(base + "/")
		must(t, err)
		where := fmt.Sprintf("home at %d px", w)
		bal := box(t, testID(bob, "balance-cc"), where+": balance")
		header := box(t, bob.Locator("header.top"), where+": header")
		if header.Height > 80 {
			t.Errorf("%s: the header is %v px tall, want a compact one", where, header.Height)
		}
		// The balance is the first thing in main: nothing but its label
		// between the header and it.
		if bal.Y > header.Y+header.Height+60 {
			t.Errorf("%s: the balance starts at %v px, %v px under the header", where, bal.Y, bal.Y-header.Y-header.Height)
		}
		cc, err := testID(bob, "balance-cc").Evaluate(`e => parseFloat(getComputedStyle(e).fontSize)`, nil)
		must(t, err)
		if f, err := strconv.ParseFloat(fmt.Sprint(cc), 64); err != nil || f < 28 {
			t.Errorf("%s: the balance's font is %v px, want it large", where, cc)
		}
		must(t, expect.Locator(testID(bob, "balance-usd")).ToBeVisible())
		for _, id := range []string{"home-send", "home-receive"} {
			b := box(t, testID(bob, id), where+": "+id)
			if b.Y < bal.Y || b.Y+b.Height > 844 {
				t.Errorf("%s: %s at %+v, want under the balance and above the fold", where, id, b)
			}
		}
		must(t, expect.Locator(testID(bob, "home-send")).ToHaveAttribute("href", "/send"))
		must(t, expect.Locator(testID(bob, "home-receive")).ToHaveAttribute("href", "/receive"))
		must(t, expect.Locator(testID(bob, "incoming-count")).ToHaveText("3 waiting for your answer"))
		rows := testID(bob, "incoming-card")
		must(t, expect.Locator(rows).ToHaveCount(3))
		first := box(t, rows.First(), where+": first waiting row")
		if first.Y < bal.Y {
			t.Errorf("%s: the waiting rows come before the balance", where)
		}
		if w == 390 && first.Height > 160 {
			t.Errorf("%s: a waiting row is %v px tall, want a compact row", where, first.Height)
		}
		for _, a := range []string{"accept", "reject"} {
			must(t, expect.Locator(rows.First().GetByTestId(a)).ToBeVisible())
		}
		must(t, expect.Locator(testID(bob, "outgoing-row")).ToHaveCount(1))
		must(t, expect.Locator(testID(bob, "outgoing-amount")).ToHaveText("7.00 CC"))
		must(t, expect.Locator(testID(bob, "home-recent").GetByTestId("history-row").First()).ToContainText("CC"))
		must(t, expect.Locator(testID(bob, "recent-all")).ToHaveAttribute("href", "/history"))
		// The round, the holdings count and the chart wait in Details.
		for _, id := range []string{"round-number", "utxo-count"} {
			must(t, expect.Locator(testID(bob, id)).Not().ToBeVisible())
		}
	}
	screenshot(t, bob, "home-waiting")
	must(t, bob.Locator(`[data-testid="home-details"] > summary`).Click())
	must(t, expect.Locator(testID(bob, "utxo-count")).ToHaveText("1"))

	// Accepting in a row still works, and the count follows.
	must(t, testID(bob, "incoming-card").First().GetByTestId("accept").Click())
	must(t, expect.Locator(testID(bob, "incoming-ok")).ToContainText("Offer accepted"))
	must(t, expect.Locator(testID(bob, "incoming-count")).ToHaveText("2 waiting for your answer"))
}

// TestPhoneNavTabs: on a phone the navigation is a bar of five tabs at
// the bottom of the screen (Home, Send, Receive, Activity, More) with the
// other pages under More and the operator's in their own section; the
// current page is visibly marked; at 1280 px the admin's whole navigation
// is one line; a user neither sees nor opens /delegations (issue 37
// point 2).
func TestPhoneNavTabs(t *testing.T) {
	t.Parallel()
	admin, alice := newPage(t, true), newPage(t, true)
	login(t, admin, "admin", false)
	login(t, alice, "alice", false)

	must(t, alice.SetViewportSize(390, 844))
	_, err := alice.Goto("/history")
	must(t, err)
	tabs := alice.Locator(`nav[data-testid="nav"] > ul > li > a, nav[data-testid="nav"] > ul > li > details > summary`)
	got, err := tabs.AllInnerTexts()
	must(t, err)
	if fmt.Sprint(got) != "[Home Send Receive Activity More]" {
		t.Errorf("phone tabs = %q, want Home, Send, Receive, Activity, More", got)
	}
	bar := box(t, testID(alice, "nav"), "the tab bar")
	if bar.Y+bar.Height < 843 || bar.Height > 80 {
		t.Errorf("the tab bar at %+v, want a bar at the bottom of the 844 px screen", bar)
	}
	for i := range 5 {
		b := box(t, tabs.Nth(i), got[i])
		if b.Y < bar.Y-1 || b.Width < 44 || b.Height < 40 {
			t.Errorf("tab %s at %+v: want it in the bar, at least 44 by 40 px", got[i], b)
		}
	}
	// The current tab looks different from the others.
	style := func(l playwright.Locator) string {
		v, err := l.Evaluate(`e => { const s = getComputedStyle(e); return [s.color, s.backgroundColor, s.fontWeight, s.boxShadow].join("|") }`, nil)
		must(t, err)
		return fmt.Sprint(v)
	}
	must(t, expect.Locator(testID(alice, "nav-history")).ToHaveAttribute("aria-current", "page"))
	if style(testID(alice, "nav-history")) == style(testID(alice, "nav-home")) {
		t.Error("the current tab looks like the others")
	}
	// More opens the other pages, and marks itself when one is open.
	must(t, expect.Locator(testID(alice, "nav-offers")).Not().ToBeVisible())
	navTo(t, alice, "offers")
	waitURL(t, alice, baseURL+"/offers")
	must(t, expect.Locator(testID(alice, "nav-more")).ToHaveAttribute("aria-current", "true"))
	must(t, expect.Locator(testID(alice, "nav-group-operator")).ToHaveCount(0))
	must(t, expect.Locator(testID(alice, "nav-delegations")).ToHaveCount(0))
	// Without the menu entry the page is refused too.
	res, err := alice.Goto("/delegations")
	must(t, err)
	if res.Status() != http.StatusForbidden {
		t.Errorf("alice opens /delegations: %d, want 403", res.Status())
	}
	must(t, expect.Locator(testID(alice, "error-message")).ToContainText("validator operator"))

	// The admin's pages have their own section under More.
	must(t, admin.SetViewportSize(390, 844))
	must(t, testID(admin, "nav-more").Click())
	must(t, expect.Locator(testID(admin, "nav-group-operator").GetByTestId("nav-delegations")).ToBeVisible())
	must(t, expect.Locator(testID(admin, "nav-group-operator").GetByTestId("nav-admin")).ToBeVisible())
	for _, a := range []string{"nav-group-more", "nav-group-operator"} {
		l := measure(t, admin)
		for _, b := range l.Bad {
			t.Errorf("phone More open (%s): outside the screen: %s", a, b)
		}
	}
	navTo(t, admin, "delegations")
	waitURL(t, admin, baseURL+"/delegations")

	// At 1280 px the admin's navigation is one line.
	must(t, admin.SetViewportSize(1280, 800))
	_, err = admin.Goto("/")
	must(t, err)
	items := admin.Locator(`header.top > *`)
	n, err := items.Count()
	must(t, err)
	var top float64 = -1
	for i := range n {
		b := box(t, items.Nth(i), fmt.Sprintf("header item %d", i))
		mid := b.Y + b.Height/2
		if top < 0 {
			top = mid
		} else if mid < top-12 || mid > top+12 {
			t.Errorf("header item %d at %+v: not on one line with the first (middle %v)", i, b, top)
		}
	}
	header := box(t, admin.Locator("header.top"), "header")
	if header.Height > 70 {
		t.Errorf("the desktop header is %v px tall, want one line", header.Height)
	}
	must(t, expect.Locator(testID(admin, "nav-home")).ToHaveAttribute("aria-current", "page"))
	if style(testID(admin, "nav-home")) == style(testID(admin, "nav-send")) {
		t.Error("desktop: the current page looks like the others")
	}
}

// gluedJS finds words run together in main's text as a person reads it:
// a number or unit glued to a word ("first4.99 USDnow"), or "to" glued to
// a party ("toshop::…").
const gluedJS = `() => {
  const text = document.querySelector("main").innerText;
  const found = [];
  for (const re of [/[A-Za-z]\d[\d,.]* (?:CC|USD)\b/g, /\b(?:CC|USD)[a-z]/g, /\d(?:CC|USD)\b/g, /\bto[a-z0-9-]+::/g, /[a-z],[a-z]/g]) {
    for (const m of text.matchAll(re)) found.push(text.slice(Math.max(0, m.index - 20), m.index + m[0].length + 20));
  }
  return found;
}`

// checkNoGluedWords fails for every run-together word on p's page.
func checkNoGluedWords(t *testing.T, p playwright.Page, where string) {
	t.Helper()
	v, err := p.Evaluate(gluedJS)
	must(t, err)
	for _, g := range v.([]any) {
		t.Errorf("%s: words run together: %q", where, g)
	}
}

// checkMinimalConfirm: a confirm page an app sends people to has no
// navigation or footer, shows the price in CC and USD, and its answers
// are Approve and Decline, on the screen at both widths, with no words
// run together (issue 37 points 7 and 8).
func checkMinimalConfirm(t *testing.T, p playwright.Page, where string) {
	t.Helper()
	old := p.ViewportSize()
	for _, w := range []int{390, 1280} {
		must(t, p.SetViewportSize(w, 844))
		at := fmt.Sprintf("%s at %d px", where, w)
		for _, sel := range []string{`nav[data-testid="nav"]`, "footer.foot"} {
			if n, err := p.Locator(sel).Count(); err != nil || n != 0 {
				t.Errorf("%s: has %s (%d), want a minimal layout", at, sel, n)
			}
		}
		must(t, expect.Locator(p.Locator("main")).ToContainText("USD"))
		must(t, expect.Locator(p.Locator("main")).ToContainText("CC"))
		must(t, expect.Locator(testID(p, "confirm-accept")).ToHaveText(regexp.MustCompile(`^Approve`)))
		must(t, expect.Locator(testID(p, "confirm-reject")).ToHaveText("Decline"))
		for _, b := range measure(t, p).Bad {
			t.Errorf("%s: outside the screen: %s", at, b)
		}
		checkNoGluedWords(t, p, at)
	}
	if old != nil {
		must(t, p.SetViewportSize(old.Width, old.Height))
	}
}

// TestPhoneFirstRunAndMinimalPages: the landing page's Log in is a
// button; onboarding has no navigation; a new wallet's Home shows "Get
// your first coin" with the faucet filled in (development network) above
// the fold on a phone, and one tap brings the coin; a subscription's
// confirm page has the minimal layout with the price in CC and USD, to
// whom and how often, Approve and Decline (issue 37 point 7), and its
// words and the Subscriptions page's are not run together (point 8).
func TestPhoneFirstRunAndMinimalPages(t *testing.T) {
	t.Parallel()
	base := ownWallet(t)
	p := newPage(t, true)
	must(t, p.SetViewportSize(390, 844))
	_, err := p.Goto(base + "/")
	must(t, err)
	login := testID(p, "login-link")
	bg, err := login.Evaluate(`e => getComputedStyle(e).backgroundColor`, nil)
	must(t, err)
	if bg == "rgba(0, 0, 0, 0)" || bg == "transparent" {
		t.Errorf("Log in has no background (%v): a link, not a button", bg)
	}
	if b := box(t, login, "Log in"); b.Height < 40 {
		t.Errorf("Log in is %v px tall, want a button to tap", b.Height)
	}

	must(t, login.Click())
	must(t, p.Locator("#username").Fill("alice"))
	must(t, p.Locator("#password").Fill("alice-devnet"))
	must(t, testID(p, "dev-login-submit").Click())
	waitURL(t, p, base+"/onboard")
	for _, sel := range []string{`nav[data-testid="nav"]`, "footer.foot"} {
		if n, err := p.Locator(sel).Count(); err != nil || n != 0 {
			t.Errorf("onboarding has %s (%d), want a minimal layout", sel, n)
		}
	}
	must(t, testID(p, "onboard-submit").Click())
	waitURL(t, p, regexp.MustCompile(`/(\?done=onboarded)?$`))

	card := testID(p, "first-coin")
	must(t, expect.Locator(card).ToContainText("Get your first coin"))
	must(t, expect.Locator(card.Locator("#tap-amount")).ToHaveValue("100"))
	if b := box(t, card.GetByTestId("tap-submit"), "Tap"); b.Y+b.Height > 844 {
		t.Errorf("the first coin's Tap is at %+v, below the fold", b)
	}
	checkA11y(t, p, "a new wallet's Home")
	must(t, card.GetByTestId("tap-submit").Click())
	mustBalance(t, testID(p, "balance-cc"), "20,000.00 CC")
	// The card goes as the tap lands, without a reload.
	must(t, expect.Locator(testID(p, "first-coin")).ToHaveCount(0))
	must(t, expect.Locator(testID(p, "tap-form")).ToBeVisible()) // the faucet, further down
	alice, err := testID(p, "party-id").GetAttribute("title")
	must(t, err)

	// A shop asks alice to subscribe.
	var shop struct {
		PartyID string `json:"party_id"`
	}
	code, out, err := postJSON(http.DefaultClient, base+"/v0/admin/users", devToken(t, walletBin, "admin"), `{"name":"shop"}`)
	if err != nil || code != http.StatusOK {
		t.Fatalf("shop: %d %s %v", code, out, err)
	}
	must(t, json.Unmarshal([]byte(out), &shop))
	req, _ := json.Marshal(map[string]any{"sender": alice, "receiver": shop.PartyID, "provider": shop.PartyID,
		"description": "Shop premium", "amount": "5", "payment_interval_seconds": 30 * 86400, "payment_duration_seconds": 86400,
		"origins": []string{"https://shop.example.com"}})
	code, out, err = postJSON(http.DefaultClient, base+"/v0/admin/devnet/subscription-requests", devToken(t, walletBin, "admin"), string(req))
	if err != nil || code != http.StatusOK {
		t.Fatalf("subscription request: %d %s %v", code, out, err)
	}
	var created struct {
		ContractID string `json:"contract_id"`
	}
	must(t, json.Unmarshal([]byte(out), &created))
	_, err = p.Goto(base + "/confirm-subscription/" + created.ContractID)
	must(t, err)
	must(t, expect.Locator(testID(p, "confirm-provider")).ToHaveAttribute("title", shop.PartyID))
	must(t, expect.Locator(testID(p, "confirm-cc")).ToHaveText("5.00 CC"))
	// 0.025 USD shows as 0.03, the exact value in the title.
	must(t, expect.Locator(testID(p, "confirm-usd").Locator(".amt-short")).ToHaveText("0.03"))
	must(t, expect.Locator(testID(p, "confirm-usd")).ToHaveAttribute("title", "0.0250000000 USD"))
	must(t, expect.Locator(testID(p, "subscription-every")).ToHaveText("30 days"))
	must(t, expect.Locator(testID(p, "subscription-receiver")).ToHaveAttribute("title", shop.PartyID))
	checkMinimalConfirm(t, p, "confirm subscription")
	checkA11yWidths(t, p, "confirm subscription")

	_, err = p.Goto(base + "/subscriptions")
	must(t, err)
	must(t, expect.Locator(testID(p, "subscription-request")).ToHaveCount(1))
	checkNoGluedWords(t, p, "subscriptions")
	checkNothingTouches(t, p, "subscriptions")
	for _, path := range []string{"/", "/offers", "/payments", "/names", "/approvals"} {
		_, err = p.Goto(base + path)
		must(t, err)
		checkNothingTouches(t, p, path)
	}
	_, err = p.Goto(base + "/confirm-subscription/" + created.ContractID)
	must(t, err)
	checkNothingTouches(t, p, "confirm subscription")
	_, err = p.Goto(base + "/traffic")
	must(t, err)
	must(t, p.Locator("#traffic-amount").Fill("200000"))
	must(t, testID(p, "traffic-quote-submit").Click())
	must(t, expect.Locator(testID(p, "traffic-confirm")).ToBeVisible())
	checkNoGluedWords(t, p, "traffic price")
	checkNothingTouches(t, p, "traffic price")

	// Decline by keyboard, without the mouse.
	_, err = p.Goto(base + "/confirm-subscription/" + created.ContractID)
	must(t, err)
	tabTo(t, p, `[data-testid="confirm-reject"]`)
	must(t, p.Keyboard().Press("Enter"))
	must(t, expect.Locator(testID(p, "confirm-answered")).ToBeVisible())
}

// touchingJS finds buttons and cards in main that touch or overlap
// another (less than 4 px apart), nested ones aside.
const touchingJS = `() => {
  const els = [...document.querySelectorAll("main button, main a.button, main .card, main input[type=submit]")].filter(e => {
    const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && (!e.checkVisibility || e.checkVisibility());
  });
  const name = e => e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ")[0] : "") + ' "' + (e.innerText || "").trim().slice(0, 30) + '"';
  const found = [];
  for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
    const a = els[i], b = els[j];
    if (a.contains(b) || b.contains(a)) continue;
    const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
    const gap = Math.max(s.left - r.right, r.left - s.right, s.top - r.bottom, r.top - s.bottom);
    if (gap < 4) found.push(name(a) + " and " + name(b) + " " + Math.round(gap) + " px apart");
  }
  return found;
}`

// checkNothingTouches fails for every pair of buttons or cards on p's
// page closer than 4 px, at a phone's and a desktop's width.
func checkNothingTouches(t *testing.T, p playwright.Page, where string) {
	t.Helper()
	old := p.ViewportSize()
	for _, w := range []int{390, 1280} {
		must(t, p.SetViewportSize(w, 844))
		v, err := p.Evaluate(touchingJS)
		must(t, err)
		for _, f := range v.([]any) {
			t.Errorf("%s at %d px: %s", where, w, f)
		}
	}
	if old != nil {
		must(t, p.SetViewportSize(old.Width, old.Height))
	}
}

// TestPhonePaymentsSubscriptionsNamesLive: an app's payment request, a
// subscription request and a name requested in another tab show on the
// open Payments, Subscriptions and Names pages by themselves, without a
// reload (issue 37 point 8).
func TestPhonePaymentsSubscriptionsNamesLive(t *testing.T) {
	t.Parallel()
	base, api := ownWalletWithLedgerAPI(t)
	p := newPage(t, true)
	loginAt(t, p, base, "alice", false)
	alice, err := testID(p, "party-id").GetAttribute("title")
	must(t, err)
	sp := newPage(t, false)
	loginAt(t, sp, base, "bob", false)
	shop, err := testID(sp, "party-id").GetAttribute("title")
	must(t, err)

	payments, err := p.Context().NewPage()
	must(t, err)
	openLive(t, payments, base+"/payments")
	must(t, expect.Locator(testID(payments, "payment-requests-empty")).ToBeVisible())
	subs, err := p.Context().NewPage()
	must(t, err)
	openLive(t, subs, base+"/subscriptions")
	must(t, expect.Locator(testID(subs, "subscription-requests-empty")).ToBeVisible())
	names, err := p.Context().NewPage()
	must(t, err)
	openLive(t, names, base+"/names")
	must(t, expect.Locator(testID(names, "names-empty")).ToBeVisible())

	ledgerCommand(t, api, devToken(t, walletBin, "bob"), shop, fmt.Sprint("live-pay-", time.Now().UnixNano()), map[string]any{"CreateCommand": map[string]any{
		"templateId": "#splice-wallet-payments:Splice.Wallet.Payment:AppPaymentRequest",
		"createArguments": map[string]any{
			"sender": alice, "provider": shop, "description": "a live coffee",
			"expiresAt":       time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano),
			"receiverAmounts": []any{map[string]any{"receiver": shop, "amount": map[string]any{"amount": "2", "unit": "AmuletUnit"}}},
		},
	}})
	must(t, expect.Locator(testID(payments, "payment-request-row")).ToBeVisible())
	mustBeSameDocument(t, payments, "payments")

	req, _ := json.Marshal(map[string]any{"sender": alice, "receiver": shop, "provider": shop, "description": "Live plan",
		"amount": "1", "payment_interval_seconds": 86400, "payment_duration_seconds": 3600})
	code, out, err := postJSON(http.DefaultClient, base+"/v0/admin/devnet/subscription-requests", devToken(t, walletBin, "admin"), string(req))
	if err != nil || code != http.StatusOK {
		t.Fatalf("subscription request: %d %s %v", code, out, err)
	}
	must(t, expect.Locator(testID(subs, "subscription-request")).ToBeVisible())
	mustBeSameDocument(t, subs, "subscriptions")

	// A name requested in the first tab shows in the Names tab.
	_, err = p.Goto(base + "/names")
	must(t, err)
	must(t, p.Locator("#names-name").Fill("alice-live.unverified.cns"))
	must(t, testID(p, "names-request").Click())
	must(t, expect.Locator(testID(p, "names-row")).ToBeVisible())
	must(t, expect.Locator(testID(names, "names-row")).ToBeVisible())
	mustBeSameDocument(t, names, "names")
}
