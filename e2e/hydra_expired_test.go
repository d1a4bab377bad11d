package e2e

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHydraExpiredToken: a token Hydra issued with a short lifespan (its
// per-client lifespans admin API) works, also from the wallet's cache of
// verified tokens, until it expires (plus the wallet's 30 s leeway), and
// is refused after on the JSON API and the Ledger API with 401 saying it
// expired.
func TestHydraExpiredToken(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	w := startHydraWallet(t, h, filepath.Join(t.TempDir(), "wallet.db"), t.TempDir(), "", "")
	h.machineClient(t, "short-bot", "short-bot-secret", walletAudience)
	h.call(t, "PUT", "/admin/clients/short-bot/lifespans", map[string]any{"client_credentials_grant_access_token_lifespan": "2s"}, nil)
	tok := h.clientToken(t, "short-bot", "short-bot-secret", walletAudience)
	if code, body, err := postJSON(http.DefaultClient, w.url+"/v0/register", tok, ""); err != nil || code != http.StatusOK {
		t.Fatalf("register: %d %s %v", code, body, err)
	}
	if code, body := apiGet(t, w.ledgerAPI+"/v2/users/short-bot", tok); code != http.StatusOK {
		t.Fatalf("Ledger API before expiry: %d %s", code, body)
	}
	_, payload, _ := strings.Cut(tok, ".")
	payload, _, _ = strings.Cut(payload, ".")
	b, err := base64.RawURLEncoding.DecodeString(payload)
	must(t, err)
	var claims struct {
		Exp int64 `json:"exp"`
	}
	must(t, json.Unmarshal(b, &claims))
	if life := time.Until(time.Unix(claims.Exp, 0)); life > time.Minute {
		t.Fatalf("Hydra's token lives %s: the per-client lifespan was not applied", life)
	}
	time.Sleep(time.Until(time.Unix(claims.Exp, 0).Add(31 * time.Second))) // past exp and the leeway
	for _, u := range []string{w.url + "/v0/wallet/balance", w.ledgerAPI + "/v2/users/short-bot"} {
		code, body := apiGet(t, u, tok)
		if code != http.StatusUnauthorized || !strings.Contains(body, "expired") {
			t.Errorf("GET %s with an expired Hydra token: %d %s, want 401 saying it expired", u, code, body)
		}
	}
}
