package e2e

// Issue 37 points 3-6 (the phone-money part): amounts and times for
// people, Activity rows, Receive, Send with rails; each at a phone's and a
// desktop's width.

import (
	"bytes"
	"fmt"
	"image/png"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	qr "github.com/piglig/go-qr"
	"github.com/playwright-community/playwright-go"
)

// privateWallet starts a wallet of the test's own (SQLite), so what it turns
// on (a preapproval) changes nothing for the other tests' shared users;
// page opens a browser context on it, with or without JavaScript.
func privateWallet(t *testing.T) (url string, page func(js bool) playwright.Page) {
	t.Helper()
	dir := t.TempDir()
	srv := startCrashServerWith(t, walletBin, filepath.Join(dir, "wallet.db"), dir, "")
	return srv.url, func(js bool) playwright.Page {
		c, err := browser.NewContext(playwright.BrowserNewContextOptions{BaseURL: playwright.String(srv.url),
			JavaScriptEnabled: playwright.Bool(js), Viewport: &playwright.Size{Width: 390, Height: 844},
			Permissions: []string{"clipboard-read", "clipboard-write"}})
		must(t, err)
		t.Cleanup(func() { c.Close() })
		p, err := c.NewPage()
		must(t, err)
		return p
	}
}

// selectionOf selects the element's contents as a person would and
// returns what a copy would take.
func selectionOf(t *testing.T, l playwright.Locator) string {
	t.Helper()
	got, err := l.Evaluate(`el => { const r = document.createRange(); r.selectNodeContents(el);
		const s = getSelection(); s.removeAllRanges(); s.addRange(r); return s.toString(); }`, nil)
	must(t, err)
	return fmt.Sprint(got)
}

// TestAmountsAndTimesForPeople: an amount shows 2 decimals with the exact
// value in its title, in a copy and on focus; the CSV keeps it exact; a
// time reads relative in a <time datetime> with the exact time in its
// title (issue 37 point 4).
func TestAmountsAndTimesForPeople(t *testing.T) {
	t.Parallel()
	p := newPage(t, true)
	login(t, p, "admin", false)
	// 0.0123457 USD at 0.005 USD per CC is 2.46914 CC.
	must(t, p.Locator("#tap-amount").Fill("0.0123457"))
	must(t, testID(p, "tap-submit").Click())
	must(t, expect.Locator(testID(p, "flash")).ToContainText(tappedFlash)) // not an earlier flash
	for _, w := range []int{390, 1280} {
		must(t, p.SetViewportSize(w, 844))
		_, err := p.Goto("/history?kind=balance_change")
		must(t, err)
		row := p.Locator(`[data-testid="history-row"][data-subtype="Tap"]`).Filter(playwright.LocatorFilterOptions{HasText: "2.47 CC"}).First()
		must(t, expect.Locator(row.GetByTestId("history-summary")).ToContainText("+2.47 CC"))
		when := row.GetByTestId("history-when")
		must(t, expect.Locator(when).ToHaveText(regexp.MustCompile(`^(just now|\d+ min ago)$`)))
		must(t, expect.Locator(when).ToHaveAttribute("datetime", regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)))
		must(t, expect.Locator(when).ToHaveAttribute("title", regexp.MustCompile(`UTC`)))
		must(t, row.GetByTestId("history-summary").Click())
		amt := row.GetByTestId("history-amount")
		must(t, expect.Locator(amt).ToHaveAttribute("title", "2.4691400000 CC"))
		must(t, expect.Locator(amt.Locator(".amt-short")).ToHaveText("2.47"))
		if got := selectionOf(t, amt); got != "2.46914 CC" {
			t.Errorf("at %d px selecting the amount copies %q, want the exact 2.46914 CC", w, got)
		}
		must(t, amt.Focus())
		must(t, expect.Locator(amt.Locator(".amt-short")).ToBeHidden())
		must(t, expect.Locator(amt.Locator(".amt-full")).ToBeVisible())
		checkA11y(t, p, fmt.Sprintf("history with an entry open at %d px", w))
	}
	res, err := p.Request().Get("/history.csv?kind=balance_change")
	must(t, err)
	body, err := res.Text()
	must(t, err)
	if !strings.Contains(body, ",2.4691400000,") {
		t.Errorf("the CSV lacks the exact amount 2.4691400000:\n%s", body)
	}
}

