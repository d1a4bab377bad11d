package e2e

import (
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// These tests are not parallel: they run before the parallel ones start,
// so bob's preapproval, made and revoked here, is gone again when the
// other tests use bob.

// newPageAt is newPage at a width (a phone's is 390 px).
func newPageAt(t *testing.T, js bool, width int) playwright.Page {
	t.Helper()
	p := newPage(t, js)
	must(t, p.SetViewportSize(width, 844))
	return p
}

// noSidewaysScroll fails when p's document is wider than its viewport.
func noSidewaysScroll(t *testing.T, p playwright.Page, where string) {
	t.Helper()
	if l := measure(t, p); l.SW > l.VW {
		t.Errorf("%s: scrolls sideways (document %v px wide in %v)", where, l.SW, l.VW)
	}
}

// TestFormPostWithoutJavaScriptSaysWhatHappened: a plain form post (no
// htmx) lands on a page whose status region says what it did, on a phone
// without sideways scrolling (issue 24 point 6).
func TestFormPostWithoutJavaScriptSaysWhatHappened(t *testing.T) {
	p := newPageAt(t, false, 390)
	login(t, p, "admin", false)
	must(t, p.Locator("#tap-amount").Fill("1"))
	must(t, testID(p, "tap-submit").Click())
	waitURL(t, p, baseURL+"/?done=tapped")
	flash := testID(p, "flash")
	must(t, expect.Locator(flash).ToHaveText("Coin from the faucet is in your wallet."))
	must(t, expect.Locator(flash).ToHaveAttribute("role", "status"))
	noSidewaysScroll(t, p, "home after a tap")

	// An error in words, next to the form.
	must(t, p.Locator("#tap-amount").Fill("1.123456789012"))
	must(t, testID(p, "tap-submit").Click())
	must(t, expect.Locator(testID(p, "tap-error")).ToHaveText(`"1.123456789012" has 12 decimal places: use at most 10.`))
	noSidewaysScroll(t, p, "home with a tap error")
}

// TestAdminOffboardsAUser: the admin onboards dave, is told so, offboards
// him after confirming, and onboarding him again says "onboarded" once
// more; on a phone (issue 24 point 6).
func TestAdminOffboardsAUser(t *testing.T) {
	p := newPageAt(t, true, 390)
	login(t, p, "admin", false)
	_, err := p.Goto("/admin")
	must(t, err)
	must(t, p.Locator("#onboard-name").Fill("dave"))
	must(t, testID(p, "onboard-user-submit").Click())
	must(t, expect.Locator(testID(p, "flash")).ToHaveText("User onboarded: they can log in and use their wallet."))
	must(t, p.Locator("#onboard-name").Fill("dave"))
	must(t, testID(p, "onboard-user-submit").Click())
	must(t, expect.Locator(testID(p, "flash")).ToHaveText("That user was already onboarded; nothing changed."))

	dave := p.Locator(`[data-testid="user-row"][data-user="dave"]`)
	must(t, dave.GetByTestId("offboard-user").Click())
	must(t, expect.Locator(testID(p, "offboard-confirm")).ToContainText("Offboard dave?"))
	noSidewaysScroll(t, p, "admin asking to confirm")
	must(t, testID(p, "offboard-confirm-submit").Click())
	must(t, expect.Locator(testID(p, "flash")).ToContainText("User offboarded"))
	must(t, expect.Locator(dave).ToHaveCount(0))
	noSidewaysScroll(t, p, "admin after offboarding")

	// The operator's own user has no offboard button.
	must(t, expect.Locator(p.Locator(`[data-testid="user-row"][data-user="admin"]`).GetByTestId("offboard-user")).ToHaveCount(0))
}

// TestUndoPreapproval: bob pre-approves direct transfers and revokes the
// preapproval on the same page, each time told what happened (issue 24
// point 7).
func TestUndoPreapproval(t *testing.T) {
	p := newPageAt(t, true, 390)
	login(t, p, "bob", false)
	navTo(t, p, "approvals")
	waitURL(t, p, baseURL+"/approvals")
	must(t, testID(p, "preapproval-create").Click())
	must(t, expect.Locator(testID(p, "flash")).ToContainText("Direct transfers pre-approved"))
	must(t, expect.Locator(testID(p, "preapproval-active")).ToBeVisible())
	must(t, testID(p, "preapproval-revoke").Click())
	must(t, expect.Locator(testID(p, "flash")).ToHaveText("Preapproval revoked: others must send you transfer offers again."))
	must(t, expect.Locator(testID(p, "preapproval-none")).ToBeVisible())
	must(t, expect.Locator(testID(p, "preapproval-create")).ToBeVisible())
	noSidewaysScroll(t, p, "approvals after the undo")
}

// TestErrorsAndUpdateIDsInPeoplesTerms: the traffic form's minimum is
// said in bytes and coin, grouped for people, with no field prefix
// (issue 24 point 8); History shows each entry's update ID short, with
// the whole ID in its title and on copy (point 10).
func TestErrorsAndUpdateIDsInPeoplesTerms(t *testing.T) {
	p := newPageAt(t, false, 390)
	login(t, p, "admin", false)
	party := partyOf(t, p)
	must(t, p.Locator("#tap-amount").Fill("1")) // an entry for History below
	must(t, testID(p, "tap-submit").Click())
	waitURL(t, p, baseURL+"/?done=tapped")
	_, err := p.Goto("/traffic")
	must(t, err)
	must(t, p.Locator("#traffic-member").Fill(party))
	must(t, p.Locator("#traffic-amount").Fill("299"))
	must(t, testID(p, "traffic-quote-submit").Click())
	errText := testID(p, "traffic-error")
	must(t, expect.Locator(errText).ToContainText("minimum traffic purchase is 200,000 bytes (about"))
	if txt, err := errText.TextContent(); err != nil || strings.Contains(txt, "amount:") {
		t.Errorf("traffic error %q (%v) carries a field prefix", txt, err)
	}
	noSidewaysScroll(t, p, "traffic with an error")

	_, err = p.Goto("/history")
	must(t, err)
	id := testID(p, "history-update").First()
	// The update is among an entry's details, shown on tap (issue 37).
	must(t, testID(p, "history-row").Filter(playwright.LocatorFilterOptions{Has: id}).First().GetByTestId("history-summary").Click())
	must(t, expect.Locator(id).ToBeVisible())
	full, err := id.GetAttribute("data-update")
	must(t, err)
	title, err := id.GetAttribute("title")
	must(t, err)
	if full == "" || title != full {
		t.Errorf("update ID: data-update %q, title %q", full, title)
	}
	if shown, err := id.Locator(".party-short").InnerText(); err != nil || len(shown) >= len(full) || !strings.HasPrefix(full, shown[:4]) {
		t.Errorf("update ID shown as %q (%v), want a short form of %q", shown, err, full)
	}
}
