package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// TestSubscriptionConfirmAndRenewal, on a wallet of its own (it advances
// rounds) and without JavaScript: an app (the shop party) asks the user
// for a subscription, the user opens the confirm page the app links to,
// accepts and lands back on the app's page; advancing rounds lets the
// provider collect the first payment and the user's wallet pay and the
// app collect the next one, which the Subscriptions page and History show.
func TestSubscriptionConfirmAndRenewal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The test moves time itself (advance-rounds runs the subscription
	// automations): the periodic run (pollInterval, 30 s) would collect the
	// first payment behind its back on a slow machine, before the page
	// shows it waiting.
	srv := startCrashServerWith(t, walletBin, filepath.Join(dir, "wallet.db"), dir, "rateLimit: {burst: 0}\nautomation: {pollInterval: 1h}\n")
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Shop</title><p data-testid="shop-back">Back at the shop</p></html>`)
	}))
	t.Cleanup(shop.Close)
	post := func(path, user, body string) string {
		t.Helper()
		code, out, err := postJSON(http.DefaultClient, srv.url+path, devToken(t, walletBin, user), body)
		if err != nil || code != http.StatusOK {
			t.Fatalf("POST %s: %d %s %v", path, code, out, err)
		}
		return out
	}
	c, err := browser.NewContext(playwright.BrowserNewContextOptions{BaseURL: playwright.String(srv.url), JavaScriptEnabled: playwright.Bool(false)})
	must(t, err)
	t.Cleanup(func() { c.Close() })
	p, err := c.NewPage()
	must(t, err)
	loginAt(t, p, srv.url, "alice", false)
	must(t, p.Locator("#tap-amount").Fill("10"))
	must(t, testID(p, "tap-submit").Click())
	waitURL(t, p, srv.url+"/?done=tapped")
	alice := partyOf(t, p)

	var shopParty struct {
		PartyID string `json:"party_id"`
	}
	must(t, json.Unmarshal([]byte(post("/v0/admin/users", "admin", `{"name":"shop"}`)), &shopParty))
	req, _ := json.Marshal(map[string]any{"sender": alice, "receiver": shopParty.PartyID, "provider": shopParty.PartyID,
		"description": "Shop premium", "amount": "5", "payment_interval_seconds": 86400, "payment_duration_seconds": 86400,
		"origins": []string{shop.URL}})
	var created struct {
		ContractID string `json:"contract_id"`
	}
	must(t, json.Unmarshal([]byte(post("/v0/admin/devnet/subscription-requests", "admin", string(req))), &created))

	// The app's link: the confirm page says who asks what, and where the
	// answer returns to.
	_, err = p.Goto("/confirm-subscription/" + created.ContractID + "?redirect=" + url.QueryEscape(shop.URL+"/thanks"))
	must(t, err)
	card := testID(p, "confirm-subscription")
	must(t, expect.Locator(card).ToContainText("Shop premium"))
	must(t, expect.Locator(card.GetByTestId("subscription-amount")).ToHaveText("5.00 CC"))
	must(t, expect.Locator(card.GetByTestId("subscription-every")).ToHaveText("1 day"))
	must(t, expect.Locator(testID(p, "confirm-redirect")).ToContainText(shop.URL))
	must(t, testID(p, "confirm-accept").Click())
	if err := waitURLErr(p, shop.URL+"/thanks", 30*time.Second); err != nil {
		html, _ := p.Content()
		t.Fatalf("after accept: %v at %s\n%.3000s", err, p.URL(), html)
	}
	must(t, expect.Locator(testID(p, "shop-back")).ToBeVisible())

	// The first payment waits for the app; advancing lets it collect.
	_, err = p.Goto(srv.url + "/subscriptions")
	must(t, err)
	must(t, expect.Locator(testID(p, "subscription-waiting")).ToBeVisible())
	post("/v0/admin/devnet/advance-rounds", "admin", `{"rounds":1}`)
	_, err = p.Goto(srv.url + "/subscriptions")
	must(t, err)
	due := testID(p, "subscription-next-due")
	must(t, expect.Locator(due).ToBeVisible())
	first, err := due.GetAttribute("datetime")
	must(t, err)

	// The next payment is due within its window at once: the wallet pays
	// it and the app collects it; the next one is due a day later.
	post("/v0/admin/devnet/advance-rounds", "admin", `{"rounds":1}`)
	_, err = p.Goto(srv.url + "/subscriptions")
	must(t, err)
	must(t, expect.Locator(due).Not().ToHaveAttribute("datetime", first))
	must(t, expect.Locator(testID(p, "subscription-unpaid")).ToHaveCount(0))
	_, err = p.Goto(srv.url + "/history")
	must(t, err)
	must(t, expect.Locator(p.Locator(`[data-testid="history-row"][data-subtype="SubscriptionPayment_Collect"]`)).ToHaveCount(1))
	must(t, expect.Locator(p.Locator(`[data-testid="history-row"][data-subtype="SubscriptionInitialPayment_Collect"]`)).ToHaveCount(1))
}
