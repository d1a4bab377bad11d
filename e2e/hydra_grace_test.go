package e2e

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHydraOldKeyGrace: after Hydra rotates its signing key, a token
// signed with the old key is accepted while Hydra still publishes it (the
// grace period), and refused once Hydra dropped it and the wallet fetched
// the JWKS again (here at the next rotation's first token). The old key is
// the test's own, imported into Hydra, so a fresh old-key token can be
// signed after Hydra stopped signing with it.
func TestHydraOldKeyGrace(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	w := startHydraWallet(t, h, filepath.Join(t.TempDir(), "wallet.db"), t.TempDir(), "", "")
	old := newOwnKey(t, "e2e-grace-old")
	h.call(t, "PUT", "/admin/keys/hydra.jwt.access-token/"+old.kid, old.jwk(), nil)
	const user = "grace-bot"
	oldToken := func() string { return old.token(t, h.issuer, user, walletAudience, time.Now().Add(time.Hour)) }
	if code, body, err := postJSON(http.DefaultClient, w.url+"/v0/register", oldToken(), ""); err != nil || code != http.StatusOK {
		t.Fatalf("register with the old key: %d %s %v", code, body, err)
	}
	h.machineClient(t, "grace-client", "grace-client-secret", walletAudience)

	// Rotation: Hydra signs with a new key and still publishes the old.
	h.call(t, "POST", "/admin/keys/hydra.jwt.access-token", map[string]any{"alg": "RS256", "use": "sig", "kid": "grace-new-1"}, nil)
	if code, body, err := postJSON(http.DefaultClient, w.url+"/v0/register", h.clientToken(t, "grace-client", "grace-client-secret", walletAudience), ""); err != nil || code != http.StatusOK {
		t.Fatalf("the new key's first token: %d %s %v", code, body, err)
	}
	if code, body := apiGet(t, w.url+"/v0/wallet/balance", oldToken()); code != http.StatusOK {
		t.Fatalf("the old key within the grace period: %d %s", code, body)
	}

	// The grace period ends: Hydra drops the old key. The wallet learns it
	// at its next JWKS fetch (the next rotation's first token here).
	h.call(t, "DELETE", "/admin/keys/hydra.jwt.access-token/"+old.kid, nil, nil)
	h.call(t, "POST", "/admin/keys/hydra.jwt.access-token", map[string]any{"alg": "RS256", "use": "sig", "kid": "grace-new-2"}, nil)
	if code, body := apiGet(t, w.url+"/v0/wallet/balance", h.clientToken(t, "grace-client", "grace-client-secret", walletAudience)); code != http.StatusOK {
		t.Fatalf("the second rotation's first token: %d %s", code, body)
	}
	for _, u := range []string{w.url + "/v0/wallet/balance", w.ledgerAPI + "/v2/users/" + user} {
		code, body := apiGet(t, u, oldToken())
		if code != http.StatusUnauthorized || !strings.Contains(body, "signing key") {
			t.Errorf("GET %s with the old key after the grace period: %d %s, want 401 unknown signing key", u, code, body)
		}
	}
}
