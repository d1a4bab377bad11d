package web

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// SignDevToken mints an access token signed by key, for development and
// tests. The algorithm follows the key: *rsa.PrivateKey → RS256,
// *ecdsa.PrivateKey on P-256 → ES256, Ed25519 (or any signer with an Ed25519
// public key) → EdDSA. issuer and audience are left out when empty. The token
// expires after ttl.
func SignDevToken(key crypto.Signer, kid, issuer, audience, subject string, ttl time.Duration) (string, error) {
	return SignDevTokenActAs(key, kid, issuer, audience, subject, "", ttl)
}

// SignDevTokenActAs is SignDevToken with the ccwallet_act_as claim: the
// subject (an admin) asks to act as party on a development network.
func SignDevTokenActAs(key crypto.Signer, kid, issuer, audience, subject, party string, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		return "", errors.New("sign dev token: ttl must be positive")
	}
	var method jwt.SigningMethod
	switch k := key.(type) {
	case *rsa.PrivateKey:
		method = jwt.SigningMethodRS256
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return "", errors.New("sign dev token: ECDSA key must be on P-256")
		}
		method = jwt.SigningMethodES256
	default:
		if _, ok := key.Public().(ed25519.PublicKey); !ok {
			return "", fmt.Errorf("sign dev token: unsupported key type %T", key)
		}
		method = jwt.SigningMethodEdDSA
	}
	now := time.Now()
	claims := tokenClaims{RegisteredClaims: jwt.RegisteredClaims{
		ID:        uuid.NewString(),
		Subject:   subject,
		Issuer:    issuer,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}, ActAs: party}
	if audience != "" {
		claims.Audience = jwt.ClaimStrings{audience}
	}
	t := jwt.NewWithClaims(method, claims)
	if kid != "" {
		t.Header["kid"] = kid
	}
	s, err := t.SignedString(key)
	if err != nil {
		return "", fmt.Errorf("sign dev token: %w", err)
	}
	return s, nil
}
