package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestDiscoveryCallerGone: a browser that leaves while discovery is slow
// is not a provider outage; the next login must not be refused with the
// remembered failure (503 for discoveryRetry) when the provider answers.
func TestDiscoveryCallerGone(t *testing.T) {
	release := make(chan struct{})
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/auth",
			"token_endpoint": srv.URL + "/token", "jwks_uri": srv.URL + "/keys"})
	}))
	defer srv.Close()
	o, err := NewOIDCLogin(OIDCConfig{Issuer: srv.URL, ClientID: "wallet", RedirectURL: "http://w/cb", Secret: DevSessionSecret})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := o.discover(ctx); err == nil {
		t.Fatal("discovery with the caller gone succeeded")
	}
	close(release)
	if _, err := o.discover(context.Background()); err != nil {
		t.Fatalf("the provider answers, but discovery = %v (unreachable: %v)", err, errors.Is(err, ErrProviderUnreachable))
	}
}
