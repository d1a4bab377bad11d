package web

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
)

// MarshalJWKS encodes public keys as a JWKS document (RFC 7517), keys sorted
// by kid so the output is stable. Only public key types are accepted, so a
// private key passed by mistake is an error rather than a leak.
func MarshalJWKS(keys map[string]crypto.PublicKey) ([]byte, error) {
	kids := make([]string, 0, len(keys))
	for kid := range keys {
		kids = append(kids, kid)
	}
	slices.Sort(kids)
	set := struct {
		Keys []jwk `json:"keys"`
	}{Keys: []jwk{}}
	for _, kid := range kids {
		j, err := toJWK(kid, keys[kid])
		if err != nil {
			return nil, fmt.Errorf("marshal JWKS: key %q: %w", kid, err)
		}
		set.Keys = append(set.Keys, j)
	}
	return json.Marshal(set)
}

func toJWK(kid string, pub crypto.PublicKey) (jwk, error) {
	if kid == "" {
		return jwk{}, errors.New("empty kid")
	}
	k, err := newVerificationKey(pub)
	if err != nil {
		return jwk{}, err
	}
	enc := base64.RawURLEncoding.EncodeToString
	j := jwk{Kid: kid, Use: "sig", Alg: k.alg}
	switch p := k.key.(type) {
	case *rsa.PublicKey:
		j.Kty, j.N, j.E = "RSA", enc(p.N.Bytes()), enc(big.NewInt(int64(p.E)).Bytes())
	case *ecdsa.PublicKey:
		b, err := p.Bytes() // 0x04 || X || Y, each 32 bytes on P-256
		if err != nil {
			return jwk{}, err
		}
		j.Kty, j.Crv, j.X, j.Y = "EC", "P-256", enc(b[1:33]), enc(b[33:])
	case ed25519.PublicKey:
		j.Kty, j.Crv, j.X = "OKP", "Ed25519", enc(p)
	}
	return j, nil
}

// JWKSHandler serves keys as a JWKS document, for the embedded dev identity
// provider and tests. The document is built once; it panics on a key
// MarshalJWKS refuses, because that is a programming error found at start-up.
func JWKSHandler(keys map[string]crypto.PublicKey) http.Handler {
	body, err := MarshalJWKS(keys)
	if err != nil {
		panic(fmt.Sprintf("web.JWKSHandler: %v", err))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			WriteError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		// Short enough that a restarted dev provider's new key is picked up.
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(body)
	})
}
