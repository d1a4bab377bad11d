package web

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// newCachingVerifier is a verifier with the Ed25519 test key "ed1" on a
// fake clock.
func newCachingVerifier(t *testing.T) (*Verifier, *fakeClock) {
	t.Helper()
	k := testKeys()
	v := newTestVerifier(t, "", func(c *AuthConfig) {
		c.StaticKeys = map[string]crypto.PublicKey{"ed1": k.ed.Public()}
	})
	clock := &fakeClock{t: time.Unix(1_900_000_000, 0)}
	v.now = clock.Now
	return v, clock
}

// TestTokenCacheExpiry: a token verified once is served from the cache
// (its key could be gone and it still passes), but once it expires it is
// refused with exactly the error a full verification gives.
func TestTokenCacheExpiry(t *testing.T) {
	ctx := context.Background()
	v, clock := newCachingVerifier(t)
	tok := sign(t, jwt.SigningMethodEdDSA, testKeys().ed, kid("ed1"), with(claimsAt(clock.Now()), "exp", clock.Now().Add(time.Minute).Unix()))
	want, err := v.Verify(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	// Without its key the token could only pass from the cache.
	keys := v.static
	v.static = nil
	if got, err := v.Verify(ctx, tok); err != nil || got.Subject != want.Subject {
		t.Fatalf("second use = %+v, %v; want served from the cache", got, err)
	}

	clock.Advance(time.Minute + v.leeway + time.Second) // well inside tokenCacheMaxAge
	_, cached := v.Verify(ctx, tok)
	v.static = keys
	fresh, _ := newCachingVerifier(t)
	fresh.now = clock.Now
	_, full := fresh.Verify(ctx, tok)
	if cached == nil || !errors.Is(cached, ErrInvalidToken) || !errors.Is(cached, jwt.ErrTokenExpired) || !errors.Is(cached, jwt.ErrTokenInvalidClaims) {
		t.Fatalf("expired cached token: %v; want an invalid token, expired", cached)
	}
	if full == nil || cached.Error() != full.Error() {
		t.Errorf("expired token: cached error %q, full verification %q; want the same", cached, full)
	}
	if _, err := v.Verify(ctx, tok); err == nil {
		t.Error("expired token accepted on a later use")
	}
}

// TestTokenCacheOneByteDiffers: a token one byte off a cached one is not
// served from the cache and is refused; failures are never cached.
func TestTokenCacheOneByteDiffers(t *testing.T) {
	ctx := context.Background()
	v, clock := newCachingVerifier(t)
	tok := sign(t, jwt.SigningMethodEdDSA, testKeys().ed, kid("ed1"), claimsAt(clock.Now()))
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatal(err)
	}
	flip := func(i int) string {
		b := []byte(tok)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	dot := len(tok) - 1
	for tok[dot] != '.' {
		dot--
	}
	for _, tt := range []struct {
		name string
		tok  string
	}{
		{"signature byte", flip(dot + 10)},
		{"payload byte", flip(dot - 10)},
		{"header byte", flip(5)},
		{"last byte", flip(len(tok) - 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 {
				if c, err := v.Verify(ctx, tt.tok); !errors.Is(err, ErrInvalidToken) {
					t.Fatalf("Verify = %+v, %v; want ErrInvalidToken", c, err)
				}
			}
		})
	}
	if n := v.tokens.len(); n != 1 {
		t.Errorf("%d tokens cached, want only the good one", n)
	}
}

// TestTokenCacheBound: many distinct valid tokens never grow the cache past
// its bound, and each still verifies; expired entries are evicted first.
func TestTokenCacheBound(t *testing.T) {
	ctx := context.Background()
	v, clock := newCachingVerifier(t)
	const bound = 50
	v.tokens = newTokenCache(bound)
	for i := range 4 * bound {
		tok := sign(t, jwt.SigningMethodEdDSA, testKeys().ed, kid("ed1"), with(claimsAt(clock.Now()), "sub", fmt.Sprint("user-", i)))
		if c, err := v.Verify(ctx, tok); err != nil || c.Subject != fmt.Sprint("user-", i) {
			t.Fatalf("token %d: %+v, %v", i, c, err)
		}
		if n := v.tokens.len(); n > bound {
			t.Fatalf("after %d tokens: %d cached, bound %d", i+1, n, bound)
		}
	}

	// The full-size cache, filled with tokens half of which have expired:
	// making room drops the expired ones and keeps every live one.
	now := clock.Now()
	c := newTokenCache(tokenCacheSize)
	entry := func(exp time.Time) verifiedToken {
		return verifiedToken{rc: &jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(exp)}, verified: now.Add(-time.Minute)}
	}
	for i := range tokenCacheSize {
		exp := now.Add(time.Hour)
		if i%2 == 0 {
			exp = now.Add(-time.Hour)
		}
		c.put(tokenKey{byte(i), byte(i >> 8), byte(i >> 16)}, entry(exp), now.Add(-time.Minute), 0)
	}
	c.put(tokenKey{0xff, 0xff, 0xff}, entry(now.Add(time.Hour)), now, 0)
	if n := c.len(); n != tokenCacheSize/2+1 {
		t.Errorf("%d entries after making room, want the %d live ones and the new one", n, tokenCacheSize/2)
	}
	for i := range 3 * tokenCacheSize {
		c.put(tokenKey{byte(i), byte(i >> 8), byte(i >> 16), 1}, entry(now.Add(time.Hour)), now, 0)
		if n := c.len(); n > tokenCacheSize {
			t.Fatalf("%d entries, bound %d", n, tokenCacheSize)
		}
	}
}

// TestTokenCacheConcurrent: concurrent verifications of a few tokens, some
// cached and some not, all agree (run with -race).
func TestTokenCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	v, clock := newCachingVerifier(t)
	v.tokens = newTokenCache(3)
	var toks []string
	for i := range 5 {
		toks = append(toks, sign(t, jwt.SigningMethodEdDSA, testKeys().ed, kid("ed1"), with(claimsAt(clock.Now()), "sub", fmt.Sprint("user-", i))))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				j := (g + i) % len(toks)
				if c, err := v.Verify(ctx, toks[j]); err != nil || c.Subject != fmt.Sprint("user-", j) {
					t.Errorf("token %d: %+v, %v", j, c, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// len is the number of remembered tokens.
func (c *tokenCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
