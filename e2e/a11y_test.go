package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// axePath is where scripts/deps.sh (make deps) installs axe-core, beside
// the Playwright driver.
const axePath = "node/node_modules/axe-core/axe.min.js"

var axeScript = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile(axePath)
	if err != nil {
		abs, _ := filepath.Abs(axePath)
		return "", fmt.Errorf("axe-core at %s (run `make deps`): %w", abs, err)
	}
	// Wrapped in a function, the script is evaluated through the DevTools
	// protocol, which the page's CSP (script-src 'self') does not govern,
	// as it does an injected <script>. axe sets window.axe itself.
	return "() => { if (!window.axe) {\n" + string(b) + "\n} }", nil
})

// axeRunJS runs axe's default rules (WCAG 2.x A and AA and best practices)
// on the whole document and returns the serious and critical violations,
// one line each: rule, impact, help, where. It checks the page at rest: an
// htmx request in flight fades its part (.htmx-request), so it waits for
// none, and runs again when one started during the run (live updates).
const axeRunJS = `async () => {
  const busy = () => document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling');
  let r, moved;
  const mark = () => { moved = true; };
  for (let i = 0; i < 5; i++) {
    for (let waited = 0; busy() && waited < 10000; waited += 50) await new Promise(ok => setTimeout(ok, 50));
    moved = false;
    document.addEventListener('htmx:beforeRequest', mark);
    r = await axe.run(document, {resultTypes: ['violations']});
    document.removeEventListener('htmx:beforeRequest', mark);
    if (!moved && !busy()) break;
  }
  const out = [];
  for (const v of r.violations) {
    if (v.impact !== 'serious' && v.impact !== 'critical') continue;
    const where = v.nodes.slice(0, 5).map(n => n.target.join(' ') + (n.failureSummary ? ' (' + n.failureSummary.replace(/\s+/g, ' ').trim() + ')' : ''));
    out.push(v.id + ' [' + v.impact + '] ' + v.help + ' (' + v.helpUrl + '): ' + where.join('; ') + (v.nodes.length > 5 ? '; and ' + (v.nodes.length - 5) + ' more' : ''));
  }
  return out;
}`

// checkA11y runs axe-core on the page as it is now, at its current width,
// and reports every serious or critical violation as a test error (the
// test goes on, so one run lists them all). Any e2e test can call it
// after bringing a page into a state worth checking. axe runs in the
// page, so p needs JavaScript (a page without it never answers; the
// markup is the same either way).
func checkA11y(t *testing.T, p playwright.Page, where string) {
	t.Helper()
	for _, v := range axeViolations(t, p) {
		t.Errorf("%s: accessibility: %s", where, v)
	}
}

// axeViolations loads axe-core into the page (once) and runs axeRunJS.
func axeViolations(t *testing.T, p playwright.Page) []string {
	t.Helper()
	src, err := axeScript()
	must(t, err)
	_, err = p.Evaluate(src)
	must(t, err)
	v, err := p.Evaluate(axeRunJS)
	must(t, err)
	var out []string
	list, _ := v.([]any)
	for _, l := range list {
		out = append(out, fmt.Sprint(l))
	}
	return out
}

// a11yWidths are the widths every page is checked at: a phone's and a
// desktop's.
var a11yWidths = []int{390, 1280}

// checkA11yWidths is checkA11y at a phone's and a desktop's width, then
// back at the page's own size.
func checkA11yWidths(t *testing.T, p playwright.Page, where string) {
	t.Helper()
	old := p.ViewportSize()
	for _, w := range a11yWidths {
		must(t, p.SetViewportSize(w, 844))
		checkA11y(t, p, fmt.Sprintf("%s at %d px", where, w))
	}
	if old != nil {
		must(t, p.SetViewportSize(old.Width, old.Height))
	}
}

// a11yPages is every page of the web wallet, by who sees it ("" for
// someone logged out): the accessibility test visits each at both widths.
// A new page goes here.
var a11yPages = []struct{ user, path string }{
	{"", "/"},
	{"", "/login"}, // the development provider's form
	{"admin", "/"},
	{"admin", "/holdings"},
	{"admin", "/send"},
	{"admin", "/receive"},
	{"admin", "/offers"},
	{"admin", "/approvals"},
	{"admin", "/traffic"},
	{"admin", "/history"},
	{"admin", "/delegations"},
	{"admin", "/admin"},
	{"alice", "/offers"}, // incoming offers with Accept and Reject
	{"alice", "/"},       // the same as cards on Home
	{"admin", "/rewards"},
	{"alice", "/payments"}, // app payments (the confirm page: app_payments_test.go)
	{"admin", "/names"},
	{"admin", "/history?done=tapped"}, // the status line saying what happened
	{"alice", "/no-such-page"},
	{"bob", "/admin"}, // 403 for a user
	{"alice", "/api-explorer"},
	// Empty here; TestDvPFromTheAllocationsPage checks it with a trade.
	{"alice", "/allocations"},
	{"alice", "/subscriptions"},
	{"alice", "/confirm-subscription/{alice-request}?redirect=https%3A%2F%2Fshop.example.com%2Fback"},
}