// TestHistoryRowsOneLineOnPhone: on a phone each history entry is one
// line (kind, counterparty, signed amount, when) with its details on tap,
// by mouse, by keyboard and without JavaScript; at 1280 px nothing is cut
// off, a long description included (issue 37 point 5).
func TestHistoryRowsOneLineOnPhone(t *testing.T) {
	t.Parallel()
	admin := newPage(t, true)
	login(t, admin, "admin", false)
	must(t, admin.Locator("#tap-amount").Fill("10"))
	must(t, testID(admin, "tap-submit").Click())
	must(t, expect.Locator(testID(admin, "flash")).ToContainText(tappedFlash)) // not an earlier flash
	bob := newPage(t, false)
	login(t, bob, "bob", false)
	long := "History " + strings.Repeat("Rentfortheserverroomanditscooling", 6)[:180]
	sendFormWith(t, admin, partyOf(t, bob), "1.5", "instruction", long)

	for _, w := range []int{390, 1280} {
		must(t, admin.SetViewportSize(w, 844))
		_, err := admin.Goto("/history")
		must(t, err)
		rows := testID(admin, "history-row")
		must(t, expect.Locator(rows.First()).ToBeVisible())
		v, err := admin.Evaluate(`() => [...document.querySelectorAll('[data-testid=history-summary]')].map(s => {
			const r = s.getBoundingClientRect(); const lh = parseFloat(getComputedStyle(s).lineHeight) || 24;
			const cut = [...s.querySelectorAll('.act-desc, .act-kind, .act-amt, .act-when')].filter(e => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1).length;
			return {h: r.height, lh, right: r.right, cut, vw: document.documentElement.clientWidth, sw: document.documentElement.scrollWidth};
		})`)
		must(t, err)
		list, _ := v.([]any)
		if len(list) == 0 {
			t.Fatalf("at %d px: no history summaries", w)
		}
		for i, x := range list {
			m := x.(map[string]any)
			h, lh := toF(m["h"]), toF(m["lh"])
			if w == 390 && h > 2*lh {
				t.Errorf("at 390 px row %d is %v px high, want one line (%v px)", i, h, lh)
			}
			if toF(m["right"]) > toF(m["vw"])+0.5 || toF(m["sw"]) > toF(m["vw"]) {
				t.Errorf("at %d px row %d reaches %v px in %v (document %v)", w, i, m["right"], m["vw"], m["sw"])
			}
			if w == 1280 && toF(m["cut"]) > 0 {
				t.Errorf("at 1280 px row %d cuts %v of its parts off", i, m["cut"])
			}
		}
		row := rows.Filter(playwright.LocatorFilterOptions{HasText: long[:40]}).First()
		if w == 1280 {
			must(t, expect.Locator(row.Locator(".act-desc")).ToBeVisible())
		}
		// Keyboard: Tab to the summary, Enter opens the details.
		must(t, row.GetByTestId("history-summary").Focus())
		must(t, admin.Keyboard().Press("Enter"))
		must(t, expect.Locator(row.Locator("dl.act-more")).ToBeVisible())
		must(t, expect.Locator(row.Locator("dl.act-more")).ToContainText("Fees"))
		checkA11y(t, admin, fmt.Sprintf("history at %d px", w))
	}
	// Without JavaScript (bob's page): a tap opens the details too.
	must(t, bob.SetViewportSize(390, 844))
	_, err := bob.Goto("/history")
	must(t, err)
	row := testID(bob, "history-row").First()
	must(t, expect.Locator(row.Locator("dl.act-more")).ToBeHidden())
	must(t, row.GetByTestId("history-summary").Click())
	must(t, expect.Locator(row.Locator("dl.act-more")).ToBeVisible())
}

