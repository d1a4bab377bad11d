package web

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// A client sends the same bearer token with every request until it expires,
// and checking its signature (Ed25519, RSA or ECDSA) costs far more than the
// rest of a small request. The verifier therefore remembers tokens it has
// verified, by the SHA-256 of their exact bytes: a token that differs in any
// byte is a different key and goes through the full check. Only successes
// are remembered. A hit skips the signature, but the time claims (exp, nbf)
// are checked again against the verifier's clock on every use, with the same
// validator and the same errors as a full check, so an expired token is
// refused exactly as before.
const (
	// tokenCacheSize bounds the number of remembered tokens. Past it,
	// expired entries go first, then arbitrary ones.
	tokenCacheSize = 10_000
	// tokenCacheMaxAge is how long a token is trusted without checking
	// its signature again. It bounds how long a token signed by a key the
	// identity provider has since dropped from its JWKS keeps working.
	tokenCacheMaxAge = 5 * time.Minute
)

type tokenKey [sha256.Size]byte

// verifiedToken is what a full check of a token established.
type verifiedToken struct {
	rc       *jwt.RegisteredClaims // re-validated (exp, nbf) on every hit
	claims   Claims
	verified time.Time // verifier clock at the full check
}

// tokenCache is a bounded map of verified tokens, safe for concurrent use.
type tokenCache struct {
	mu      sync.RWMutex
	max     int
	entries map[tokenKey]verifiedToken
}

func newTokenCache(max int) *tokenCache {
	return &tokenCache{max: max, entries: make(map[tokenKey]verifiedToken)}
}

// get returns the entry for k if it was verified within the max age of now.
// An entry from the future (the clock went back) does not count either.
func (c *tokenCache) get(k tokenKey, now time.Time) (verifiedToken, bool) {
	c.mu.RLock()
	e, ok := c.entries[k]
	c.mu.RUnlock()
	if !ok || now.Before(e.verified) || now.Sub(e.verified) >= tokenCacheMaxAge {
		return verifiedToken{}, false
	}
	return e, true
}

// put remembers e under k. When the cache is full it first drops the
// entries that can no longer be served (expired past leeway, or older than
// the max age), then, if that was not enough, arbitrary ones down to 90%
// of the bound, so that a full cache of live tokens does not sweep on
// every insert.
func (c *tokenCache) put(k tokenKey, e verifiedToken, now time.Time, leeway time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.max {
		for key, old := range c.entries {
			if stale(old, now, leeway) {
				delete(c.entries, key)
			}
		}
		for key := range c.entries { // map order is arbitrary
			if len(c.entries) < c.max-c.max/10 {
				break
			}
			delete(c.entries, key)
		}
	}
	c.entries[k] = e
}

// stale reports whether e can no longer be served at now.
func stale(e verifiedToken, now time.Time, leeway time.Duration) bool {
	if now.Before(e.verified) || now.Sub(e.verified) >= tokenCacheMaxAge {
		return true
	}
	return e.rc.ExpiresAt != nil && now.After(e.rc.ExpiresAt.Add(leeway))
}