// TestEveryPageAccessible: axe-core finds no serious or critical
// violation on any page at 390 and 1280 px, nor on the forms' answers
// (issue 24 item 14). The admin has coin, a pending minting delegation
// proposal, and an offer and an instruction out to alice, so the tables
// have rows and buttons.
func TestEveryPageAccessible(t *testing.T) {
	t.Parallel()
	newExternalParty(t, devToken(t, walletBin, "admin"), "e2e-a11y", "5")
	pages := map[string]playwright.Page{"": newPage(t, true)}
	for _, u := range []string{"admin", "alice", "bob"} {
		pages[u] = newPage(t, true)
		login(t, pages[u], u, false)
	}
	admin := pages["admin"]
	must(t, admin.Locator("#tap-amount").Fill("10"))
	must(t, testID(admin, "tap-submit").Click())
	must(t, expect.Locator(testID(admin, "flash")).ToContainText(tappedFlash)) // not an earlier flash
	// Alice's coin is left alone (other tests count it): what she gets
	// stays pending.
	aliceParty := partyOf(t, pages["alice"])
	sendForm(t, admin, aliceParty, "1", "offer")
	sendForm(t, admin, aliceParty, "1", "instruction")

	// A subscription request of the admin's (as an app) for alice.
	code, out, err := postJSON(http.DefaultClient, baseURL+"/v0/admin/devnet/subscription-requests", devToken(t, walletBin, "admin"),
		`{"sender":"`+aliceParty+`","receiver":"`+partyOf(t, admin)+`","provider":"`+partyOf(t, admin)+`","description":"Premium plan",`+
			`"amount":"1","payment_interval_seconds":2592000,"payment_duration_seconds":86400,"origins":["https://shop.example.com"]}`)
	if err != nil || code != http.StatusOK {
		t.Fatalf("subscription request: %d %s %v", code, out, err)
	}
	var req struct {
		ContractID string `json:"contract_id"`
	}
	must(t, json.Unmarshal([]byte(out), &req))
	for _, pg := range a11yPages {
		p := pages[pg.user]
		_, err := p.Goto(strings.ReplaceAll(pg.path, "{alice-request}", req.ContractID))
		must(t, err)
		who := pg.user
		if who == "" {
			who = "logged out"
		}
		checkA11yWidths(t, p, who+" "+pg.path)
	}

	// Pages with what a form said back, none of which changes anything:
	// the receiver check's and the send's errors, the traffic price to
	// confirm, and the faucet's error.
	answer := func(path, field, value, submit, shown, where string) {
		if path != "" {
			_, err := admin.Goto(path)
			must(t, err)
		}
		must(t, admin.Locator(field).Fill(value))
		must(t, testID(admin, submit).Click())
		must(t, expect.Locator(testID(admin, shown)).ToBeVisible())
		checkA11yWidths(t, admin, where)
	}
	answer("/send", "#send-receiver", "nobody", "send-check", "send-check-error", "send, receiver checked")
	answer("", "#send-amount", "1", "send-submit", "send-error", "send error")
	answer("/traffic", "#traffic-amount", "200000", "traffic-quote-submit", "traffic-confirm", "traffic price to confirm")
	answer("/", "#tap-amount", "lots", "tap-submit", "tap-error", "faucet error")
}

// TestAccessibilityCheckFindsViolations guards the helper itself: a page with an
// unlabelled field and a nameless button must be reported.
func TestAccessibilityCheckFindsViolations(t *testing.T) {
	t.Parallel()
	p := newPage(t, true)
	_, err := p.Goto("/")
	must(t, err)
	_, err = p.Evaluate(`() => { document.querySelector('main').insertAdjacentHTML('beforeend',
		'<form><input type="text"><button type="submit"></button></form>'); }`)
	must(t, err)
	got := strings.Join(axeViolations(t, p), "\n")
	for _, id := range []string{"label", "button-name"} {
		if !strings.Contains(got, id+" [") {
			t.Errorf("axe did not report %s on an unlabelled input and an empty button: %s", id, got)
		}
	}
}

