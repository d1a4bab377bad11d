package web

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// JWKS caching policy. Keys are kept 24 h, refreshed in the background once
// 5 min old (jwks_health.go); an unknown kid (a rotation) causes
// a refetch, but at most one per 6 s and 10 per minute, so a stream of tokens
// with made-up kids cannot turn us into a load generator against the
// identity provider (PEERS.md R11, like Splice's 10/min).
const (
	jwksCacheTTL     = 24 * time.Hour
	jwksCooldown     = 6 * time.Second
	jwksMaxPerMinute = 10
	jwksFetchTimeout = 10 * time.Second
	jwksMaxBytes     = 1 << 20
	minRSABits       = 2048
)

// verificationKey is a public key with the one algorithm it may verify.
type verificationKey struct {
	key crypto.PublicKey
	alg string
}

// newVerificationKey binds a public key to its algorithm by its type: that
// binding is what makes alg substitution impossible.
func newVerificationKey(pub crypto.PublicKey) (verificationKey, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return verificationKey{}, fmt.Errorf("RSA key of %d bits, want at least %d", k.N.BitLen(), minRSABits)
		}
		return verificationKey{key: k, alg: "RS256"}, nil
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return verificationKey{}, errors.New("EC key is not on P-256")
		}
		return verificationKey{key: k, alg: "ES256"}, nil
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return verificationKey{}, errors.New("bad Ed25519 key length")
		}
		return verificationKey{key: k, alg: "EdDSA"}, nil
	default:
		return verificationKey{}, fmt.Errorf("unsupported key type %T", pub)
	}
}

// jwksCache holds the keys of one JWKS URL.
type jwksCache struct {
	url    string
	client *http.Client
	log    *slog.Logger
	now    func() time.Time

	fetchMu sync.Mutex // one fetch at a time; waiters reuse its result
	// sleep waits d or until ctx ends (false); tests advance a fake clock.
	sleep func(ctx context.Context, d time.Duration) bool

	mu        sync.Mutex // guards the fields below
	keys      map[string]verificationKey
	fetchedAt time.Time // last successful fetch
	fetches   uint64    // fetches done so far, failed ones too
	// missed is when a fetch last lacked a kid: such a kid is not waited
	// for again within the cooldown.
	missed   map[string]time.Time
	attempts []time.Time // fetch attempts in the last minute, oldest first
	// failingSince is when fetches began to fail, zero while the last
	// one succeeded: /readyz's degraded answer (jwks_health.go).
	failingSince time.Time
	// probing: a background fetch runs (jwks_health.go).
	probing atomic.Bool
}

