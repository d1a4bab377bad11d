package e2e

import (
	"testing"
)

// TestAdminViewsAsAParty: on the development network the admin views the
// wallet as alice from the Admin page; every page says so (accessible, at
// phone width too) and shows her party; stopping returns to the admin's
// own wallet (issue 27 point 3).
func TestAdminViewsAsAParty(t *testing.T) {
	t.Parallel()
	alice := newPage(t, true)
	login(t, alice, "alice", false)
	aliceParty := partyOf(t, alice)

	admin := newPage(t, true)
	login(t, admin, "admin", false)
	adminParty := partyOf(t, admin)
	_, err := admin.Goto("/admin")
	must(t, err)
	must(t, admin.Locator("#view-as-party").Fill(aliceParty))
	must(t, testID(admin, "view-as-submit").Click())
	must(t, expect.Locator(testID(admin, "view-as-banner")).ToContainText("Viewing as "+aliceParty))
	must(t, expect.Locator(testID(admin, "party-id")).ToHaveAttribute("title", aliceParty))
	checkA11yWidths(t, admin, "admin viewing as alice")
	_, err = admin.Goto("/history")
	must(t, err)
	must(t, expect.Locator(testID(admin, "view-as-banner")).ToBeVisible())

	must(t, testID(admin, "view-as-stop").Click())
	must(t, expect.Locator(testID(admin, "flash")).ToContainText("back in your own wallet"))
	must(t, expect.Locator(testID(admin, "view-as-banner")).ToHaveCount(0))
	must(t, expect.Locator(testID(admin, "party-id")).ToHaveAttribute("title", adminParty))
}