func toF(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// TestReceivePage: /receive shows the whole party ID to select and copy
// (Copy with JavaScript, the selectable field without), a QR code drawn
// on the server that decodes to the ID, and a one-tap switch for direct
// transfers, at 390 and 1280 px, by keyboard and without JavaScript
// (issue 37 point 3).
func TestReceivePage(t *testing.T) {
	t.Parallel()
	url, page := privateWallet(t)
	bob := page(true)
	loginAt(t, bob, url, "bob", false)
	party := partyOf(t, bob)
	for _, w := range []int{390, 1280} {
		must(t, bob.SetViewportSize(w, 844))
		_, err := bob.Goto("/receive")
		must(t, err)
		must(t, expect.Locator(testID(bob, "receive-party")).ToHaveValue(party))
		noSidewaysScroll(t, bob, fmt.Sprintf("receive at %d px", w))
		qrBox := testID(bob, "receive-qr").Locator("svg")
		must(t, expect.Locator(qrBox).ToBeVisible())
		shot, err := qrBox.Screenshot()
		must(t, err)
		img, err := png.Decode(bytes.NewReader(shot))
		must(t, err)
		if got, err := qr.Decode(img); err != nil || got != party {
			t.Errorf("at %d px the QR code reads %q (%v), want %q", w, got, err, party)
		}
		checkA11y(t, bob, fmt.Sprintf("receive at %d px", w))
	}
	screenshot(t, bob, "receive")
	// Focus selects the whole ID; Copy puts it on the clipboard.
	must(t, testID(bob, "receive-party").Focus())
	sel, err := testID(bob, "receive-party").Evaluate(`el => el.value.substring(el.selectionStart, el.selectionEnd)`, nil)
	must(t, err)
	if sel != party {
		t.Errorf("focusing the ID selects %q, want the whole ID", sel)
	}
	must(t, testID(bob, "receive-copy").Click())
	clip, err := bob.Evaluate(`() => navigator.clipboard.readText()`)
	must(t, err)
	if clip != party {
		t.Errorf("Copy put %q on the clipboard, want %q", clip, party)
	}
	// The switch, by keyboard: on, then off again.
	sw := testID(bob, "receive-preapproval-switch")
	must(t, expect.Locator(sw).ToHaveAttribute("aria-checked", "false"))
	must(t, sw.Focus())
	must(t, bob.Keyboard().Press("Enter"))
	waitURL(t, bob, regexp.MustCompile(`/receive\?done=preapproved$`))
	must(t, expect.Locator(sw).ToHaveAttribute("aria-checked", "true"))
	must(t, expect.Locator(testID(bob, "receive-preapproval-expires")).ToHaveText(regexp.MustCompile(`^in \d+ (d|h)$`)))
	checkA11y(t, bob, "receive with direct transfers on")
	must(t, sw.Click())
	waitURL(t, bob, regexp.MustCompile(`/receive\?done=preapproval-revoked$`))
	must(t, expect.Locator(sw).ToHaveAttribute("aria-checked", "false"))

	// Without JavaScript: no Copy button, the ID is there to select, the
	// switch still works.
	nojs := page(false)
	loginAt(t, nojs, url, "bob", false)
	_, err = nojs.Goto("/receive")
	must(t, err)
	must(t, expect.Locator(testID(nojs, "receive-copy")).ToBeHidden())
	must(t, expect.Locator(testID(nojs, "receive-party")).ToHaveValue(party))
	must(t, expect.Locator(testID(nojs, "receive-qr")).ToBeVisible())
	must(t, testID(nojs, "receive-preapproval-switch").Click())
	waitURL(t, nojs, regexp.MustCompile(`/receive\?done=preapproved$`))
	must(t, expect.Locator(testID(nojs, "receive-preapproval-on")).ToBeVisible())
}

// TestSendWithRails: "To" says who the receiver is; the amount shows its
// USD value as it is typed and has a Max (the ledger's MaxSend); a
// one-step transfer is shown to confirm before it is sent; an error
// shows at its field (aria-describedby) and answers htmx with 200, so the
// console stays clean; without JavaScript it all still works (issue 37
// point 6).
func TestSendWithRails(t *testing.T) {
	t.Parallel()
	price := coin.MustParse("0.005") // the development network's
	url, page := privateWallet(t)
	bobParty := preapprovedReceiver(t, url, page)

	alice := page(true)
	var problems []string
	alice.On("console", func(m playwright.ConsoleMessage) {
		if m.Type() == "error" {
			problems = append(problems, "console: "+m.Text())
		}
	})
	alice.On("response", func(r playwright.Response) {
		if r.Status() >= 400 {
			problems = append(problems, fmt.Sprintf("%d %s", r.Status(), r.URL()))
		}
	})
	loginAt(t, alice, url, "alice", false)
	must(t, alice.Locator("#tap-amount").Fill("10")) // 2,000 CC
	must(t, testID(alice, "tap-submit").Click())
	must(t, expect.Locator(testID(alice, "flash")).ToContainText(tappedFlash)) // not an earlier flash

	for _, w := range []int{390, 1280} {
		must(t, alice.SetViewportSize(w, 844))
		_, err := alice.Goto("/send")
		must(t, err)
		bal := balanceOnSend(t, alice)
		must(t, expect.Locator(testID(alice, "send-balance-usd")).ToHaveAttribute("title", ledger.CoinToUSD(bal, price).String()+" USD"))
		must(t, alice.Locator("#send-receiver").Fill(bobParty))
		must(t, expect.Locator(testID(alice, "send-who-party")).ToHaveAttribute("title", bobParty))
		must(t, expect.Locator(testID(alice, "method-direct")).ToBeChecked())
		must(t, alice.Locator("#send-amount").Fill("100"))
		must(t, expect.Locator(testID(alice, "send-usd")).ToHaveText(regexp.MustCompile(`≈\s*0\.50 USD`)))
		must(t, testID(alice, "send-max").Click())
		// The network's fees are 0 today: Max is the whole balance.
		must(t, expect.Locator(alice.Locator("#send-amount")).ToHaveValue(bal.Short()))
		must(t, expect.Locator(testID(alice, "send-usd").Locator(".amt")).ToHaveAttribute("title", ledger.CoinToUSD(bal, price).String()+" USD"))
		// A mistake: shown at the amount, which it describes.
		must(t, alice.Locator("#send-amount").Fill("lots"))
		must(t, testID(alice, "send-submit").Click())
		must(t, expect.Locator(alice.Locator("#send-amount-error")).ToBeVisible())
		must(t, expect.Locator(alice.Locator("#send-amount")).ToHaveAttribute("aria-describedby", regexp.MustCompile(`\bsend-amount-error\b`)))
		must(t, expect.Locator(alice.Locator("#send-amount")).ToHaveAttribute("aria-invalid", "true"))
		checkA11y(t, alice, fmt.Sprintf("send with an amount error at %d px", w))
		noSidewaysScroll(t, alice, fmt.Sprintf("send with an error at %d px", w))
		// The review, Change, the review again, Confirm.
		must(t, alice.Locator("#send-amount").Fill("12.5"))
		must(t, alice.Locator("#send-description").Fill("lunch"))
		must(t, testID(alice, "send-submit").Click())
		must(t, expect.Locator(testID(alice, "send-review")).ToBeVisible())
		must(t, expect.Locator(testID(alice, "send-review-amount")).ToHaveText("12.50 CC"))
		must(t, expect.Locator(testID(alice, "send-review-to")).ToHaveAttribute("title", bobParty))
		must(t, expect.Locator(testID(alice, "send-review-warning")).ToContainText("cannot be undone"))
		checkA11y(t, alice, fmt.Sprintf("send review at %d px", w))
		noSidewaysScroll(t, alice, fmt.Sprintf("send review at %d px", w))
		must(t, testID(alice, "send-edit").Click())
		must(t, expect.Locator(alice.Locator("#send-amount")).ToHaveValue("12.5"))
		must(t, expect.Locator(alice.Locator("#send-description")).ToHaveValue("lunch"))
		must(t, testID(alice, "send-submit").Click())
		must(t, testID(alice, "send-confirm").Click())
		waitURL(t, alice, regexp.MustCompile(`/send\?done=sent-direct$`))
	}
	for _, p := range problems {
		t.Error(p)
	}

	// Without JavaScript: the check, Max, the error and the review are
	// plain posts.
	nojs := page(false)
	loginAt(t, nojs, url, "alice", false)
	_, err := nojs.Goto("/send")
	must(t, err)
	must(t, nojs.Locator("#send-receiver").Fill(bobParty))
	must(t, testID(nojs, "send-check").Click())
	must(t, expect.Locator(testID(nojs, "send-who-party")).ToHaveAttribute("title", bobParty))
	bal := balanceOnSend(t, nojs)
	must(t, testID(nojs, "send-max").Click())
	must(t, expect.Locator(nojs.Locator("#send-amount")).ToHaveValue(bal.Short()))
	must(t, nojs.Locator("#send-amount").Fill("0"))
	must(t, testID(nojs, "send-submit").Click())
	must(t, expect.Locator(nojs.Locator("#send-amount-error")).ToContainText("greater than 0"))
	must(t, nojs.Locator("#send-amount").Fill("2"))
	must(t, testID(nojs, "send-submit").Click())
	must(t, expect.Locator(testID(nojs, "send-review-usd")).ToHaveText("0.01 USD"))
	must(t, testID(nojs, "send-confirm").Click())
	waitURL(t, nojs, regexp.MustCompile(`/send\?done=sent-direct$`))
}

// balanceOnSend reads the send page's available balance, exact.
func balanceOnSend(t *testing.T, p playwright.Page) coin.Amount {
	t.Helper()
	title, err := testID(p, "send-balance").Locator(".amt").First().GetAttribute("title")
	must(t, err)
	a, err := coin.ParseAmount(strings.TrimSuffix(title, " CC"))
	must(t, err)
	return a
}
