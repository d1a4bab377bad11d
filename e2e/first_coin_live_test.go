package e2e

import (
	"testing"
)

// TestFirstCoinGoesWhenTheTapLands: on a development network a new
// wallet's Home shows the "Get your first coin" card with the faucet; the
// first tap's live update (the one that refreshes the balance) takes the
// card away and brings the faucet back further down, without a reload,
// at a phone's width (issue 37 point 7). Before, the card stayed until
// the page was reloaded.
func TestFirstCoinGoesWhenTheTapLands(t *testing.T) {
	t.Parallel()
	base := ownWallet(t) // a new user: the shared wallet's alice has coin
	p := newPageAt(t, true, 375)
	loginAt(t, p, base, "alice", false)
	openLive(t, p, base+"/")
	card := testID(p, "first-coin")
	must(t, expect.Locator(card).ToBeVisible())
	must(t, expect.Locator(card.Locator("#tap-amount")).ToHaveValue("100"))
	must(t, card.GetByTestId("tap-submit").Click())

	mustBalance(t, testID(p, "balance-cc"), "20,000.00 CC")
	must(t, expect.Locator(testID(p, "flash")).ToHaveText("Coin from the faucet is in your wallet."))
	must(t, expect.Locator(testID(p, "first-coin")).ToHaveCount(0))
	// The faucet is still there, further down, as after a reload; one form.
	must(t, expect.Locator(testID(p, "tap-form")).ToHaveCount(1))
	must(t, expect.Locator(p.Locator("#faucet-heading")).ToBeVisible())
	must(t, expect.Locator(p.Locator("#tap-amount")).ToHaveValue(""))
	mustBeSameDocument(t, p, "after the first tap")

	// A second tap works from there and leaves the form in place.
	must(t, p.Locator("#tap-amount").Fill("1"))
	must(t, testID(p, "tap-submit").Click())
	mustBalance(t, testID(p, "balance-cc"), "20,200.00 CC")
	must(t, expect.Locator(testID(p, "tap-form")).ToHaveCount(1))
	must(t, expect.Locator(testID(p, "first-coin")).ToHaveCount(0))
	mustBeSameDocument(t, p, "after the second tap")
	checkA11y(t, p, "Home after the first tap")
}