func newJWKSCache(url string, client *http.Client, log *slog.Logger, now func() time.Time) *jwksCache {
	return &jwksCache{url: url, client: client, log: log, now: now, sleep: sleepCtx}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// key returns the key for kid, fetching the JWKS when the kid is unknown or
// the cache is older than 24 h and the rate limits allow. When a refresh
// fails, keys already known keep working: an identity-provider outage should
// not log everyone out.
func (c *jwksCache) key(ctx context.Context, kid string) (verificationKey, bool) {
	k, ok, fresh := c.lookup(kid)
	if ok && fresh {
		c.refreshIfOld() // a key the provider dropped goes within minutes
		return k, true
	}
	c.mu.Lock()
	seen := c.fetches
	c.mu.Unlock()

	c.fetchMu.Lock()
	defer c.fetchMu.Unlock()
	// Another request may have fetched while we waited: its answer is
	// ours too (concurrent made-up kids cost one fetch, not one each).
	k, ok, fresh = c.lookup(kid)
	c.mu.Lock()
	fetchedMeanwhile := c.fetches != seen
	c.mu.Unlock()
	if ok && fresh || fetchedMeanwhile {
		return k, ok
	}
	allowed, wait := c.allowFetch()
	if !allowed && !ok && wait > 0 && !c.missedLately(kid) {
		// An unknown kid inside the cooldown is most likely a rotation
		// just after the last fetch: wait the cooldown out rather than
		// refuse the provider's first token with its new key. Only the
		// per-minute cap refuses at once.
		if !c.sleep(ctx, wait) {
			return k, ok
		}
		allowed, _ = c.allowFetch()
	}
	if !allowed {
		return k, ok
	}
	// The fetch outlives an impatient client: its result serves everyone.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksFetchTimeout)
	defer cancel()
	keys, err := c.refetch(fctx)
	c.mu.Lock()
	if _, found := keys[kid]; !found {
		if len(c.missed) >= 1000 || c.missed == nil {
			c.missed = map[string]time.Time{}
		}
		c.missed[kid] = c.now()
	}
	c.mu.Unlock()
	if err != nil {
		return k, ok
	}
	c.log.Info("auth: JWKS refreshed", "url", c.url, "keys", len(keys))
	k, ok = keys[kid]
	return k, ok
}

// refetch fetches the JWKS, fetchMu held, and records the outcome: on
// success the keys replace those held (keys no longer published go); a
// failure is counted, logged (the callers only see "unknown signing key"
// or a degraded /readyz) and keeps the keys held.
func (c *jwksCache) refetch(ctx context.Context) (map[string]verificationKey, error) {
	keys, err := c.fetch(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fetches++
	if err != nil {
		if c.failingSince.IsZero() {
			c.failingSince = c.now()
		}
		c.log.Warn("auth: fetch JWKS", "url", c.url, "err", err)
		return nil, err
	}
	c.failingSince = time.Time{}
	c.keys, c.fetchedAt = keys, c.now()
	return keys, nil
}

func (c *jwksCache) lookup(kid string) (k verificationKey, ok, fresh bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok = c.keys[kid]
	fresh = !c.fetchedAt.IsZero() && c.now().Sub(c.fetchedAt) < jwksCacheTTL
	return k, ok, fresh
}

// allowFetch applies the cooldown and the per-minute cap, and records the
// attempt when allowed. Failed fetches count too: hammering a failing
// provider helps nobody. When only the cooldown refuses, wait is how long
// until it ends.
func (c *jwksCache) allowFetch() (allowed bool, wait time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	i := 0
	for i < len(c.attempts) && now.Sub(c.attempts[i]) >= time.Minute {
		i++
	}
	c.attempts = c.attempts[i:]
	if len(c.attempts) >= jwksMaxPerMinute {
		return false, 0
	}
	if n := len(c.attempts); n > 0 && now.Sub(c.attempts[n-1]) < jwksCooldown {
		return false, jwksCooldown - now.Sub(c.attempts[n-1])
	}
	c.attempts = append(c.attempts, now)
	return true, 0
}

// missedLately: the last fetches lacked kid, within the cooldown.
func (c *jwksCache) missedLately(kid string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.missed[kid]
	return ok && c.now().Sub(at) < jwksCooldown
}

func (c *jwksCache) fetch(ctx context.Context) (map[string]verificationKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if len(body) > jwksMaxBytes {
		return nil, fmt.Errorf("JWKS larger than %d bytes", jwksMaxBytes)
	}
	keys, skipped, err := parseJWKS(body)
	if err != nil {
		return nil, err
	}
	for _, s := range skipped {
		c.log.Debug("auth: JWKS key skipped", "url", c.url, "reason", s)
	}
	return keys, nil
}

// jwk is one key of a JWKS (RFC 7517 §4, RFC 7518 §6, RFC 8037).
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid,omitempty"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
	Crv string `json:"crv,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
}

type jwkSet struct {
	Keys []json.RawMessage `json:"keys"`
}

// parseJWKS returns the usable signing keys by kid. Keys we cannot use
// (encryption keys, other curves, no kid) are skipped, not fatal: providers
// publish all sorts of keys and one odd entry must not disable the rest.
func parseJWKS(data []byte) (map[string]verificationKey, []string, error) {
	var set jwkSet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, nil, fmt.Errorf("decode JWKS: %w", err)
	}
	if set.Keys == nil {
		return nil, nil, errors.New("decode JWKS: no keys member")
	}
	keys := make(map[string]verificationKey, len(set.Keys))
	var skipped []string
	dups := map[string]bool{}
	for i, raw := range set.Keys {
		var j jwk
		if err := json.Unmarshal(raw, &j); err != nil {
			skipped = append(skipped, fmt.Sprintf("key %d: %v", i, err))
			continue
		}
		k, err := j.verificationKey()
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("key %d (kid %q): %v", i, j.Kid, err))
			continue
		}
		if _, dup := keys[j.Kid]; dup || dups[j.Kid] {
			// Ambiguous: we could pick the wrong key. Refuse all of them.
			delete(keys, j.Kid)
			dups[j.Kid] = true
			skipped = append(skipped, fmt.Sprintf("key %d: duplicate kid %q", i, j.Kid))
			continue
		}
		keys[j.Kid] = k
	}
	return keys, skipped, nil
}

func (j jwk) verificationKey() (verificationKey, error) {
	if j.Kid == "" {
		return verificationKey{}, errors.New("no kid")
	}
	if j.Use != "" && j.Use != "sig" {
		return verificationKey{}, fmt.Errorf("use %q is not sig", j.Use)
	}
	var pub crypto.PublicKey
	switch j.Kty {
	case "RSA":
		n, err := b64uint(j.N)
		if err != nil {
			return verificationKey{}, fmt.Errorf("n: %w", err)
		}
		e, err := b64uint(j.E)
		if err != nil {
			return verificationKey{}, fmt.Errorf("e: %w", err)
		}
		if !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 || e.Bit(0) == 0 {
			return verificationKey{}, errors.New("e: unsupported exponent")
		}
		pub = &rsa.PublicKey{N: n, E: int(e.Int64())}
	case "EC":
		if j.Crv != "P-256" {
			return verificationKey{}, fmt.Errorf("crv %q is not P-256", j.Crv)
		}
		x, err := b64fixed(j.X, 32)
		if err != nil {
			return verificationKey{}, fmt.Errorf("x: %w", err)
		}
		y, err := b64fixed(j.Y, 32)
		if err != nil {
			return verificationKey{}, fmt.Errorf("y: %w", err)
		}
		// Also checks that the point is on the curve (invalid-curve attacks).
		k, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return verificationKey{}, err
		}
		pub = k
	case "OKP":
		if j.Crv != "Ed25519" {
			return verificationKey{}, fmt.Errorf("crv %q is not Ed25519", j.Crv)
		}
		x, err := b64fixed(j.X, ed25519.PublicKeySize)
		if err != nil {
			return verificationKey{}, fmt.Errorf("x: %w", err)
		}
		pub = ed25519.PublicKey(x)
	default:
		return verificationKey{}, fmt.Errorf("kty %q is not supported", j.Kty)
	}
	k, err := newVerificationKey(pub)
	if err != nil {
		return verificationKey{}, err
	}
	if j.Alg != "" && j.Alg != k.alg {
		return verificationKey{}, fmt.Errorf("alg %q is not accepted for this key", j.Alg)
	}
	return k, nil
}

// b64 decodes base64url, tolerating the padding some providers emit.
func b64(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("missing")
	}
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

func b64uint(s string) (*big.Int, error) {
	b, err := b64(s)
	if err != nil {
		return nil, err
	}
	return new(big.Int).SetBytes(b), nil
}

func b64fixed(s string, size int) ([]byte, error) {
	b, err := b64(s)
	if err != nil {
		return nil, err
	}
	if len(b) != size {
		return nil, fmt.Errorf("%d bytes, want %d", len(b), size)
	}
	return b, nil
}
