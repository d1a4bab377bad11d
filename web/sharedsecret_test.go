package web

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestSharedSecretTokens: with a shared secret configured (LocalNet's
// "unsafe" for its audience), its HS256 tokens are accepted beside the
// verifier's own keys; a token signed with another secret, for another
// audience, expired, without exp or with a header naming its own key is
// refused, and without the shared secret no HS256 token is accepted.
func TestSharedSecretTokens(t *testing.T) {
	const aud = "https://canton.network.global"
	secret := []byte("unsafe")
	k := testKeys()
	srv := newJWKSServer(t, defaultJWKS())
	v := newTestVerifier(t, srv.URL, func(c *AuthConfig) { c.SharedSecret = &SharedSecretAuth{Secret: secret, Audience: aud} })
	plain := newTestVerifier(t, srv.URL, nil)
	now := time.Now()
	local := func() jwt.MapClaims {
		return jwt.MapClaims{"sub": "ledger-api-user", "aud": aud, "iss": "unsafe-auth", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	}
	hs := func(key []byte, c jwt.MapClaims, header map[string]any) string {
		return sign(t, jwt.SigningMethodHS256, key, header, c)
	}
	good := hs(secret, local(), nil)
	for i := 0; i < 2; i++ { // twice: a second look must not come from a cache checked with our audience
		c, err := v.Verify(context.Background(), good)
		if err != nil || c.Subject != "ledger-api-user" {
			t.Fatalf("LocalNet token: %+v, %v", c, err)
		}
	}
	if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims())); err != nil {
		t.Fatalf("our own token beside the shared secret: %v", err)
	}
	for name, tok := range map[string]string{
		"another secret":   hs([]byte("not-unsafe"), local(), nil),
		"another audience": hs(secret, with(local(), "aud", testAud), nil),
		"expired":          hs(secret, with(local(), "exp", now.Add(-time.Hour).Unix()), nil),
		"no exp":           hs(secret, without(local(), "exp"), nil),
		"embedded key":     hs(secret, local(), map[string]any{"jwk": map[string]any{"kty": "oct"}}),
		"RS256 for the audience of the shared secret": sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), local()),
	} {
		if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: got %v, want an invalid token", name, err)
		}
	}
	if _, err := plain.Verify(context.Background(), good); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("without the shared secret a LocalNet token was accepted: %v", err)
	}
}
