package web

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// AuthConfig configures JWT bearer authentication of the JSON API.
type AuthConfig struct {
	// Audience, when set, must be one of the token's aud values (RFC 8725
	// §3.9): a token minted for another service must not work here.
	Audience string
	// Issuer, when set, must equal the token's iss exactly.
	Issuer string
	// JWKSURL is where the identity provider publishes its signing keys.
	JWKSURL string
	// HMACSecret enables HS256 with this shared secret (≥ 32 bytes). It is
	// for development only: anyone who can verify can also mint tokens.
	HMACSecret []byte
	// StaticKeys are verification keys by kid, used before JWKSURL; for the
	// embedded dev provider and tests. Supported: *rsa.PublicKey,
	// *ecdsa.PublicKey (P-256), ed25519.PublicKey.
	StaticKeys map[string]crypto.PublicKey
	// DisableAuth skips signature and claim checks; the token must still
	// parse and carry a sub, which becomes the caller's identity. Like
	// Splice's disableAuth: for local development only.
	DisableAuth bool
	// Leeway tolerates clock skew on exp and nbf.
	Leeway time.Duration
	// HTTPClient fetches the JWKS; nil means a client with a 10 s timeout.
	HTTPClient *http.Client
	// SharedSecret, when set, also accepts its HS256 tokens
	// (sharedsecret.go): a test network's (LocalNet's) authentication.
	SharedSecret *SharedSecretAuth
	// UserClaim is the claim that names the caller ("" or "sub": the
	// subject), e.g. email where the provider's sub is opaque; the browser
	// login takes the same one (OIDCConfig.UserClaim).
	UserClaim string
}

// Claims is the caller's identity, taken from a verified token. Claims of
// one token share their Audience slice: do not modify it.
type Claims struct {
	// Subject is the caller: the token's sub, or its AuthConfig.UserClaim.
	Subject  string
	Issuer   string
	Audience []string
	Expiry   time.Time
	// ActAs is the party the token's user asks to act as (the private
	// claim ccwallet_act_as): a development network's impersonation,
	// which the handlers allow only to an admin there. "" for none.
	ActAs string
}

// tokenClaims is what a token is parsed into: the registered claims and
// ccwallet's act-as claim.
type tokenClaims struct {
	jwt.RegisteredClaims
	ActAs string `json:"ccwallet_act_as,omitempty"`
}

// MaxActAsBytes bounds the act-as claim (a party ID).
const MaxActAsBytes = 512

// ErrInvalidToken is wrapped by every error of Verify, so callers can tell a
// rejected token (401) from anything else with errors.Is.
var ErrInvalidToken = errors.New("invalid token")

// MaxTokenBytes bounds the size of a bearer token. Real access tokens are
// 1–2 KiB; the cap keeps a hostile token from costing much parsing.
const MaxTokenBytes = 8 << 10

// Verifier checks bearer tokens. It is safe for concurrent use.
type Verifier struct {
	log      *slog.Logger
	audience string
	issuer   string
	leeway   time.Duration
	disabled bool
	hmac     []byte
	static   map[string]verificationKey
	jwks     *jwksCache // nil without JWKSURL
	now      func() time.Time

	// parse and validate are built once; their clock calls v.now, so
	// tests can still swap it. Both are safe for concurrent use.
	parse    *jwt.Parser
	validate *jwt.Validator
	tokens   *tokenCache   // verified tokens (tokencache.go); nil when disabled
	shared   *sharedSecret // nil without AuthConfig.SharedSecret
	// userClaim names the caller when not sub ("" for sub).
	userClaim string
}

