package web

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const (
	testAud = "https://ccwallet.test/api"
	testIss = "https://idp.test/realms/ccwallet"
)

// Keys are generated once: RSA generation is slow enough to matter when
// every test makes its own.
var testKeys = sync.OnceValue(func() struct {
	rsa, rsa2 *rsa.PrivateKey
	ec        *ecdsa.PrivateKey
	ed        ed25519.PrivateKey
} {
	var k struct {
		rsa, rsa2 *rsa.PrivateKey
		ec        *ecdsa.PrivateKey
		ed        ed25519.PrivateKey
	}
	var err error
	if k.rsa, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if k.rsa2, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if k.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		panic(err)
	}
	if _, k.ed, err = ed25519.GenerateKey(rand.Reader); err != nil {
		panic(err)
	}
	return k
})

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// jwksServer serves a swappable JWKS and counts fetches.
type jwksServer struct {
	*httptest.Server
	body    atomic.Pointer[[]byte]
	fetches atomic.Int32
	fail    atomic.Bool
}

func newJWKSServer(t *testing.T, keys map[string]crypto.PublicKey) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.set(t, keys)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		if s.fail.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(*s.body.Load())
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) set(t *testing.T, keys map[string]crypto.PublicKey) {
	t.Helper()
	b, err := MarshalJWKS(keys)
	if err != nil {
		t.Fatal(err)
	}
	s.body.Store(&b)
}

func defaultJWKS() map[string]crypto.PublicKey {
	k := testKeys()
	return map[string]crypto.PublicKey{"rsa1": &k.rsa.PublicKey, "ec1": &k.ec.PublicKey, "ed1": k.ed.Public()}
}

