package e2e

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"math/big"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ownKey is an RSA key of the test's own, with its kid.
type ownKey struct {
	kid string
	key *rsa.PrivateKey
}

func newOwnKey(t *testing.T, kid string) ownKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	must(t, err)
	return ownKey{kid: kid, key: k}
}

// jwk is the key's private JWK (RFC 7518 §6.3), as Hydra imports it.
func (k ownKey) jwk() map[string]any {
	b := func(i *big.Int) string { return base64.RawURLEncoding.EncodeToString(i.Bytes()) }
	k.key.Precompute()
	return map[string]any{
		"kty": "RSA", "kid": k.kid, "use": "sig", "alg": "RS256",
		"n": b(k.key.N), "e": b(big.NewInt(int64(k.key.E))), "d": b(k.key.D),
		"p": b(k.key.Primes[0]), "q": b(k.key.Primes[1]),
		"dp": b(k.key.Precomputed.Dp), "dq": b(k.key.Precomputed.Dq), "qi": b(k.key.Precomputed.Qinv),
	}
}

// token signs an access token with the key.
func (k ownKey) token(t *testing.T, iss, sub, aud string, exp time.Time) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{
		Issuer: iss, Subject: sub, Audience: jwt.ClaimStrings{aud},
		IssuedAt: jwt.NewNumericDate(exp.Add(-time.Hour)), ExpiresAt: jwt.NewNumericDate(exp),
	})
	tok.Header["kid"] = k.kid
	s, err := tok.SignedString(k.key)
	must(t, err)
	return s
}

// TestHydraRefusals: tokens signed by a key Hydra publishes (the test's
// own, imported into Hydra's access-token key set) are refused on the JSON
// API ({"error": ...}) and the Ledger API (Canton's UNAUTHENTICATED, its
// cause saying why) with 401 when expired or issued
// by another issuer; a token signed by a key Hydra does not publish
// (unknown kid) is refused too. The same key's well-formed token works, so
// each refusal is for the reason it names.
func TestHydraRefusals(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	w := startHydraWallet(t, h, filepath.Join(t.TempDir(), "wallet.db"), t.TempDir(), "", "")
	published := newOwnKey(t, "e2e-imported-1")
	h.call(t, "PUT", "/admin/keys/hydra.jwt.access-token/"+published.kid, published.jwk(), nil)
	const user = "refused-bot"
	good := published.token(t, h.issuer, user, walletAudience, time.Now().Add(time.Hour))
	if code, body, err := postJSON(http.DefaultClient, w.url+"/v0/register", good, ""); err != nil || code != http.StatusOK {
		t.Fatalf("register with a token of the imported key: %d %s %v", code, body, err)
	}
	if code, body := apiGet(t, w.ledgerAPI+"/v2/users/"+user, good); code != http.StatusOK {
		t.Fatalf("Ledger API with a token of the imported key: %d %s", code, body)
	}
	unpublished := newOwnKey(t, "e2e-unpublished-1")
	cases := []struct {
		name, token, want string
	}{
		{"expired", published.token(t, h.issuer, user, walletAudience, time.Now().Add(-time.Hour)), "expired"},
		{"wrong issuer", published.token(t, "https://evil.example/", user, walletAudience, time.Now().Add(time.Hour)), "issuer"},
		{"unknown kid", unpublished.token(t, h.issuer, user, walletAudience, time.Now().Add(time.Hour)), "signing key"},
	}
	// The JSON API answers {"error": ...}; the Ledger API Canton's
	// UNAUTHENTICATED error, whose cause says why.
	apis := []struct{ url, field string }{
		{w.url + "/v0/wallet/balance", `{"error":`},
		{w.ledgerAPI + "/v2/users/" + user, `{"code":"UNAUTHENTICATED","cause":`},
	}
	for _, c := range cases {
		for _, api := range apis {
			code, body := apiGet(t, api.url, c.token)
			if code != http.StatusUnauthorized || !strings.HasPrefix(strings.TrimSpace(body), api.field) || !strings.Contains(body, c.want) {
				t.Errorf("%s: GET %s: %d %s, want 401 %s ... naming %q", c.name, api.url, code, body, api.field, c.want)
			}
		}
	}
}
