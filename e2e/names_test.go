package e2e

import (
	"net/http"
	"testing"
)

// TestNamePurchaseBySubscription buys a name in the browser (issue 26
// point 1): alice requests alice.unverified.cns on the Names page, which
// points her to its subscription; she accepts it on the confirm page, the
// DSO's automation collects the first payment on a development network's
// advance, the Names page lists the name with its expiry, and bob sends
// to the name on the Send page: the offer reaches alice, and bob's
// Offers page shows her name beside her party; both pages pass axe-core
// and fit a phone.
func TestNamePurchaseBySubscription(t *testing.T) {
	t.Parallel()
	base := ownWallet(t)
	alice, bob := newPage(t, true), newPage(t, true)
	loginAt(t, alice, base, "alice", false)
	must(t, alice.Locator("#tap-amount").Fill("100"))
	must(t, testID(alice, "tap-submit").Click())
	mustBalance(t, testID(alice, "balance-cc"), "20,000.00 CC")

	navTo(t, alice, "names")
	waitURL(t, alice, base+"/names")
	must(t, alice.Locator("#names-name").Fill("alice"))
	must(t, alice.Locator("#names-url").Fill("https://alice.example"))
	must(t, testID(alice, "names-request").Click())
	waitURL(t, alice, base+"/names?done=name-requested")
	must(t, expect.Locator(testID(alice, "flash")).ToContainText("accept its subscription"))
	must(t, testID(alice, "names-accept").Click())
	must(t, expect.Locator(testID(alice, "confirm-subscription")).ToContainText("alice.unverified.cns"))
	must(t, testID(alice, "confirm-accept").Click())
	must(t, expect.Locator(testID(alice, "flash")).ToBeVisible())

	// The DSO's automation collects the first payment.
	code, out, err := postJSON(http.DefaultClient, base+"/v0/admin/devnet/advance-rounds", devToken(t, walletBin, "admin"), `{"rounds":1}`)
	if err != nil || code != http.StatusOK {
		t.Fatalf("advance = %d %s %v", code, out, err)
	}
	_, err = alice.Goto(base + "/names")
	must(t, err)
	must(t, expect.Locator(testID(alice, "names-status")).ToContainText("Expires"))
	checkA11yWidths(t, alice, "alice /names with a name")

	loginAt(t, bob, base, "bob", false)
	must(t, bob.Locator("#tap-amount").Fill("1"))
	must(t, testID(bob, "tap-submit").Click())
	must(t, expect.Locator(testID(bob, "flash")).ToContainText(tappedFlash)) // not an earlier flash
	must(t, testID(bob, "nav-send").Click())
	waitURL(t, bob, base+"/send")
	must(t, bob.Locator("#send-receiver").Fill("alice.unverified.cns"))
	must(t, expect.Locator(bob.Locator(`[data-testid="method-direct"], [data-testid="no-preapproval"], [data-testid="send-check-error"]`).First()).ToBeVisible())
	must(t, testID(bob, "method-offer").Check())
	must(t, bob.Locator("#send-amount").Fill("2"))
	must(t, testID(bob, "send-submit").Click())
	waitURL(t, bob, base+"/send?done=sent-offer")

	_, err = bob.Goto(base + "/offers")
	must(t, err)
	must(t, expect.Locator(testID(bob, "party-name").First()).ToHaveText("alice.unverified.cns"))
	checkA11yWidths(t, bob, "bob /offers with a named party")
	_, err = alice.Goto(base + "/offers")
	must(t, err)
	must(t, expect.Locator(alice.Locator(`[data-testid="incoming-offers-row"]`)).ToHaveCount(1))
}
