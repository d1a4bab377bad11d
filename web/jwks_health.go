package web

import (
	"context"
	"fmt"
	"time"
)

// check is the JWKS's readiness check. While the last fetch failed it
// answers DegradedError (tokens of the keys held keep working), and asks
// again in the background within the fetch limits, so readiness recovers
// by itself when the provider is back, with no token needed. A cache that
// never fetched fetches once the same way. It never waits for the
// provider: a hung JWKS must not make the probe time out.
func (c *jwksCache) check(context.Context) error {
	c.mu.Lock()
	since, never, held := c.failingSince, c.fetchedAt.IsZero(), len(c.keys)
	c.mu.Unlock()
	if !since.IsZero() || never {
		c.probe()
	}
	if since.IsZero() {
		return nil
	}
	return &DegradedError{Reason: fmt.Sprintf("the identity provider's JWKS could not be fetched since %s; the %d signing keys held still verify tokens",
		since.UTC().Format(time.RFC3339), held)}
}

// probe fetches the JWKS in the background when the limits allow and no
// probe runs. A fetch replaces the keys held: keys no longer published go.
func (c *jwksCache) probe() {
	if !c.probing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer c.probing.Store(false)
		c.fetchMu.Lock()
		defer c.fetchMu.Unlock()
		if ok, _ := c.allowFetch(); !ok {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), jwksFetchTimeout)
		defer cancel()
		_, _ = c.refetch(ctx)
	}()
}

// jwksRefreshAge is how old the held keys may be before a token of a held
// key also refreshes them, in the background (the token is verified with
// the key held, without waiting): a key the provider dropped (its grace
// period over, or compromised) stops verifying within minutes of the
// next request, not after the 24 h jwksCacheTTL.
const jwksRefreshAge = 5 * time.Minute

// refreshIfOld refetches the JWKS in the background when the keys held are
// older than jwksRefreshAge.
func (c *jwksCache) refreshIfOld() {
	c.mu.Lock()
	old := c.now().Sub(c.fetchedAt) >= jwksRefreshAge
	c.mu.Unlock()
	if old {
		c.probe()
	}
}

// JWKSCheck is the readiness check of the JWKS the verifier fetches keys
// from; nil when it fetches none.
func (v *Verifier) JWKSCheck() HealthChecker {
	if v == nil || v.jwks == nil {
		return nil
	}
	return v.jwks.check
}
