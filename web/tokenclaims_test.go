package web

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestTimeClaimsMustBeNumbers: exp (and nbf, iat) given as a string or a
// fraction is refused; before, the JWT library took both.
func TestTimeClaimsMustBeNumbers(t *testing.T) {
	k := testKeys()
	srv := newJWKSServer(t, defaultJWKS())
	v := newTestVerifier(t, srv.URL, nil)
	exp := time.Now().Add(5 * time.Minute).Unix()
	bad := map[string]jwt.MapClaims{
		"exp as a string":   with(validClaims(), "exp", strconv.FormatInt(exp, 10)),
		"exp as a fraction": with(validClaims(), "exp", float64(exp)+0.5),
		"nbf as a string":   with(validClaims(), "nbf", "1700000000"),
		"iat as a fraction": with(validClaims(), "iat", 1700000000.25),
	}
	for name, claims := range bad {
		tok := sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), claims)
		if _, err := v.Verify(t.Context(), tok); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: Verify = %v, want an invalid token", name, err)
		}
	}
	if _, err := v.Verify(t.Context(), sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims())); err != nil {
		t.Errorf("integer exp refused: %v", err)
	}
}
