package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// apiJSON sends a JSON request with token to url and decodes a 200
// answer into out (nil: ignore it).
func apiJSON(t *testing.T, method, url, token string, body any, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s = %d %s", method, url, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, b)
		}
	}
}

// ledgerCommand submits one command to the Ledger API at api as the
// app's user, acting as its party.
func ledgerCommand(t *testing.T, api, token, party, commandID string, cmd map[string]any) {
	t.Helper()
	apiJSON(t, "POST", api+"/v2/commands/submit-and-wait", token,
		map[string]any{"commands": []any{cmd}, "commandId": commandID, "actAs": []string{party}}, nil)
}

// contractIDs lists the contract ids of a wallet list answer's field.
func contractIDs(t *testing.T, base, token, path, field string) []string {
	t.Helper()
	var res map[string][]struct {
		Contract struct {
			ContractID string `json:"contract_id"`
		} `json:"contract"`
	}
	apiJSON(t, "GET", base+path, token, nil, &res)
	var ids []string
	for _, c := range res[field] {
		ids = append(ids, c.Contract.ContractID)
	}
	return ids
}

// TestAppPaymentThroughConfirmPage is issue 26's app payment, on a
// wallet of its own so the balances are exact: an app (a test web server
// whose party is bob's) creates a payment request through the Ledger API;
// alice opens the wallet's confirm page, without JavaScript, sees what is
// asked, accepts and is sent back to the app's origin; the app collects
// through the Ledger API; both balances are exact on their home pages.
// The Payments and confirm pages pass the accessibility check at both
// widths.
func TestAppPaymentThroughConfirmPage(t *testing.T) {
	t.Parallel()
	base, api := ownWalletWithLedgerAPI(t)
	suffix := fmt.Sprint(time.Now().UnixNano())
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Shop</title><h1 data-testid="app-thanks">Thanks for your order</h1></html>`)
	}))
	defer app.Close()

	p := newPage(t, false)
	loginAt(t, p, base, "alice", false)
	must(t, p.Locator("#tap-amount").Fill("1"))
	must(t, testID(p, "tap-submit").Click())
	waitURL(t, p, base+"/?done=tapped")
	tapped, err := testID(p, "balance-cc").GetAttribute("title")
	must(t, err)
	payerParty, err := testID(p, "party-id").GetAttribute("title")
	must(t, err)
	sp := newPage(t, false)
	loginAt(t, sp, base, "bob", false)
	shopParty, err := testID(sp, "party-id").GetAttribute("title")
	must(t, err)
	payerToken, shopToken := devToken(t, walletBin, "alice"), devToken(t, walletBin, "bob")

	// The app asks for 12.5 CC through the Ledger API.
	ledgerCommand(t, api, shopToken, shopParty, "pay-"+suffix, map[string]any{"CreateCommand": map[string]any{
		"templateId": "#splice-wallet-payments:Splice.Wallet.Payment:AppPaymentRequest",
		"createArguments": map[string]any{
			"sender": payerParty, "provider": shopParty, "description": "one e2e coffee origin=" + app.URL,
			"expiresAt":       time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano),
			"receiverAmounts": []any{map[string]any{"receiver": shopParty, "amount": map[string]any{"amount": "12.5", "unit": "AmuletUnit"}}},
		},
	}})
	reqs := contractIDs(t, base, payerToken, "/v0/wallet/app-payment-requests", "payment_requests")
	if len(reqs) != 1 {
		t.Fatalf("alice has %d payment requests, want 1", len(reqs))
	}

	// Both pages pass axe-core at a phone's and a desktop's width.
	js := newPage(t, true)
	loginAt(t, js, base, "alice", false)
	back := app.URL + "/thanks?order=7"
	confirm := base + "/confirm-payment/" + reqs[0] + "?redirect=" + url.QueryEscape(back)
	for _, u := range []string{base + "/payments", confirm} {
		_, err := js.Goto(u)
		must(t, err)
		checkA11yWidths(t, js, "alice "+strings.TrimPrefix(u, base))
	}

	// Alice follows the app's link, without JavaScript.
	_, err = p.Goto(confirm)
	must(t, err)
	must(t, expect.Locator(testID(p, "confirm-description")).ToHaveText("one e2e coffee"))
	must(t, expect.Locator(testID(p, "confirm-origin")).ToHaveText(app.URL))
	must(t, expect.Locator(testID(p, "confirm-amount")).ToHaveAttribute("title", "12.5000000000 CC"))
	total, err := testID(p, "confirm-total").GetAttribute("title")
	must(t, err)
	must(t, expect.Locator(testID(p, "confirm-return")).ToBeVisible())
	must(t, expect.Locator(testID(p, "confirm-total-usd")).ToContainText("USD"))
	checkMinimalConfirm(t, p, "confirm payment")
	must(t, testID(p, "confirm-accept").Click())
	waitURL(t, p, back)
	must(t, expect.Locator(testID(p, "app-thanks")).ToBeVisible())

	// The app collects through the Ledger API.
	accepted := contractIDs(t, base, payerToken, "/v0/wallet/accepted-app-payments", "accepted_app_payments")
	if len(accepted) != 1 {
		t.Fatalf("alice has %d accepted payments, want 1", len(accepted))
	}
	ledgerCommand(t, api, shopToken, shopParty, "collect-"+suffix, map[string]any{"ExerciseCommand": map[string]any{
		"templateId": "#splice-wallet-payments:Splice.Wallet.Payment:AcceptedAppPayment", "contractId": accepted[0],
		"choice": "AcceptedAppPayment_Collect", "choiceArgument": map[string]any{"context": map[string]any{}},
	}})

	// What the faucet gave less the total (the payment and its fees) is
	// left, nothing locked any more; the shop has its 12.5 CC.
	want := coin.MustParse(strings.TrimSuffix(tapped, " CC")).Sub(coin.MustParse(strings.TrimSuffix(total, " CC"))).String()
	_, err = p.Goto(base + "/")
	must(t, err)
	must(t, expect.Locator(testID(p, "balance-cc")).ToHaveAttribute("title", want+" CC"))
	must(t, expect.Locator(testID(p, "balance-total")).ToHaveAttribute("title", want+" CC"))
	_, err = p.Goto(base + "/payments")
	must(t, err)
	must(t, expect.Locator(testID(p, "payment-requests-empty")).ToBeVisible())
	must(t, expect.Locator(testID(p, "accepted-payments-empty")).ToBeVisible())
	_, err = sp.Goto(base + "/")
	must(t, err)
	must(t, expect.Locator(testID(sp, "balance-cc")).ToHaveAttribute("title", "12.5000000000 CC"))
}
