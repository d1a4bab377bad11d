package web

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// SharedSecretAuth is a test network's HS256 authentication, accepted
// beside the Verifier's own keys: LocalNet's, whose every token is signed
// with one published secret ("unsafe") for one audience. Anyone who knows
// the secret mints any user's token, so it is for a development network
// only, and its secret may be short (it is public anyway).
type SharedSecretAuth struct {
	Secret   []byte
	Audience string
}

// sharedSecret is a SharedSecretAuth ready to verify.
type sharedSecret struct {
	secret []byte
	parse  *jwt.Parser
}

// newSharedSecret builds the shared-secret check with v's clock, leeway
// and header rules; its audience is its own, and any issuer is accepted.
func (v *Verifier) newSharedSecret(a *SharedSecretAuth) (*sharedSecret, error) {
	if len(a.Secret) == 0 || a.Audience == "" {
		return nil, errors.New("auth: a shared-secret authentication needs a secret and an audience")
	}
	return &sharedSecret{secret: append([]byte(nil), a.Secret...), parse: jwt.NewParser(
		jwt.WithValidMethods([]string{"HS256"}),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(v.leeway),
		jwt.WithTimeFunc(func() time.Time { return v.now() }),
		jwt.WithStrictDecoding(),
		jwt.WithAudience(a.Audience),
	)}, nil
}

// keyFunc gives the secret for a token whose header passes checkHeader.
func (s *sharedSecret) keyFunc(t *jwt.Token) (any, error) {
	if err := checkHeader(t.Header); err != nil {
		return nil, err
	}
	return s.secret, nil
}

// headerAlg is the alg of raw's header, "" when it has none or does not
// decode; the signature is checked afterwards by the parser the alg picks.
func headerAlg(raw string) string {
	h, _, ok := strings.Cut(raw, ".")
	if !ok || len(h) > 1024 {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		return ""
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(b, &hdr) != nil {
		return ""
	}
	return hdr.Alg
}