func newTestVerifier(t *testing.T, jwksURL string, mod func(*AuthConfig)) *Verifier {
	t.Helper()
	cfg := AuthConfig{Audience: testAud, Issuer: testIss, JWKSURL: jwksURL, Leeway: 30 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	v, err := NewVerifier(cfg, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// claimsAt are valid claims for a token issued at now.
func claimsAt(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"sub": "alice",
		"iss": testIss,
		"aud": []string{testAud},
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
	}
}

func validClaims() jwt.MapClaims { return claimsAt(time.Now()) }

// sign builds a token with any method, key, header and claims, including ones
// the verifier must refuse.
func sign(t *testing.T, method jwt.SigningMethod, key any, header map[string]any, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func kid(k string) map[string]any { return map[string]any{"kid": k} }

func with(c jwt.MapClaims, k string, v any) jwt.MapClaims {
	c[k] = v
	return c
}

func without(c jwt.MapClaims, k string) jwt.MapClaims {
	delete(c, k)
	return c
}

func seg(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

func bearer(tok string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/v0/wallet/balance", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	return r
}

func rsaPublicPEM(t *testing.T, pub *rsa.PublicKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// TestRequireRejects is the R11 battery: every request must get 401 with a
// JSON error and a Bearer challenge, never reach the handler, never 500.
func TestRequireRejects(t *testing.T) {
	k := testKeys()
	srv := newJWKSServer(t, defaultJWKS())
	v := newTestVerifier(t, srv.URL, nil)
	now := time.Now()
	rsaPEM := rsaPublicPEM(t, &k.rsa.PublicKey)
	_, attacker, _ := ed25519.GenerateKey(nil)
	attackerJWK, _ := toJWK("rsa1", attacker.Public())
	// jku/x5u point here: the verifier must never fetch from them.
	var evilHits atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { evilHits.Add(1) }))
	defer evil.Close()

	tests := []struct {
		name string
		req  func(t *testing.T) *http.Request
	}{
		{"no Authorization header", func(t *testing.T) *http.Request {
			return httptest.NewRequest(http.MethodGet, "/", nil)
		}},
		{"empty bearer", func(t *testing.T) *http.Request {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("Authorization", "Bearer ")
			return r
		}},
		{"bare Bearer", func(t *testing.T) *http.Request {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("Authorization", "Bearer")
			return r
		}},
		{"Basic scheme", func(t *testing.T) *http.Request {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.SetBasicAuth("alice", "secret")
			return r
		}},
		{"two Authorization headers", func(t *testing.T) *http.Request {
			tok := sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims())
			r := bearer(tok)
			r.Header.Add("Authorization", "Bearer "+tok)
			return r
		}},
		{"token in URL query", func(t *testing.T) *http.Request {
			tok := sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims())
			return httptest.NewRequest(http.MethodGet, "/?access_token="+tok, nil)
		}},
		{"token in URL query next to a valid header", func(t *testing.T) *http.Request {
			tok := sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims())
			r := bearer(tok)
			r.URL.RawQuery = "access_token=" + tok
			return r
		}},
		{"garbage", func(t *testing.T) *http.Request { return bearer("not-a-jwt") }},
		{"two segments", func(t *testing.T) *http.Request {
			return bearer(seg(map[string]string{"alg": "RS256", "kid": "rsa1"}) + "." + seg(validClaims()))
		}},
		{"malformed base64 header", func(t *testing.T) *http.Request {
			return bearer("eyJhbGciOiJSUzI1NiJ9!!." + seg(validClaims()) + ".c2ln")
		}},
		{"malformed base64 payload", func(t *testing.T) *http.Request {
			tok := sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims())
			p := strings.Split(tok, ".")
			return bearer(p[0] + ".%%%." + p[2])
		}},
		{"padded base64", func(t *testing.T) *http.Request {
			tok := sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims())
			p := strings.Split(tok, ".")
			return bearer(p[0] + "==." + p[1] + "." + p[2])
		}},
		{"alg none", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, kid("rsa1"), validClaims()))
		}},
		{"alg none, hand-made, empty signature", func(t *testing.T) *http.Request {
			return bearer(seg(map[string]string{"alg": "none", "typ": "JWT"}) + "." + seg(validClaims()) + ".")
		}},
		{"HS256 signed with the RSA public key (key confusion)", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodHS256, rsaPEM, kid("rsa1"), validClaims()))
		}},
		{"HS256 signed with the RSA modulus (key confusion)", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodHS256, k.rsa.N.Bytes(), kid("rsa1"), validClaims()))
		}},
		{"RS384 not allowed", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS384, k.rsa, kid("rsa1"), validClaims()))
		}},
		{"PS256 not allowed", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodPS256, k.rsa, kid("rsa1"), validClaims()))
		}},
		{"ES256 signature under an RSA kid", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodES256, k.ec, kid("rsa1"), validClaims()))
		}},
		{"RS256 claimed with the Ed25519 kid", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("ed1"), validClaims()))
		}},
		{"wrong aud", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "aud", "https://other.test")))
		}},
		{"missing aud", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), without(validClaims(), "aud")))
		}},
		{"wrong iss", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "iss", "https://evil.test")))
		}},
		{"iss differs by a trailing slash", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "iss", testIss+"/")))
		}},
		{"missing iss", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), without(validClaims(), "iss")))
		}},
		{"expired beyond leeway", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "exp", now.Add(-time.Minute).Unix())))
		}},
		{"missing exp", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), without(validClaims(), "exp")))
		}},
		{"exp as a string", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "exp", "tomorrow")))
		}},
		{"nbf in the future", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "nbf", now.Add(time.Minute).Unix())))
		}},
		{"missing sub", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), without(validClaims(), "sub")))
		}},
		{"empty sub", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "sub", "")))
		}},
		{"larger than 8 KiB", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "pad", strings.Repeat("x", 8<<10))))
		}},
		{"jku header", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, map[string]any{"kid": "rsa1", "jku": evil.URL + "/jwks"}, validClaims()))
		}},
		{"x5u header", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, map[string]any{"kid": "rsa1", "x5u": evil.URL + "/cert.pem"}, validClaims()))
		}},
		{"jwk header embedding the attacker's key", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodEdDSA, attacker, map[string]any{"kid": "rsa1", "jwk": attackerJWK}, validClaims()))
		}},
		{"x5c header", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, map[string]any{"kid": "rsa1", "x5c": []string{"MIIB"}}, validClaims()))
		}},
		{"crit header", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, map[string]any{"kid": "rsa1", "crit": []string{"exp"}}, validClaims()))
		}},
		{"typ of a logout token", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, map[string]any{"kid": "rsa1", "typ": "logout+jwt"}, validClaims()))
		}},
		{"unknown kid", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, kid("nope"), validClaims()))
		}},
		{"no kid", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa, nil, validClaims()))
		}},
		{"signed by another key under a known kid", func(t *testing.T) *http.Request {
			return bearer(sign(t, jwt.SigningMethodRS256, k.rsa2, kid("rsa1"), validClaims()))
		}},
		{"payload swapped after signing", func(t *testing.T) *http.Request {
			tok := sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims())
			p := strings.Split(tok, ".")
			return bearer(p[0] + "." + seg(with(validClaims(), "sub", "mallory")) + "." + p[2])
		}},
		{"signature flipped", func(t *testing.T) *http.Request {
			tok := sign(t, jwt.SigningMethodEdDSA, k.ed, kid("ed1"), validClaims())
			p := strings.Split(tok, ".")
			sig, _ := base64.RawURLEncoding.DecodeString(p[2])
			sig[0] ^= 1
			return bearer(p[0] + "." + p[1] + "." + base64.RawURLEncoding.EncodeToString(sig))
		}},
		{"signature stripped", func(t *testing.T) *http.Request {
			tok := sign(t, jwt.SigningMethodES256, k.ec, kid("ec1"), validClaims())
			return bearer(tok[:strings.LastIndex(tok, ".")+1])
		}},
	}
	if len(tests) < 20 {
		t.Fatalf("R11 wants at least 20 cases, have %d", len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			h := v.Require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called = true }))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, tt.req(t))
			if rec.Code != http.StatusUnauthorized {
				t.Fatalf("status = %d, want 401; body %s", rec.Code, rec.Body)
			}
			if called {
				t.Fatal("handler was called")
			}
			if got := rec.Header().Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", got)
			}
			var body map[string]string
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["error"] == "" || len(body) != 1 {
				t.Errorf("body = %s, want {\"error\": ...}", rec.Body)
			}
			t.Logf("error: %s", body["error"])
		})
	}
	if n := evilHits.Load(); n != 0 {
		t.Errorf("the verifier fetched %d times from a URL named in a token header", n)
	}
}

