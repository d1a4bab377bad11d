package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
// one line each: rule, impact, help, where.
const axeRunJS = `async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
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
// after bringing a page into a state worth checking.
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
	{"admin", "/offers"},
	{"admin", "/approvals"},
	{"admin", "/traffic"},
	{"admin", "/history"},
	{"admin", "/delegations"},
	{"admin", "/admin"},
	{"alice", "/offers"}, // incoming offers with Accept and Reject
	{"alice", "/no-such-page"},
	{"bob", "/admin"}, // 403 for a user
}

// TestEveryPageAccessible: axe-core finds no serious or critical
// violation on any page at 390 and 1280 px (issue 24 item 14). The admin
// has coin, a pending minting delegation proposal, and an offer and an
// instruction out to alice, so the tables have rows and buttons.
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
	must(t, expect.Locator(testID(admin, "tap-ok")).ToBeVisible())
	// Alice's coin is left alone (other tests count it): what she gets
	// stays pending.
	aliceParty := partyOf(t, pages["alice"])
	sendForm(t, admin, aliceParty, "1", "offer")
	sendForm(t, admin, aliceParty, "1", "instruction")

	for _, pg := range a11yPages {
		p := pages[pg.user]
		_, err := p.Goto(pg.path)
		must(t, err)
		who := pg.user
		if who == "" {
			who = "logged out"
		}
		checkA11yWidths(t, p, who+" "+pg.path)
	}
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
