package e2e

import (
	"testing"
)

// TestAPIExplorerCallsAsTheUser, on a wallet of its own (it taps, which
// the shared wallet's tests of fresh balances would see): from the
// footer, the API explorer lists the operations; Send calls one with the
// page's session (no token to paste) and shows the answer: the faucet,
// then the balance it made (issue 27 point 5).
func TestAPIExplorerCallsAsTheUser(t *testing.T) {
	t.Parallel()
	base := ownWallet(t)
	p := newPage(t, true)
	loginAt(t, p, base, "bob", false)
	must(t, testID(p, "footer-api").Click())
	waitURL(t, p, base+"/api-explorer")

	tap := testID(p, "op-wallet-internal-tap")
	must(t, tap.Locator("summary").Click())
	must(t, tap.Locator("textarea").Fill(`{"amount": "20"}`))
	must(t, testID(p, "send-wallet-internal-tap").Click())
	must(t, expect.Locator(testID(p, "result-wallet-internal-tap")).ToContainText("200 OK"))

	bal := testID(p, "op-wallet-internal-getBalance")
	must(t, bal.Locator("summary").Click())
	must(t, testID(p, "send-wallet-internal-getBalance").Click())
	out := testID(p, "result-wallet-internal-getBalance")
	must(t, expect.Locator(out).ToContainText("200 OK"))
	must(t, expect.Locator(out).ToContainText(`"effective_unlocked_qty"`))
	must(t, expect.Locator(out).Not().ToContainText(`"effective_unlocked_qty": "0.0000000000"`))

	// An error is shown as the API says it, in words.
	ext := testID(p, "op-ccwallet-withdrawMergeDelegation")
	must(t, ext.Locator("summary").Click())
	must(t, ext.Locator("input").Fill("no-such-contract"))
	must(t, testID(p, "send-ccwallet-withdrawMergeDelegation").Click())
	must(t, expect.Locator(testID(p, "result-ccwallet-withdrawMergeDelegation")).ToContainText(`"error"`))
}