// NewVerifier checks cfg and returns a Verifier. The JWKS is fetched lazily on
// first use, so the server can start before the identity provider (or serve
// the embedded dev provider itself).
func NewVerifier(cfg AuthConfig, log *slog.Logger) (*Verifier, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := &Verifier{
		log:      log,
		audience: cfg.Audience,
		issuer:   cfg.Issuer,
		leeway:   cfg.Leeway,
		disabled: cfg.DisableAuth,
		now:      time.Now,
	}
	if cfg.UserClaim != "sub" {
		v.userClaim = cfg.UserClaim
	}
	if cfg.DisableAuth {
		log.Warn("AUTHENTICATION IS DISABLED: bearer tokens are NOT verified and any token with a sub is accepted; never use this outside local development")
		return v, nil
	}
	if cfg.Leeway < 0 {
		return nil, errors.New("auth: leeway must not be negative")
	}
	if len(cfg.HMACSecret) > 0 {
		// RFC 7518 §3.2: the key must be at least as long as the hash.
		if len(cfg.HMACSecret) < 32 {
			return nil, errors.New("auth: hmac secret must be at least 32 bytes")
		}
		v.hmac = append([]byte(nil), cfg.HMACSecret...)
		log.Warn("auth: HS256 tokens are accepted with a shared secret; this is for development only")
	}
	if len(cfg.StaticKeys) > 0 {
		v.static = make(map[string]verificationKey, len(cfg.StaticKeys))
		for kid, pub := range cfg.StaticKeys {
			k, err := newVerificationKey(pub)
			if err != nil {
				return nil, fmt.Errorf("auth: static key %q: %w", kid, err)
			}
			v.static[kid] = k
		}
	}
	if cfg.JWKSURL != "" {
		u, err := url.Parse(cfg.JWKSURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("auth: jwks url %q is not an http(s) URL", cfg.JWKSURL)
		}
		if u.Scheme == "http" && !isLoopback(u.Hostname()) {
			log.Warn("auth: the JWKS is fetched over plain http; anyone on the path can substitute signing keys", "url", cfg.JWKSURL)
		}
		client := cfg.HTTPClient
		if client == nil {
			client = &http.Client{Timeout: jwksFetchTimeout}
		}
		v.jwks = newJWKSCache(cfg.JWKSURL, client, log, func() time.Time { return v.now() })
	}
	if cfg.SharedSecret != nil {
		s, err := v.newSharedSecret(cfg.SharedSecret)
		if err != nil {
			return nil, err
		}
		v.shared = s
	}
	if v.hmac == nil && v.static == nil && v.jwks == nil && v.shared == nil {
		return nil, errors.New("auth: no key source: set a JWKS URL, static keys or (dev only) an HMAC secret")
	}
	if cfg.Audience == "" {
		log.Warn("auth: no audience configured; tokens minted for any service of the identity provider are accepted")
	}
	opts := v.parserOptions()
	v.parse, v.validate = jwt.NewParser(opts...), jwt.NewValidator(opts...)
	v.tokens = newTokenCache(tokenCacheSize)
	return v, nil
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// Verify checks raw and returns its claims. Every error wraps
// ErrInvalidToken and its text is safe to show to the client.
func (v *Verifier) Verify(ctx context.Context, raw string) (Claims, error) {
	if raw == "" {
		return Claims{}, fmt.Errorf("%w: empty token", ErrInvalidToken)
	}
	if len(raw) > MaxTokenBytes {
		return Claims{}, fmt.Errorf("%w: token larger than %d bytes", ErrInvalidToken, MaxTokenBytes)
	}
	if v.disabled {
		var tc tokenClaims
		if _, _, err := jwt.NewParser().ParseUnverified(raw, &tc); err != nil {
			return Claims{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
		}
		return v.claimsOf(&tc, raw)
	}
	key, now := tokenKey(sha256.Sum256([]byte(raw))), v.now()
	if e, ok := v.tokens.get(key, now); ok {
		// The signature, alg, header, aud and iss were checked when the
		// token was first seen and cannot have changed (same bytes); exp
		// and nbf depend on the clock and are checked again, with the
		// error ParseWithClaims would give.
		if err := v.validate.Validate(e.rc); err != nil {
			return Claims{}, fmt.Errorf("%w: %w", ErrInvalidToken, fmt.Errorf("%w: %w", jwt.ErrTokenInvalidClaims, err))
		}
		return e.claims, nil
	}
	tc := new(tokenClaims)
	if v.shared != nil && headerAlg(raw) == "HS256" {
		// Not cached: an HMAC costs little, and a cached token is
		// checked again with this verifier's own audience.
		if _, err := v.shared.parse.ParseWithClaims(raw, tc, v.shared.keyFunc); err != nil {
			return Claims{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
		}
		return v.claimsOf(tc, raw)
	}
	if _, err := v.parse.ParseWithClaims(raw, tc, v.keyFunc(ctx)); err != nil {
		return Claims{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	rc := &tc.RegisteredClaims
	c, err := v.claimsOf(tc, raw)
	if err != nil {
		return Claims{}, err
	}
	// now was read before the check, so the entry's age never understates
	// the time since its signature was verified.
	v.tokens.put(key, verifiedToken{rc: rc, claims: c, verified: now}, now, v.leeway)
	return c, nil
}

// claimsOf returns the caller's identity in tc, the claims of raw.
func (v *Verifier) claimsOf(tc *tokenClaims, raw string) (Claims, error) {
	rc := &tc.RegisteredClaims
	// The subject is the caller's identity: a token without one proves
	// nothing about who is calling (RFC 8725 §3.8).
	if rc.Subject == "" {
		return Claims{}, fmt.Errorf("%w: token has no sub", ErrInvalidToken)
	}
	if strings.IndexByte(rc.Subject, 0) >= 0 {
		return Claims{}, fmt.Errorf("%w: token sub contains a NUL character", ErrInvalidToken)
	}
	if len(tc.ActAs) > MaxActAsBytes || strings.IndexByte(tc.ActAs, 0) >= 0 {
		return Claims{}, fmt.Errorf("%w: ccwallet_act_as is not a party ID", ErrInvalidToken)
	}
	c := Claims{Subject: rc.Subject, Issuer: rc.Issuer, Audience: []string(rc.Audience), ActAs: tc.ActAs}
	if v.userClaim != "" {
		user, err := stringClaim(raw, v.userClaim)
		if err != nil {
			return Claims{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
		}
		c.Subject = user
	}
	if rc.ExpiresAt != nil {
		c.Expiry = rc.ExpiresAt.Time
	}
	return c, nil
}

// stringClaim is the string claim name of the (already parsed) JWT raw.
func stringClaim(raw, name string) (string, error) {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return "", errors.New("token is not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", errors.New("token payload is not base64url")
	}
	var all map[string]any
	if err := json.Unmarshal(payload, &all); err != nil {
		return "", errors.New("token payload is not JSON")
	}
	user, _ := all[name].(string)
	if user == "" || strings.IndexByte(user, 0) >= 0 {
		return "", fmt.Errorf("token has no %s claim to name the user (the configured user claim)", name)
	}
	return user, nil
}

// parserOptions are the checks of a full verification. The clock is read
// through v.now on every use, so tests can swap it after NewVerifier.
func (v *Verifier) parserOptions() []jwt.ParserOption {
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(v.allowedAlgs()),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(v.leeway),
		jwt.WithTimeFunc(func() time.Time { return v.now() }),
		jwt.WithStrictDecoding(),
	}
	if v.audience != "" {
		opts = append(opts, jwt.WithAudience(v.audience))
	}
	if v.issuer != "" {
		opts = append(opts, jwt.WithIssuer(v.issuer))
	}
	return opts
}

// allowedAlgs is the algorithm allowlist (RFC 8725 §3.1). "none" and every
// other algorithm are refused before any key is looked up.
func (v *Verifier) allowedAlgs() []string {
	algs := []string{"RS256", "ES256", "EdDSA"}
	if v.hmac != nil {
		algs = append(algs, "HS256")
	}
	return algs
}

// keyFunc picks the verification key. The key is chosen by the token's alg
// AND the key's own type, so an HS256 token is only ever checked against the
// HMAC secret, never against a public key (the classic key confusion).
func (v *Verifier) keyFunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		if err := checkHeader(t.Header); err != nil {
			return nil, err
		}
		alg := t.Method.Alg()
		if alg == "HS256" {
			if v.hmac == nil {
				return nil, errors.New("HS256 is not accepted")
			}
			return v.hmac, nil
		}
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("token header has no kid")
		}
		k, ok := v.static[kid]
		if !ok && v.jwks != nil {
			k, ok = v.jwks.key(ctx, kid)
		}
		if !ok {
			return nil, errors.New("unknown signing key")
		}
		if k.alg != alg {
			return nil, fmt.Errorf("signing key is for %s, token says %s", k.alg, alg)
		}
		return k.key, nil
	}
}

// checkHeader refuses headers that name or embed their own key (RFC 8725
// §3.10, ASVS 9.1.3): we never fetch from jku/x5u nor trust jwk/x5c, and a
// token carrying them is either misconfigured or an attack. crit is refused
// because we understand no extension (RFC 7515 §4.1.11). typ, when present,
// must say JWT or access token, so an ID or logout token of the same
// provider cannot pass as an access token (RFC 8725 §3.11).
func checkHeader(h map[string]any) error {
	for _, name := range []string{"jku", "x5u", "jwk", "x5c", "crit"} {
		if _, ok := h[name]; ok {
			return fmt.Errorf("token header %q is not accepted", name)
		}
	}
	if typ, ok := h["typ"]; ok {
		s, _ := typ.(string)
		switch strings.ToLower(s) {
		case "jwt", "at+jwt", "application/at+jwt":
		default:
			return errors.New("token typ is not accepted")
		}
	}
	return nil
}

type claimsKey struct{}

// WithClaims returns ctx carrying c. Require and Optional use it; tests of
// handlers can use it to act as a caller without a token.
func WithClaims(ctx context.Context, c Claims) context.Context {
	return context.WithValue(ctx, claimsKey{}, c)
}

// ClaimsFrom returns the claims stored by Require or Optional.
func ClaimsFrom(ctx context.Context) (Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(Claims)
	return c, ok
}

// Require lets a request through only with a valid bearer token and puts its
// claims in the context. Anything else gets 401 {"error": ...} with a
// WWW-Authenticate: Bearer challenge (RFC 6750 §3).
func (v *Verifier) Require(next http.Handler) http.Handler {
	return v.middleware(next, true)
}

func (v *Verifier) middleware(next http.Handler, required bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := bearerToken(r)
		if err != nil {
			v.unauthorized(w, r, `Bearer error="invalid_request"`, err.Error())
			return
		}
		if raw == "" {
			if required {
				v.unauthorized(w, r, "Bearer", "missing bearer token")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		c, err := v.Verify(r.Context(), raw)
		if err != nil {
			v.unauthorized(w, r, `Bearer error="invalid_token"`, err.Error())
			return
		}
		next.ServeHTTP(w, r.WithContext(WithClaims(r.Context(), c)))
	})
}

func (v *Verifier) unauthorized(w http.ResponseWriter, r *http.Request, challenge, msg string) {
	// Debug, not Warn: rejected tokens are routine (expiry) and an attacker
	// could otherwise flood the log.
	v.log.DebugContext(r.Context(), "request unauthenticated", "reason", msg, "request_id", RequestIDFrom(r.Context()))
	w.Header().Set("WWW-Authenticate", challenge)
	WriteError(w, http.StatusUnauthorized, msg)
}

// bearerToken returns the token of the Authorization header, "" when there is
// none. Tokens in the URL are refused outright (RFC 6750 §2.3, RFC 8725): they
// end up in logs, browser history and Referer headers.
func bearerToken(r *http.Request) (string, error) {
	if r.URL.Query().Has("access_token") {
		return "", errors.New("tokens in the URL are not accepted; send Authorization: Bearer <token>")
	}
	vals := r.Header.Values("Authorization")
	switch len(vals) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", errors.New("more than one Authorization header")
	}
	scheme, token, _ := strings.Cut(vals[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", errors.New("the Authorization header must use the Bearer scheme")
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return "", errors.New("empty bearer token")
	}
	return token, nil
}