func TestVerifyGoodTokens(t *testing.T) {
	k := testKeys()
	srv := newJWKSServer(t, defaultJWKS())
	v := newTestVerifier(t, srv.URL, nil)
	now := time.Now()

	tests := []struct {
		name string
		tok  func(t *testing.T) string
		want Claims
	}{
		{"RS256", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims())
		}, Claims{Subject: "alice", Issuer: testIss, Audience: []string{testAud}}},
		{"ES256", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodES256, k.ec, kid("ec1"), validClaims())
		}, Claims{Subject: "alice", Issuer: testIss, Audience: []string{testAud}}},
		{"EdDSA", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodEdDSA, k.ed, kid("ed1"), validClaims())
		}, Claims{Subject: "alice", Issuer: testIss, Audience: []string{testAud}}},
		{"aud as a string among others", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "aud", []string{"account", testAud}))
		}, Claims{Subject: "alice", Issuer: testIss, Audience: []string{"account", testAud}}},
		{"expired within leeway", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), with(validClaims(), "exp", now.Add(-10*time.Second).Unix()))
		}, Claims{Subject: "alice", Issuer: testIss, Audience: []string{testAud}}},
		{"nbf in the past and typ at+jwt", func(t *testing.T) string {
			return sign(t, jwt.SigningMethodRS256, k.rsa, map[string]any{"kid": "rsa1", "typ": "at+jwt"}, with(validClaims(), "nbf", now.Add(-time.Minute).Unix()))
		}, Claims{Subject: "alice", Issuer: testIss, Audience: []string{testAud}}},
		{"SignDevToken Ed25519", func(t *testing.T) string {
			s, err := SignDevToken(k.ed, "ed1", testIss, testAud, "bob", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, Claims{Subject: "bob", Issuer: testIss, Audience: []string{testAud}}},
		{"SignDevToken RSA", func(t *testing.T) string {
			s, err := SignDevToken(k.rsa, "rsa1", testIss, testAud, "bob", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, Claims{Subject: "bob", Issuer: testIss, Audience: []string{testAud}}},
		{"SignDevToken ECDSA", func(t *testing.T) string {
			s, err := SignDevToken(k.ec, "ec1", testIss, testAud, "bob", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, Claims{Subject: "bob", Issuer: testIss, Audience: []string{testAud}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Claims
			h := v.Require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				c, ok := ClaimsFrom(r.Context())
				if !ok {
					t.Error("no claims in context")
				}
				got = c
				w.WriteHeader(http.StatusNoContent)
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, bearer(tt.tok(t)))
			if rec.Code != http.StatusNoContent {
				t.Fatalf("status = %d, body %s", rec.Code, rec.Body)
			}
			if got.Expiry.IsZero() {
				t.Error("Expiry not set")
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Claims{}, "Expiry")); diff != "" {
				t.Errorf("claims mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if n := srv.fetches.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times, want 1 (cached)", n)
	}
}

func TestOptional(t *testing.T) {
	k := testKeys()
	v := newTestVerifier(t, "", func(c *AuthConfig) {
		c.StaticKeys = map[string]crypto.PublicKey{"ed1": k.ed.Public()}
	})
	h := v.Optional(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := ClaimsFrom(r.Context())
		if !ok {
			_, _ = io.WriteString(w, "anonymous")
			return
		}
		_, _ = io.WriteString(w, c.Subject)
	}))
	good, _ := SignDevToken(k.ed, "ed1", testIss, testAud, "carol", time.Minute)
	expired := sign(t, jwt.SigningMethodEdDSA, k.ed, kid("ed1"), with(validClaims(), "exp", time.Now().Add(-time.Hour).Unix()))

	tests := []struct {
		name     string
		req      *http.Request
		wantCode int
		wantBody string
	}{
		{"no token", httptest.NewRequest(http.MethodGet, "/", nil), 200, "anonymous"},
		{"valid token", bearer(good), 200, "carol"},
		{"expired token", bearer(expired), 401, ""},
		{"token in query", httptest.NewRequest(http.MethodGet, "/?access_token="+good, nil), 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, tt.req)
			if rec.Code != tt.wantCode {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tt.wantCode, rec.Body)
			}
			if tt.wantBody != "" && rec.Body.String() != tt.wantBody {
				t.Errorf("body = %q, want %q", rec.Body, tt.wantBody)
			}
		})
	}
}