// focusJS describes the focused element: whether it matches the selector,
// what it is, and whether it shows a focus ring (an outline of at least
// 2 px, or a box shadow).
const focusJS = `sel => {
  const el = document.activeElement;
  if (!el || el === document.body) return {match: false, what: 'nothing (body)', ring: true};
  const cs = getComputedStyle(el);
  const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2) || cs.boxShadow !== 'none';
  const what = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.dataset.testid ? '[' + el.dataset.testid + ']' : '') +
    ' "' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 40) + '"';
  return {match: el.matches(sel), what, ring};
}`

// focusedWhenSettled is focused once htmx has finished every request,
// swap and settle on the page: app.js moves the focus in htmx:afterSettle,
// which runs settleDelay (20 ms) after the swap that fills the message a
// test waits for, so asking at once can find the focus still on the body.
func focusedWhenSettled(t *testing.T, p playwright.Page, sel string) (match bool, what string, ring bool) {
	t.Helper()
	// Polled from here with Evaluate: WaitForFunction's polling evaluates
	// its predicate as a string, which the pages' CSP (no unsafe-eval)
	// refuses.
	for deadline := time.Now().Add(10 * time.Second); ; {
		idle, err := p.Evaluate(`() => !document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")`)
		must(t, err)
		if idle == true {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: htmx still busy after 10 s", p.URL())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// An autofocus (the flash of a page just loaded) applies at the
	// page's next rendering, which can come after its load: look again
	// for a moment before saying where the focus is.
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		match, what, ring = focused(t, p, sel)
		if match || time.Now().After(deadline) {
			return match, what, ring
		}
	}
}

// focused reports the focused element as focusJS sees it.
func focused(t *testing.T, p playwright.Page, sel string) (match bool, what string, ring bool) {
	t.Helper()
	v, err := p.Evaluate(focusJS, sel)
	must(t, err)
	m := v.(map[string]any)
	return m["match"] == true, fmt.Sprint(m["what"]), m["ring"] == true
}

// tabTo presses Tab until the element matching sel has the focus, as a
// person without a mouse would; every element focused on the way must
// show a focus ring.
func tabTo(t *testing.T, p playwright.Page, sel string) {
	t.Helper()
	var path []string
	for range 60 {
		must(t, p.Keyboard().Press("Tab"))
		match, what, ring := focused(t, p, sel)
		if !ring {
			t.Errorf("%s: focus on %s is not visible", p.URL(), what)
		}
		if match {
			return
		}
		path = append(path, what)
	}
	t.Fatalf("%s: %s not reached in 60 Tabs; focus went %s", p.URL(), sel, strings.Join(path, ", "))
}

// typeKeys types text into the focused element, key by key.
func typeKeys(t *testing.T, p playwright.Page, text string) {
	t.Helper()
	must(t, p.Keyboard().Type(text))
}

// keyboardLogin logs in through the development provider and onboards,
// with the keyboard alone; it ends on the home page.
func keyboardLogin(t *testing.T, p playwright.Page, base, user string) {
	t.Helper()
	_, err := p.Goto("/login")
	must(t, err)
	tabTo(t, p, "#username")
	typeKeys(t, p, user)
	tabTo(t, p, "#password")
	typeKeys(t, p, user+"-devnet")
	must(t, p.Keyboard().Press("Enter"))
	waitURL(t, p, base+"/onboard")
	checkA11yWidths(t, p, user+" /onboard")
	screenshot(t, p, "onboard") // always a new user here
	tabTo(t, p, `[data-testid="onboard-submit"]`)
	must(t, p.Keyboard().Press("Enter"))
	waitURL(t, p, regexp.MustCompile(`^`+regexp.QuoteMeta(base)+`/(\?done=onboarded)?$`))
}

// TestSendAndAcceptByKeyboard: alice logs in, taps, and sends bob an
// offer with the keyboard alone, Enter in the last field sending it; bob
// accepts it on the Offers page by keyboard, and the focus lands on the
// message saying so, not at the top of the page. The skip link is the
// first Tab stop and leads straight to the send form. Every focus on the
// way shows a ring (issue 24 item 14). A wallet of its own (SQLite), so
// the shared users' balances, which other tests count, stay as they are.
func TestSendAndAcceptByKeyboard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := startCrashServerWith(t, walletBin, filepath.Join(dir, "wallet.db"), dir, "")
	page := func() playwright.Page {
		c, err := browser.NewContext(playwright.BrowserNewContextOptions{BaseURL: playwright.String(srv.url),
			Viewport: &playwright.Size{Width: 1024, Height: 800}})
		must(t, err)
		t.Cleanup(func() { c.Close() })
		p, err := c.NewPage()
		must(t, err)
		// What the page said (htmx logs a request that failed) is part
		// of a failure's story.
		var mu sync.Mutex
		var said []string
		p.On("console", func(m playwright.ConsoleMessage) {
			mu.Lock()
			defer mu.Unlock()
			said = append(said, time.Now().Format("15:04:05.000 ")+m.Type()+": "+m.Text())
		})
		t.Cleanup(func() {
			mu.Lock()
			defer mu.Unlock()
			if t.Failed() && len(said) > 0 {
				t.Logf("%s's console:\n%s", p.URL(), strings.Join(said, "\n"))
			}
		})
		return p
	}
	alice, bob := page(), page()
	keyboardLogin(t, alice, srv.url, "alice")
	keyboardLogin(t, bob, srv.url, "bob")
	checkA11yWidths(t, bob, "new user's home")
	bobParty := partyOf(t, bob)

	tabTo(t, alice, "#tap-amount")
	typeKeys(t, alice, "10")
	must(t, alice.Keyboard().Press("Enter"))
	must(t, expect.Locator(testID(alice, "flash")).ToBeVisible())
	// The tap form was swapped with the focus in it; htmx keeps it on
	// the field of the same id.
	if match, what, _ := focusedWhenSettled(t, alice, "#tap-amount"); !match {
		t.Errorf("after the tap the focus is on %s, want the amount field", what)
	}

	tabTo(t, alice, `[data-testid="nav-send"]`)
	must(t, alice.Keyboard().Press("Enter"))
	waitURL(t, alice, srv.url+"/send")
	// The first Tab shows the skip link; Enter on it and one Tab more is
	// the receiver field.
	tabTo(t, alice, `[data-testid="skip-to-content"]`)
	if match, what, _ := focused(t, alice, ".skip"); !match {
		t.Errorf("the first Tab focuses %s, want the skip link", what)
	}
	box, err := testID(alice, "skip-to-content").BoundingBox()
	must(t, err)
	if box == nil || box.Width < 50 {
		t.Errorf("the focused skip link is %+v, want it shown", box)
	}
	must(t, alice.Keyboard().Press("Enter"))
	must(t, alice.Keyboard().Press("Tab"))
	if match, what, _ := focused(t, alice, "#send-receiver"); !match {
		t.Errorf("a Tab after the skip link focuses %s, want the receiver field", what)
	}
	typeKeys(t, alice, bobParty)
	tabTo(t, alice, "#send-amount")
	typeKeys(t, alice, "2.5")
	tabTo(t, alice, "#send-description")
	typeKeys(t, alice, "sent by keyboard")
	must(t, alice.Keyboard().Press("Enter"))
	if err := waitURLErr(alice, srv.url+"/send?done=sent-offer", 30*time.Second); err != nil {
		form, _ := testID(alice, "send-form").InnerText(playwright.LocatorInnerTextOptions{Timeout: playwright.Float(2000)})
		t.Fatalf("the send did not land (%v); the form says:\n%s", err, form)
	}
	must(t, expect.Locator(testID(alice, "flash")).ToContainText("Transfer offer sent"))

	_, err = bob.Goto("/")
	must(t, err)
	// Offers is under More, a disclosure Enter opens.
	tabTo(t, bob, `[data-testid="nav-more"]`)
	must(t, bob.Keyboard().Press("Enter"))
	tabTo(t, bob, `[data-testid="nav-offers"]`)
	must(t, bob.Keyboard().Press("Enter"))
	waitURL(t, bob, srv.url+"/offers")
	tabTo(t, bob, `[data-testid="incoming-offers-row"] [data-testid="accept"]`)
	must(t, bob.Keyboard().Press("Enter"))
	must(t, expect.Locator(testID(bob, "flash")).ToContainText("accepted"))
	mustBalance(t, testID(bob, "transfers-balance"), "2.50 CC")
	if match, what, ring := focusedWhenSettled(t, bob, `[data-testid="flash"]`); !match || !ring {
		t.Errorf("after accepting, the focus is on %s (ring %v), want the message saying so, with a ring", what, ring)
	}
}

// TestAccessibilityCheckWaitsForRest: a live update in flight fades
// Home's balance below the contrast minimum for a moment; the check
// waits for it to land rather than report it (it did once, in a full
// run, as "color-contrast ... #999999").
func TestAccessibilityCheckWaitsForRest(t *testing.T) {
	t.Parallel()
	p := newPage(t, true)
	login(t, p, "bob", false)
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	// "**/home/live*": a new wallet's Home asks with ?first=1 (bob's is
	// new when this test runs first or alone).
	must(t, p.Route("**/home/live*", func(r playwright.Route) {
		once.Do(func() { close(held) })
		<-release
		must(t, r.Continue())
	}))
	_, err := p.Evaluate(`() => htmx.trigger(document.body, "wallet-changed")`)
	must(t, err)
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("no live update was sent")
	}
	time.AfterFunc(2*time.Second, func() { close(release) })
	checkA11y(t, p, "home during a live update")
}
