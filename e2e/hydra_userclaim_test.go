package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestHydraUserClaim: with oidc.userClaim: email the wallet names users by
// the email of Hydra's ID token at login, and by the email of an access
// token on the JSON API and the Ledger API: the same user both ways. A
// token without the claim (Hydra's client-credentials token) is refused,
// saying which claim it lacks.
func TestHydraUserClaim(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	w := startHydraClaimWallet(t, h, "email")
	p := newPage(t, true)
	hydraLogin(t, p, w, "uma")
	email := hydraEmail("uma")
	onPage(t, p, expect.Locator(testID(p, "current-user")).ToHaveText(email))
	party, err := testID(p, "party-id").GetAttribute("title")
	must(t, err)

	// An access token of a key Hydra publishes, naming uma by email.
	key := newOwnKey(t, "e2e-claim-1")
	h.call(t, "PUT", "/admin/keys/hydra.jwt.access-token/"+key.kid, key.jwk(), nil)
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
		"iss": h.issuer, "sub": "opaque-7f3a", "email": email, "aud": walletAudience,
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(),
	})
	tok.Header["kid"] = key.kid
	raw, err := tok.SignedString(key.key)
	must(t, err)
	if code, body := apiGet(t, w.url+"/v0/wallet/balance", raw); code != http.StatusOK {
		t.Errorf("JSON API with the email token: %d %s", code, body)
	}
	code, body := apiGet(t, w.ledgerAPI+"/v2/users/"+url.PathEscape(email), raw)
	if code != http.StatusOK || !strings.Contains(body, strings.TrimSpace(party)) {
		t.Errorf("Ledger API user %s: %d %s, want the party %s of the browser login", email, code, body, party)
	}

	h.machineClient(t, "claimless-bot", "claimless-bot-secret", walletAudience)
	cc := h.clientToken(t, "claimless-bot", "claimless-bot-secret", walletAudience)
	for _, u := range []string{w.url + "/v0/wallet/balance", w.ledgerAPI + "/v2/users/claimless-bot"} {
		if code, body := apiGet(t, u, cc); code != http.StatusUnauthorized || !strings.Contains(body, "no email claim") {
			t.Errorf("GET %s with a token without email: %d %s, want 401 naming the claim", u, code, body)
		}
	}
}