func TestHS256OnlyWithSecret(t *testing.T) {
	k := testKeys()
	secret := []byte(strings.Repeat("s", 32))
	srv := newJWKSServer(t, defaultJWKS())
	v := newTestVerifier(t, srv.URL, func(c *AuthConfig) { c.HMACSecret = secret })

	tests := []struct {
		name   string
		tok    string
		wantOK bool
	}{
		{"HS256 with the secret", sign(t, jwt.SigningMethodHS256, secret, nil, validClaims()), true},
		{"RS256 still works", sign(t, jwt.SigningMethodRS256, k.rsa, kid("rsa1"), validClaims()), true},
		{"HS256 with the RSA public key PEM", sign(t, jwt.SigningMethodHS256, rsaPublicPEM(t, &k.rsa.PublicKey), kid("rsa1"), validClaims()), false},
		{"HS256 with another secret", sign(t, jwt.SigningMethodHS256, []byte(strings.Repeat("x", 32)), nil, validClaims()), false},
		{"HS384 with the secret", sign(t, jwt.SigningMethodHS384, secret, nil, validClaims()), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tt.tok)
			if (err == nil) != tt.wantOK {
				t.Fatalf("Verify err = %v, want ok=%v", err, tt.wantOK)
			}
			if err != nil && !errors.Is(err, ErrInvalidToken) {
				t.Errorf("error %v does not wrap ErrInvalidToken", err)
			}
		})
	}
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestJWKSRotationAndCooldown(t *testing.T) {
	k := testKeys()
	srv := newJWKSServer(t, map[string]crypto.PublicKey{"k1": &k.rsa.PublicKey})
	v := newTestVerifier(t, srv.URL, nil)
	clock := &fakeClock{t: time.Unix(1_900_000_000, 0)}
	v.now = clock.Now

	verify := func(key *rsa.PrivateKey, kidName string) error {
		tok := sign(t, jwt.SigningMethodRS256, key, kid(kidName), claimsAt(clock.Now()))
		_, err := v.Verify(context.Background(), tok)
		return err
	}
	wantFetches := func(step string, n int32) {
		t.Helper()
		if got := srv.fetches.Load(); got != n {
			t.Fatalf("%s: %d JWKS fetches, want %d", step, got, n)
		}
	}

	if err := verify(k.rsa, "k1"); err != nil {
		t.Fatalf("k1: %v", err)
	}
	wantFetches("first use", 1)

	// The provider rotates to k2 and drops k1, inside the cooldown: the
	// first k2 token waits the cooldown out and is accepted (a rotation
	// costs no failed request; issue 39), with one more fetch.
	var slept time.Duration
	v.jwks.sleep = func(_ context.Context, d time.Duration) bool { slept += d; clock.Advance(d); return true }
	srv.set(t, map[string]crypto.PublicKey{"k2": &k.rsa2.PublicKey})
	clock.Advance(time.Second)
	if err := verify(k.rsa2, "k2"); err != nil {
		t.Fatalf("k2 inside the cooldown: %v", err)
	}
	if slept != jwksCooldown-time.Second {
		t.Errorf("waited %s for the cooldown, want %s", slept, jwksCooldown-time.Second)
	}
	wantFetches("rotation", 2)
	if err := verify(k.rsa, "k1"); err == nil {
		t.Fatal("k1 still accepted after it left the JWKS")
	}

	// Made-up kids: at most one fetch per cooldown, and never more than 10 a
	// minute.
	before, start := srv.fetches.Load(), clock.Now()
	for i := range 60 {
		clock.Advance(time.Second)
		if err := verify(k.rsa2, "random-"+string(rune('a'+i%26))); err == nil {
			t.Fatal("unknown kid accepted")
		}
	}
	minutes := int32(clock.Now().Sub(start)/time.Minute) + 1
	if got := srv.fetches.Load() - before; got > jwksMaxPerMinute*minutes || got < 1 {
		t.Fatalf("%d fetches for %d minutes of unknown kids, want 1..%d", got, minutes, jwksMaxPerMinute*minutes)
	}
	// A kid the last fetch lacked is not waited for again.
	clock.Advance(time.Second)
	slept = 0
	if err := verify(k.rsa2, "random-a"); err == nil || slept != 0 {
		t.Fatalf("kid missed just now: err %v, waited %s; want refused at once", err, slept)
	}

	// Known keys are served from the cache until it is 24 h old.
	clock.Advance(jwksCooldown)
	before = srv.fetches.Load()
	if err := verify(k.rsa2, "k2"); err != nil {
		t.Fatal(err)
	}
	wantFetches("cached", before)
	clock.Advance(jwksCacheTTL)
	if err := verify(k.rsa2, "k2"); err != nil {
		t.Fatal(err)
	}
	wantFetches("after 24 h", before+1)

	// A provider outage keeps known keys working but adds none.
	srv.fail.Store(true)
	clock.Advance(jwksCacheTTL)
	if err := verify(k.rsa2, "k2"); err != nil {
		t.Fatalf("known key during outage: %v", err)
	}
	clock.Advance(jwksCooldown)
	if err := verify(k.rsa, "k3"); err == nil {
		t.Fatal("unknown key accepted during outage")
	}
}

