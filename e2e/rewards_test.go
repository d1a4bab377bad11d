package e2e

import (
	"net/http"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestRewardsPageAndCharts: Home draws the balance over the last changes
// and the holdings page the holdings by size, as inline SVG with a text
// alternative; a preapproval (rita's, through the API: the demo users'
// coin is counted by other tests) earns the operator a validator reward,
// which the admin's Rewards page lists as pending and History as earned;
// every page fits at 390 and 1280 px without sideways scrolling (issue 24
// points 9 to 11).
func TestRewardsPageAndCharts(t *testing.T) {
	t.Parallel()
	adminToken := devToken(t, walletBin, "admin")
	ritaToken := devToken(t, walletBin, "rita")
	for _, c := range []struct{ path, token, body string }{
		{"/v0/admin/users", adminToken, `{"name":"rita"}`},
		{"/v0/wallet/tap", ritaToken, `{"amount":"10"}`},
		{"/v0/wallet/transfer-preapproval", ritaToken, `{}`},
	} {
		code, body, err := postJSON(http.DefaultClient, baseURL+c.path, c.token, c.body)
		if err != nil || code != http.StatusOK {
			t.Fatalf("POST %s: %d %s %v", c.path, code, body, err)
		}
	}
	admin := newPage(t, true)
	login(t, admin, "admin", false)
	must(t, admin.Locator("#tap-amount").Fill("10"))
	must(t, testID(admin, "tap-submit").Click())
	must(t, expect.Locator(testID(admin, "tap-ok")).ToBeVisible())
	// At least onboarding and the tap: a line, reloaded live.
	chart := admin.Locator(`[data-testid="balance-chart"] svg[role="img"]`)
	must(t, expect.Locator(chart.Locator("title")).ToContainText("Balance before holding fees, last "))
	_, err := admin.Goto("/holdings")
	must(t, err)
	must(t, expect.Locator(admin.Locator(`[data-testid="holdings-chart"] svg[role="img"] title`)).ToContainText("Holdings by size in CC: "))

	must(t, testID(admin, "nav-rewards").Click())
	must(t, admin.WaitForURL(baseURL+"/rewards"))
	pending := admin.Locator(`[data-testid="reward-row"][data-kind="validator"][data-collected="false"]`)
	must(t, expect.Locator(pending.First()).ToContainText("pending"))
	_, err = admin.Goto("/history")
	must(t, err)
	must(t, expect.Locator(admin.Locator(`[data-testid="history-row"][data-kind="reward"]`).Filter(playwright.LocatorFilterOptions{HasText: "Validator reward"}).First()).ToBeVisible())

	checkLayout(t, admin, "admin", []string{"/", "/holdings", "/rewards", "/history"})
	// The charts fill their column at both widths.
	for _, w := range []int{390, 1280} {
		must(t, admin.SetViewportSize(w, 844))
		for path, sel := range map[string]string{"/": "balance-chart", "/holdings": "holdings-chart"} {
			_, err := admin.Goto(path)
			must(t, err)
			box, err := admin.Locator(`[data-testid="` + sel + `"] svg`).BoundingBox()
			must(t, err)
			if box == nil || box.Width < 300 || box.X < 0 || box.X+box.Width > float64(w) {
				t.Errorf("%s at %d px: chart box %+v", path, w, box)
			}
		}
	}
}
