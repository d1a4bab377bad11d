package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
)

// TestJSONAPIAmountsCanonical: the wallet's JSON APIs take only canonical
// decimals, as the Ledger API does (issue 38). Their amounts arrive as
// strings parsed by the forgiving reader of the web forms, so " 1",
// "1 ", "+1", ".5" and "01" were taken by the faucet, offers and
// token-standard transfers after the Ledger API refused them.
func TestJSONAPIAmountsCanonical(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		alice, _ := a.User("alice", "100")
		_, bob := a.User("bob", "")
		expires := time.Now().Add(24 * time.Hour).UnixMicro()
		for i, amount := range []string{" 1", "1 ", "+1", ".5", "01", "1."} {
			for _, c := range []struct {
				path string
				body map[string]any
			}{
				{"/v0/wallet/tap", map[string]any{"amount": amount}},
				{"/v0/wallet/transfer-offers", map[string]any{"receiver_party_id": bob, "amount": amount, "description": "x",
					"expires_at": expires, "tracking_id": "offer-" + string(rune('a'+i))}},
				{"/v0/wallet/token-standard/transfers", map[string]any{"receiver_party_id": bob, "amount": amount, "description": "x",
					"expires_at": expires, "tracking_id": "ts-" + string(rune('a'+i))}},
			} {
				r := alice.DoOwn("POST", c.path, c.body)
				if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "decimal") {
					t.Errorf("POST %s amount %q = %d %s, want 400 naming a decimal", c.path, amount, r.Status, r.Body)
				}
			}
		}
		if r := alice.DoOwn("POST", "/v0/wallet/tap", map[string]any{"amount": "1.5"}); r.Status != http.StatusOK {
			t.Errorf("a canonical amount: %d %s", r.Status, r.Body)
		}
	})
}
