package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// jwksProxy serves Hydra's JWKS to the wallet until switched off, then
// answers 503 as a provider in an outage does.
func jwksProxy(t *testing.T, h *hydra) (*httptest.Server, *atomic.Bool) {
	t.Helper()
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "identity provider down", http.StatusServiceUnavailable)
			return
		}
		res, err := http.Get(h.public + "/.well-known/jwks.json")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
		w.WriteHeader(res.StatusCode)
		_, _ = io.Copy(w, res.Body)
	}))
	t.Cleanup(srv.Close)
	return srv, &down
}

// readyz is the wallet's /readyz answer.
type readyz struct {
	Status   string            `json:"status"`
	Checks   map[string]string `json:"checks"`
	Degraded []string          `json:"degraded"`
}

func getReadyz(t *testing.T, w hydraWallet) (int, readyz, string) {
	t.Helper()
	code, body := apiGet(t, w.health+"/readyz", "")
	var r readyz
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("/readyz: %v: %s", err, body)
	}
	return code, r, body
}

// TestHydraJWKSDown: with Hydra's JWKS endpoint down, the wallet keeps the
// keys it holds (a fresh token of Hydra's key works on the JSON API and the
// Ledger API), /readyz stays 200 and says "degraded", naming the JWKS;
// when the JWKS is back, /readyz recovers by itself.
func TestHydraJWKSDown(t *testing.T) {
	t.Parallel()
	h := startHydra(t)
	proxy, down := jwksProxy(t, h)
	w := startHydraWallet(t, h, filepath.Join(t.TempDir(), "wallet.db"), t.TempDir(), proxy.URL, "")
	if w.health == "" {
		t.Fatal("the wallet's log names no health address")
	}
	h.machineClient(t, "outage-bot", "outage-bot-secret", walletAudience)
	tok := h.clientToken(t, "outage-bot", "outage-bot-secret", walletAudience)
	if code, body, err := postJSON(http.DefaultClient, w.url+"/v0/register", tok, ""); err != nil || code != http.StatusOK {
		t.Fatalf("register: %d %s %v", code, body, err)
	}
	if code, r, body := getReadyz(t, w); code != http.StatusOK || r.Status != "ok" || r.Checks["jwks"] != "ok" {
		t.Fatalf("/readyz with the JWKS up: %d %s", code, body)
	}

	down.Store(true)
	// A token of a key the wallet does not hold makes it fetch the JWKS,
	// which fails: refused, and the outage is known.
	stranger := newOwnKey(t, "e2e-outage-unknown")
	code, body := apiGet(t, w.url+"/v0/wallet/balance", stranger.token(t, h.issuer, "outage-bot", walletAudience, time.Now().Add(time.Hour)))
	if code != http.StatusUnauthorized || !strings.Contains(body, "signing key") {
		t.Fatalf("unknown kid with the JWKS down: %d %s, want 401", code, body)
	}
	fresh := h.clientToken(t, "outage-bot", "outage-bot-secret", walletAudience)
	for _, u := range []string{w.url + "/v0/wallet/balance", w.ledgerAPI + "/v2/users/outage-bot"} {
		if code, body := apiGet(t, u, fresh); code != http.StatusOK {
			t.Errorf("GET %s with a held key's token, JWKS down: %d %s", u, code, body)
		}
	}
	code, r, body := getReadyz(t, w)
	if code != http.StatusOK || r.Status != "degraded" || r.Checks["jwks"] != "degraded" ||
		len(r.Degraded) != 1 || !strings.Contains(r.Degraded[0], "JWKS") {
		t.Fatalf("/readyz with the JWKS down: %d %s, want 200 degraded naming the JWKS", code, body)
	}

	down.Store(false)
	for deadline := time.Now().Add(2 * time.Minute); ; {
		code, r, body = getReadyz(t, w)
		if code == http.StatusOK && r.Status == "ok" && r.Checks["jwks"] == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz did not recover with the JWKS back: %d %s", code, body)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
