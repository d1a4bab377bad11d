package api_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/store"
	"github.com/golang-jwt/jwt/v5"
)

// TestAuthBattery sends state-changing requests with bad credentials and
// as the wrong user through the full router: each is refused (401 for a
// bad token, 403 or 404 for the wrong user) and nothing changes.
func TestAuthBattery(t *testing.T) {
	e := newFoundationEnv(t, store.Postgres)
	ctx := context.Background()
	alice, err := users.Of(e.l).Onboard(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.Of(e.l).Onboard(ctx, "bob", ""); err != nil {
		t.Fatal(err)
	}
	ledgertest.Mint(t, e.l, alice, "100")
	// An offer from alice to the operator: only alice may withdraw it.
	status, body := e.do("POST", "/v0/wallet/transfer-offers", "alice", fmt.Sprintf(
		`{"receiver_party_id":%q,"amount":"1","description":"d","expires_at":%d,"tracking_id":"t1"}`,
		e.l.Operator(), time.Now().Add(time.Hour).UnixMicro()))
	if status != 200 {
		t.Fatalf("create offer: %d %s", status, body)
	}
	offer := decode(t, body)["offer_contract_id"].(string)
	before := ledgertest.Conserved(t, e.l)

	now := time.Now()
	claims := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{"sub": "alice", "iss": "test", "aud": handlerstest.Audience, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()}
		if mod != nil {
			mod(c)
		}
		return c
	}
	sign := func(c jwt.MapClaims, key ed25519.PrivateKey, kid string) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
		if kid != "" {
			tok.Header["kid"] = kid
		}
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	b64 := func(v any) string { b, _ := json.Marshal(v); return base64.RawURLEncoding.EncodeToString(b) }
	good := sign(claims(nil), e.key, "k1")
	parts := strings.Split(good, ".")
	hs256 := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims(nil))
		tok.Header["kid"] = "k1"
		s, _ := tok.SignedString([]byte(e.key.Public().(ed25519.PublicKey)))
		return s
	}()
	withHeader := func(h map[string]any) string {
		return b64(h) + "." + parts[1] + "." + parts[2]
	}

	bad := []struct{ name, auth string }{
		{"no header", ""},
		{"empty bearer", "Bearer "},
		{"basic scheme", "Basic YWxpY2U6cHc="},
		{"garbage", "Bearer not-a-jwt"},
		{"malformed base64", "Bearer " + parts[0] + ".!!!." + parts[2]},
		{"alg none", "Bearer " + b64(map[string]any{"alg": "none", "typ": "JWT"}) + "." + parts[1] + "."},
		{"HS256 signed with the public key", "Bearer " + hs256},
		{"expired", "Bearer " + sign(claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Hour).Unix() }), e.key, "k1")},
		{"no expiry", "Bearer " + sign(claims(func(c jwt.MapClaims) { delete(c, "exp") }), e.key, "k1")},
		{"not yet valid", "Bearer " + sign(claims(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() }), e.key, "k1")},
		{"wrong issuer", "Bearer " + sign(claims(func(c jwt.MapClaims) { c["iss"] = "evil" }), e.key, "k1")},
		{"wrong audience", "Bearer " + sign(claims(func(c jwt.MapClaims) { c["aud"] = "https://other" }), e.key, "k1")},
		{"no audience", "Bearer " + sign(claims(func(c jwt.MapClaims) { delete(c, "aud") }), e.key, "k1")},
		{"no subject", "Bearer " + sign(claims(func(c jwt.MapClaims) { delete(c, "sub") }), e.key, "k1")},
		{"unknown key id", "Bearer " + sign(claims(nil), e.key, "k9")},
		{"signed by another key", "Bearer " + sign(claims(nil), otherKey, "k1")},
		{"signature of another token", "Bearer " + parts[0] + "." + parts[1] + "." + strings.Split(sign(claims(func(c jwt.MapClaims) { c["sub"] = "bob" }), e.key, "k1"), ".")[2]},
		{"jku header", "Bearer " + withHeader(map[string]any{"alg": "EdDSA", "typ": "JWT", "kid": "k1", "jku": "https://evil/jwks"})},
		{"jwk header", "Bearer " + withHeader(map[string]any{"alg": "EdDSA", "typ": "JWT", "kid": "k1", "jwk": map[string]string{"kty": "OKP"}})},
		{"oversized token", "Bearer " + good + strings.Repeat("A", 9000)},
	}
	for _, tc := range bad {
		for _, path := range []string{"/v0/wallet/tap", "/v0/admin/users"} {
			req := httptest.NewRequest("POST", path, strings.NewReader(`{"amount":"1","name":"mallory"}`))
			req.Header.Set("Content-Type", "application/json")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			e.h.ServeHTTP(w, req)
			if w.Code != 401 || !strings.Contains(w.Body.String(), `"error"`) {
				t.Errorf("%s on %s: %d %s, want 401 with an error", tc.name, path, w.Code, w.Body)
			}
		}
	}
	// A token in the URL is never read.
	req := httptest.NewRequest("POST", "/v0/wallet/tap?access_token="+good, strings.NewReader(`{"amount":"1"}`))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, req)
	if w.Code != 401 {
		t.Errorf("token in the query: %d, want 401", w.Code)
	}

	// Valid tokens, wrong user.
	wrongUser := []struct {
		name, method, path, user, body string
		want                           []int
	}{
		{"bob withdraws alice's offer", "POST", "/v0/wallet/transfer-offers/" + offer + "/withdraw", "bob", "", []int{403, 404}},
		{"bob accepts alice's offer", "POST", "/v0/wallet/transfer-offers/" + offer + "/accept", "bob", "", []int{403, 404}},
		{"alice accepts her own offer", "POST", "/v0/wallet/transfer-offers/accept", "alice", `{"contract_id":"` + offer + `"}`, []int{403}},
		{"non-admin onboards", "POST", "/v0/admin/users", "alice", `{"name":"mallory"}`, []int{403}},
		{"non-admin offboards", "POST", "/v0/admin/users/offboard?username=bob", "alice", "", []int{403}},
		{"non-admin advances rounds", "POST", "/v0/admin/devnet/advance-rounds", "alice", `{"rounds":5}`, []int{403}},
		{"non-admin reads external balances", "GET", "/v0/admin/external-party/balance?party_id=" + string(alice), "bob", "", []int{403}},
		{"stranger taps", "POST", "/v0/wallet/tap", "mallory", `{"amount":"1"}`, []int{404}},
	}
	for _, tc := range wrongUser {
		status, body := e.do(tc.method, tc.path, tc.user, tc.body)
		ok := false
		for _, s := range tc.want {
			ok = ok || status == s
		}
		if !ok {
			t.Errorf("%s: %d %s, want one of %v", tc.name, status, body, tc.want)
		}
	}

	after := ledgertest.Conserved(t, e.l)
	if !after.Minted.Equal(before.Minted) || !after.Live.Equal(before.Live) {
		t.Errorf("refused requests changed the ledger: minted %s -> %s, live %s -> %s", before.Minted, after.Minted, before.Live, after.Live)
	}
	all, _ := users.Of(e.l).All(ctx)
	for _, u := range all {
		if u.Name == "mallory" {
			t.Error("a refused request onboarded mallory")
		}
	}
	if b, _ := e.l.Balance(ctx, alice); !b.EffectiveUnlocked.Equal(coin.MustParse("100")) {
		t.Errorf("alice's balance changed: %s", b.EffectiveUnlocked)
	}
	if u, _ := users.Of(e.l).Get(ctx, "bob"); !u.Onboarded {
		t.Error("a refused offboarding offboarded bob")
	}
}
