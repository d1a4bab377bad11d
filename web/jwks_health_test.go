package web

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestJWKSReadinessDegradedAndRecovers: with the JWKS down, tokens of the
// keys held keep working and /readyz answers 200 "degraded" naming the
// JWKS; when it is back, readiness recovers by itself (no token needed).
func TestJWKSReadinessDegradedAndRecovers(t *testing.T) {
	k := testKeys()
	srv := newJWKSServer(t, map[string]crypto.PublicKey{"k1": &k.rsa.PublicKey})
	v := newTestVerifier(t, srv.URL, nil)
	clock := &fakeClock{t: time.Now()}
	v.now = clock.Now
	v.jwks.sleep = func(_ context.Context, d time.Duration) bool { clock.Advance(d); return true }
	ok := func(context.Context) error { return nil }
	health := healthHandler(HealthConfig{Checks: map[string]HealthChecker{"database": ok, "jwks": v.JWKSCheck()}}, time.Second)
	ready := func() (int, readyAnswer) {
		rec := httptest.NewRecorder()
		health.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		var ans readyAnswer
		if err := json.Unmarshal(rec.Body.Bytes(), &ans); err != nil {
			t.Fatalf("/readyz: %v: %s", err, rec.Body)
		}
		return rec.Code, ans
	}
	verify := func(kidName string) error {
		_, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa, kid(kidName), claimsAt(clock.Now())))
		return err
	}
	if err := verify("k1"); err != nil {
		t.Fatal(err)
	}
	if code, ans := ready(); code != http.StatusOK || ans.Status != "ok" {
		t.Fatalf("/readyz with the JWKS up: %d %+v", code, ans)
	}

	srv.fail.Store(true)
	clock.Advance(jwksCooldown)
	if err := verify("k2"); err == nil {
		t.Fatal("a kid the JWKS never published was accepted")
	}
	if err := verify("k1"); err != nil {
		t.Fatalf("a key held, with the JWKS down: %v", err)
	}
	var deg *DegradedError
	if err := v.JWKSCheck()(context.Background()); !errors.As(err, &deg) {
		t.Fatalf("JWKS check with the JWKS down: %v, want degraded", err)
	}
	code, ans := ready()
	if code != http.StatusOK || ans.Status != "degraded" || ans.Checks["jwks"] != "degraded" ||
		len(ans.Degraded) != 1 || !strings.HasPrefix(ans.Degraded[0], "jwks: ") || !strings.Contains(ans.Degraded[0], "JWKS") {
		t.Fatalf("/readyz with the JWKS down: %d %+v, want 200 degraded naming the JWKS", code, ans)
	}
	if strings.Contains(ans.Degraded[0], "127.0.0.1") {
		t.Errorf("/readyz names the JWKS host to an unauthenticated probe: %s", ans.Degraded[0])
	}

	srv.fail.Store(false)
	clock.Advance(jwksCooldown)
	for i := 0; ; i++ {
		if code, ans = ready(); ans.Status == "ok" {
			break
		}
		if i == 500 {
			t.Fatalf("/readyz did not recover with the JWKS back: %d %+v", code, ans)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code != http.StatusOK || len(ans.Degraded) != 0 {
		t.Fatalf("/readyz recovered: %d %+v", code, ans)
	}
}

// TestHealthDegradedUnderUnavailable: a failing check makes /readyz 503
// even beside a degraded one, which is listed still.
func TestHealthDegradedUnderUnavailable(t *testing.T) {
	down := func(context.Context) error { return errors.New("connection refused") }
	deg := func(context.Context) error { return &DegradedError{Reason: "half there"} }
	h := healthHandler(HealthConfig{Checks: map[string]HealthChecker{"a": deg, "b": down}}, time.Second)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	want := `{"status":"unavailable","error":"b: failing","checks":{"a":"degraded","b":"failing"},"degraded":["a: half there"]}`
	if rec.Code != http.StatusServiceUnavailable || strings.TrimSpace(rec.Body.String()) != want {
		t.Fatalf("got %d %s, want 503 %s", rec.Code, rec.Body, want)
	}
}

// TestJWKSDroppedKeyGoesWithinMinutes: a key the provider stopped
// publishing is refused soon after the held keys are jwksRefreshAge old:
// the first token then is still verified with the held key (no wait, no
// failed request) and refreshes the keys in the background; the next one
// is refused. Before, a dropped key verified tokens for up to 24 h unless
// an unknown kid happened to cause a fetch.
func TestJWKSDroppedKeyGoesWithinMinutes(t *testing.T) {
	k := testKeys()
	srv := newJWKSServer(t, map[string]crypto.PublicKey{"k1": &k.rsa.PublicKey, "k2": &k.rsa2.PublicKey})
	v := newTestVerifier(t, srv.URL, nil)
	clock := &fakeClock{t: time.Now()}
	v.now = clock.Now
	verify := func() error {
		_, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa, kid("k1"), claimsAt(clock.Now())))
		return err
	}
	if err := verify(); err != nil {
		t.Fatal(err)
	}
	srv.set(t, map[string]crypto.PublicKey{"k2": &k.rsa2.PublicKey}) // k1's grace period ends
	clock.Advance(jwksRefreshAge)
	if err := verify(); err != nil {
		t.Fatalf("the held key's token as the refresh starts: %v", err)
	}
	for i := 0; v.jwks.probing.Load(); i++ { // the background refresh
		if i == 1000 {
			t.Fatal("the background refresh did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	clock.Advance(time.Second) // another token: the verified-token cache keeps the last till its exp
	if err := verify(); err == nil {
		t.Fatal("a key the provider dropped still verifies after the refresh")
	}
	if got := srv.fetches.Load(); got != 2 {
		t.Errorf("%d JWKS fetches, want 2", got)
	}
}
