package e2e

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestSendReviewByKeyboard: a one-step send (the receiver pre-approved
// direct transfers) goes through its review with the keyboard alone, at a
// phone's and a desktop's width: Tab to the fields, Enter to review; the
// focus lands on the review's warning that the transfer cannot be undone,
// and the next Tab is Confirm; Enter sends, and on the page that follows
// the focus is on the message saying it was sent (issue 37).
func TestSendReviewByKeyboard(t *testing.T) {
	t.Parallel()
	url, page := privateWallet(t)
	bobParty := preapprovedReceiver(t, url, page)

	alice := page(true)
	loginAt(t, alice, url, "alice", false)
	must(t, alice.Locator("#tap-amount").Fill("10")) // 2,000 CC
	must(t, testID(alice, "tap-submit").Click())
	must(t, expect.Locator(testID(alice, "flash")).ToContainText(tappedFlash)) // not an earlier flash

	for _, w := range []int{390, 1280} {
		where := fmt.Sprintf("at %d px", w)
		must(t, alice.SetViewportSize(w, 844))
		_, err := alice.Goto("/send")
		must(t, err)
		tabTo(t, alice, "#send-receiver")
		typeKeys(t, alice, bobParty)
		// The receiver check says who it is and chooses the one-step send.
		must(t, expect.Locator(testID(alice, "send-who-party")).ToHaveAttribute("title", bobParty))
		must(t, expect.Locator(testID(alice, "method-direct")).ToBeChecked())
		tabTo(t, alice, "#send-amount")
		typeKeys(t, alice, "12.5")
		tabTo(t, alice, "#send-description")
		typeKeys(t, alice, "by keyboard")
		must(t, alice.Keyboard().Press("Enter"))

		must(t, expect.Locator(testID(alice, "send-review")).ToBeVisible())
		must(t, expect.Locator(testID(alice, "send-review-amount")).ToHaveText("12.50 CC"))
		if match, what, ring := focusedWhenSettled(t, alice, `[data-testid="send-review-warning"]`); !match || !ring {
			t.Errorf("%s: on the review the focus is on %s (ring %v), want the warning, shown", where, what, ring)
		}
		must(t, alice.Keyboard().Press("Tab"))
		if match, what, ring := focused(t, alice, `[data-testid="send-confirm"]`); !match || !ring {
			t.Errorf("%s: a Tab after the warning focuses %s (ring %v), want Confirm, shown", where, what, ring)
		}
		tabTo(t, alice, `[data-testid="send-confirm"]`)
		must(t, alice.Keyboard().Press("Enter"))
		waitURL(t, alice, regexp.MustCompile(`/send\?done=sent-direct$`))
		must(t, expect.Locator(testID(alice, "flash")).ToContainText("Sent."))
		if match, what, ring := focusedWhenSettled(t, alice, "#flash"); !match || !ring {
			t.Errorf("%s: after sending the focus is on %s (ring %v), want the message saying it was sent", where, what, ring)
		}
		// Tab goes on from the message into the page, not from its top.
		must(t, alice.Keyboard().Press("Tab"))
		if match, what, _ := focused(t, alice, "main *"); !match {
			t.Errorf("%s: a Tab after the message focuses %s, want something in main", where, what)
		}
	}
}

// preapprovedReceiver logs bob in on a private wallet and turns on his
// preapproval of direct transfers on Receive; it returns his party.
func preapprovedReceiver(t *testing.T, url string, page func(js bool) playwright.Page) string {
	t.Helper()
	bob := page(true)
	loginAt(t, bob, url, "bob", false)
	bobParty := partyOf(t, bob)
	_, err := bob.Goto("/receive")
	mustOn(t, bob, err)
	mustOn(t, bob, expect.Locator(testID(bob, "receive-preapproval-off")).ToBeVisible())
	mustOn(t, bob, testID(bob, "receive-preapproval-switch").Click())
	mustOn(t, bob, expect.Locator(testID(bob, "receive-preapproval-on")).ToBeVisible())
	return bobParty
}
