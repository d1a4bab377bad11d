package ledgerapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/commands"
)

const (
	paymentRequestTemplate  = "#splice-wallet-payments:Splice.Wallet.Payment:AppPaymentRequest"
	acceptedPaymentTemplate = "#splice-wallet-payments:Splice.Wallet.Payment:AcceptedAppPayment"
)

// TestAppPaymentFlow: an app's provider creates an AppPaymentRequest
// through the Ledger API, the sender (here through the API too) accepts,
// and the provider finds the AcceptedAppPayment and collects it; a
// repeated create is DUPLICATE_COMMAND, a USD amount is refused, the
// sender cannot collect, and a refund returns the coin. Balances exact.
func TestAppPaymentFlow(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice, shop := e.user("alice", "100"), e.user("shop", "")
		request := func(amount, unit string) map[string]any {
			return map[string]any{"CreateCommand": map[string]any{"templateId": paymentRequestTemplate, "createArguments": map[string]any{
				"sender": alice, "provider": shop, "dso": e.l.DSO(), "description": "a coffee origin=https://shop.example",
				"expiresAt":       e.clock.Now().Add(time.Hour).Format(time.RFC3339Nano),
				"receiverAmounts": []any{map[string]any{"receiver": shop, "amount": map[string]any{"amount": amount, "unit": unit}}},
			}}}
		}
		e.mustCommand("shop", "request-1", shop, request("12.5", "AmuletUnit"), nil)
		if code, b := e.command("shop", "request-1", shop, request("12.5", "AmuletUnit"), nil); code != http.StatusConflict {
			t.Errorf("repeated create = %d %s, want 409 DUPLICATE_COMMAND", code, b)
		}
		if code, b := e.command("shop", "request-usd", shop, request("1", "USDUnit"), nil); code != http.StatusBadRequest {
			t.Errorf("USD request = %d %s, want 400", code, b)
		}
		if code, b := e.command("alice", "request-self", alice, request("1", "AmuletUnit"), nil); code != http.StatusForbidden {
			t.Errorf("request without the provider's authority = %d %s, want 403", code, b)
		}
		req := only(t, "alice's payment requests", e.acs("alice", filter(alice, templateFilter(paymentRequestTemplate, false)), e.ledgerEnd()))
		e.mustCommand("alice", "accept-1", alice, exercise(paymentRequestTemplate, req.ContractID, "AppPaymentRequest_Accept",
			map[string]any{"inputs": []any{}, "context": map[string]any{}, "walletProvider": e.l.Operator()}), nil)
		wantBalance(t, e, alice, "87.5000000000", "12.5000000000")
		acc := only(t, "shop's accepted payments", e.acs("shop", filter(shop, templateFilter(acceptedPaymentTemplate, false)), e.ledgerEnd()))
		collect := exercise(acceptedPaymentTemplate, acc.ContractID, "AcceptedAppPayment_Collect", map[string]any{"context": map[string]any{}})
		if code, b := e.command("alice", "collect-alice", alice, collect, nil); code != http.StatusForbidden {
			t.Errorf("the sender collects = %d %s, want 403", code, b)
		}
		e.mustCommand("shop", "collect-1", shop, collect, nil)
		wantBalance(t, e, alice, "87.5000000000", "0.0000000000")
		wantBalance(t, e, shop, "12.5000000000", "0.0000000000")

		// A second payment, refunded by the app.
		e.mustCommand("shop", "request-2", shop, request("20", "AmuletUnit"), nil)
		req = only(t, "alice's payment requests", e.acs("alice", filter(alice, templateFilter(paymentRequestTemplate, false)), e.ledgerEnd()))
		if _, err := e.w.AppPayments.AcceptAppPayment(context.Background(), alice, coin.ContractID(req.ContractID), commands.Command{}); err != nil {
			t.Fatal(err)
		}
		wantBalance(t, e, alice, "67.5000000000", "20.0000000000")
		acc = only(t, "shop's accepted payments", e.acs("shop", filter(shop, templateFilter(acceptedPaymentTemplate, false)), e.ledgerEnd()))
		e.mustCommand("shop", "refund-2", shop, exercise(acceptedPaymentTemplate, acc.ContractID, "AcceptedAppPayment_Reject", map[string]any{"context": map[string]any{}}), nil)
		wantBalance(t, e, alice, "87.5000000000", "0.0000000000")
		if code, b := e.command("shop", "collect-2", shop, exercise(acceptedPaymentTemplate, acc.ContractID, "AcceptedAppPayment_Collect", map[string]any{"context": map[string]any{}}), nil); code != http.StatusNotFound {
			t.Errorf("collect after refund = %d %s, want 404", code, b)
		}
	})
}