func TestJWKSConcurrentUnknownKidsFetchOnce(t *testing.T) {
	k := testKeys()
	srv := newJWKSServer(t, defaultJWKS())
	v := newTestVerifier(t, srv.URL, nil)
	tok := sign(t, jwt.SigningMethodRS256, k.rsa, kid("made-up"), validClaims())
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, err := v.Verify(context.Background(), tok); err == nil {
				t.Error("unknown kid accepted")
			}
		})
	}
	wg.Wait()
	if n := srv.fetches.Load(); n != 1 {
		t.Errorf("%d JWKS fetches for 50 concurrent unknown kids, want 1", n)
	}
}

func TestDisableAuth(t *testing.T) {
	v, err := NewVerifier(AuthConfig{DisableAuth: true}, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	unsigned := seg(map[string]string{"alg": "none"}) + "." + seg(map[string]string{"sub": "dev"}) + "."
	c, err := v.Verify(context.Background(), unsigned)
	if err != nil || c.Subject != "dev" {
		t.Fatalf("Verify = %+v, %v; want sub dev", c, err)
	}
	for _, bad := range []string{
		seg(map[string]string{"alg": "none"}) + "." + seg(map[string]string{"name": "dev"}) + ".",
		"garbage",
	} {
		if _, err := v.Verify(context.Background(), bad); err == nil {
			t.Errorf("Verify(%q) accepted", bad)
		}
	}
}

func TestNewVerifierRejectsConfig(t *testing.T) {
	k := testKeys()
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	tests := []struct {
		name string
		cfg  AuthConfig
	}{
		{"no key source", AuthConfig{Audience: testAud}},
		{"short HMAC secret", AuthConfig{HMACSecret: []byte("short")}},
		{"bad JWKS URL", AuthConfig{JWKSURL: "file:///etc/passwd"}},
		{"1024-bit RSA static key", AuthConfig{StaticKeys: map[string]crypto.PublicKey{"a": &small.PublicKey}}},
		{"P-384 static key", AuthConfig{StaticKeys: map[string]crypto.PublicKey{"a": &p384.PublicKey}}},
		{"private key as static key", AuthConfig{StaticKeys: map[string]crypto.PublicKey{"a": k.rsa}}},
		{"negative leeway", AuthConfig{HMACSecret: make([]byte, 32), Leeway: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewVerifier(tt.cfg, discardLogger()); err == nil {
				t.Fatal("NewVerifier accepted the config")
			}
		})
	}
}

func TestParseJWKS(t *testing.T) {
	k := testKeys()
	doc, err := MarshalJWKS(defaultJWKS())
	if err != nil {
		t.Fatal(err)
	}
	keys, skipped, err := parseJWKS(doc)
	if err != nil || len(skipped) != 0 {
		t.Fatalf("round trip: %v, skipped %v", err, skipped)
	}
	want := map[string]string{"rsa1": "RS256", "ec1": "ES256", "ed1": "EdDSA"}
	got := map[string]string{}
	for kid, key := range keys {
		got[kid] = key.alg
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("algs mismatch (-want +got):\n%s", diff)
	}
	if !keys["rsa1"].key.(*rsa.PublicKey).Equal(&k.rsa.PublicKey) {
		t.Error("rsa1 does not round-trip")
	}

	edX := base64.RawURLEncoding.EncodeToString(k.ed.Public().(ed25519.PublicKey))
	mixed := `{"keys":[
		{"kty":"OKP","crv":"Ed25519","kid":"ok","x":"` + edX + `"},
		{"kty":"OKP","crv":"Ed25519","kid":"enc","use":"enc","x":"` + edX + `"},
		{"kty":"OKP","crv":"X25519","kid":"x","x":"` + edX + `"},
		{"kty":"OKP","crv":"Ed25519","x":"` + edX + `"},
		{"kty":"OKP","crv":"Ed25519","kid":"alg","alg":"RS256","x":"` + edX + `"},
		{"kty":"EC","crv":"P-256","kid":"offcurve","x":"` + edX + `","y":"` + edX + `"},
		{"kty":"oct","kid":"sym","k":"c2VjcmV0"},
		{"kty":"OKP","crv":"Ed25519","kid":"dup","x":"` + edX + `"},
		{"kty":"OKP","crv":"Ed25519","kid":"dup","x":"` + edX + `"},
		{"kty":"OKP","crv":"Ed25519","kid":"dup","x":"` + edX + `"},
		"junk"
	]}`
	keys, skipped, err = parseJWKS([]byte(mixed))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := keys["ok"]; len(keys) != 1 || !ok {
		t.Errorf("usable keys = %v, want only \"ok\"", keys)
	}
	if len(skipped) != 9 { // the first "dup" is counted as kept, then dropped
		t.Errorf("skipped %d keys, want 9: %q", len(skipped), skipped)
	}
	if _, _, err := parseJWKS([]byte(`{"nokeys":[]}`)); err == nil {
		t.Error("JWKS without keys accepted")
	}
}

func TestJWKSHandler(t *testing.T) {
	h := JWKSHandler(defaultJWKS())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/jwks", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if strings.Contains(rec.Body.String(), `"d"`) {
		t.Error("private key material in the JWKS")
	}
	defer func() {
		if recover() == nil {
			t.Error("JWKSHandler accepted a private key")
		}
	}()
	JWKSHandler(map[string]crypto.PublicKey{"x": testKeys().rsa})
}
