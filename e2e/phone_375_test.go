package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// smallTargetsJS lists what a thumb would miss on the page: visible links,
// buttons, inputs, selects and summaries less than 44 px tall or wide
// (links inside running text excepted, WCAG 2.5.8's inline exception),
// and text cut off (an element narrower than its content that hides the
// rest).
const smallTargetsJS = `() => {
  const out = [];
  const name = e => (e.getAttribute('data-testid') || e.id || e.tagName.toLowerCase()) + ' "' + (e.innerText || e.value || '').trim().slice(0, 30) + '"';
  for (const e of document.querySelectorAll('a[href], button, input:not([type=hidden]), select, summary, textarea')) {
    const r = e.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue; // hidden, or for screen readers only
    if (getComputedStyle(e).visibility === 'hidden') continue;
    if (e.matches('p a, li.row a:not(.button), dd a, .muted a, span a') && getComputedStyle(e).display === 'inline') continue;
    let box = r;
    if (e.matches('input[type=radio], input[type=checkbox]')) {
      const l = e.closest('label') || document.querySelector('label[for="' + e.id + '"]');
      if (l) box = l.getBoundingClientRect();
    }
    if (box.height < 44 || box.width < 44) out.push('small target ' + name(e) + ' ' + Math.round(box.width) + 'x' + Math.round(box.height));
  }
  for (const e of document.querySelectorAll('.amt, h1, h2, label, button, .hero-cc, .hero-usd')) {
    if (e.getBoundingClientRect().width <= 1) continue;
    if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== 'visible') out.push('cut off ' + name(e));
    const r = e.getBoundingClientRect();
    if (r.width > 0 && (r.right > innerWidth + 0.5 || r.left < -0.5)) out.push('off screen ' + name(e));
  }
  return out;
}`

// phoneProblems is what smallTargetsJS finds on p.
func phoneProblems(t *testing.T, p playwright.Page) []string {
	t.Helper()
	v, err := p.Evaluate(smallTargetsJS)
	must(t, err)
	var out []string
	for _, x := range v.([]any) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// TestPhoneAt375TapTargets: Home (with coin and a waiting offer), Send and
// Receive at 375 px, the narrowest common phone: every control a thumb
// needs is at least 44 by 44 px, no amount or heading is cut off, nothing
// is off the screen or scrolls sideways, and Send's "(… USD)" has no
// space before its ")" (issue 37, "a wallet people love on a phone").
// Before, inputs and buttons were 40 px tall, the header's and footer's
// links 24 px, Copy 27 px and Activity's rows 40 px.
func TestPhoneAt375TapTargets(t *testing.T) {
	t.Parallel()
	base := ownWallet(t)
	p := newPageAt(t, true, 375)
	must(t, p.SetViewportSize(375, 812))
	loginAt(t, p, base, "alice", false)
	must(t, p.Locator("#tap-amount").Fill("100000"))
	must(t, testID(p, "tap-submit").Click())
	mustBalance(t, testID(p, "balance-cc"), "20,000,000.00 CC")
	dir := os.Getenv("PHONE375_SHOTS")
	for i, path := range []string{"/", "/send", "/receive"} {
		_, err := p.Goto(base + path)
		must(t, err)
		where := fmt.Sprintf("%s at 375 px", path)
		noSidewaysScroll(t, p, where)
		for _, bad := range phoneProblems(t, p) {
			t.Errorf("%s: %s", where, bad)
		}
		checkA11y(t, p, where)
		if path == "/send" {
			// The USD in parentheses stays with them (no "USD )").
			must(t, expect.Locator(testID(p, "send-balance-usd").Locator("xpath=..")).ToHaveText("(100,000.00 USD)"))
		}
		if dir != "" {
			_, err := p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(dir, fmt.Sprintf("375-%d.png", i))), FullPage: playwright.Bool(true)})
			must(t, err)
		}
	}
}
