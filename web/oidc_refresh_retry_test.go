package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// tokenEndpoint is a provider whose token endpoint answers the statuses
// in turn (200 with a new refresh token once they run out), counting the
// requests.
func tokenEndpoint(t *testing.T, statuses ...int) (*OIDCLogin, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/token" {
			_ = json.NewEncoder(w).Encode(map[string]string{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/auth",
				"token_endpoint": srv.URL + "/token", "jwks_uri": srv.URL + "/keys"})
			return
		}
		n := int(calls.Add(1))
		if n <= len(statuses) && statuses[n-1] != http.StatusOK {
			w.WriteHeader(statuses[n-1])
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "server_error",
				"error_description": "Unable to serialize access due to a concurrent update"})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "at", "token_type": "bearer", "refresh_token": "rt-new", "expires_in": 3600})
	}))
	t.Cleanup(srv.Close)
	o, err := NewOIDCLogin(OIDCConfig{Issuer: srv.URL, ClientID: "wallet", RedirectURL: "http://w/cb", Secret: DevSessionSecret})
	if err != nil {
		t.Fatal(err)
	}
	return o, &calls
}

// TestRefreshRetriesServerErrorOnce: a provider that answers a renewal
// 500 once (Hydra's "Unable to serialize access due to a concurrent
// update" in CI) is asked once more and the session is renewed, not
// paused for refreshPause as if the provider were down; one that answers
// 500 twice is treated as down (the session serves on, and renewals
// pause). Before, the first 500 paused every renewal for 30 s.
func TestRefreshRetriesServerErrorOnce(t *testing.T) {
	renew := func(t *testing.T, o *OIDCLogin) (*Sessions, *Session) {
		t.Helper()
		s, err := NewSessions(SessionConfig{Secret: DevSessionSecret, Refresher: o})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		if _, err := s.Start(rec, httptest.NewRequest(http.MethodGet, "/", nil), "alice",
			Tokens{RefreshToken: "rt", Expiry: time.Now().Add(10 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		for _, c := range rec.Result().Cookies() {
			r.AddCookie(c)
		}
		sess, err := s.Load(r)
		if err != nil {
			t.Fatalf("load = %v, want the session serving", err)
		}
		return s, sess
	}
	t.Run("500 then 200", func(t *testing.T) {
		o, calls := tokenEndpoint(t, http.StatusInternalServerError)
		s, sess := renew(t, o)
		if calls.Load() != 2 || time.Until(sess.TokenExpiry) < 50*time.Minute || s.unreachable.Load() != 0 {
			t.Errorf("%d token requests, expiry in %s, paused %v; want the retry to renew the session",
				calls.Load(), time.Until(sess.TokenExpiry).Round(time.Second), s.unreachable.Load() != 0)
		}
	})
	t.Run("500 twice", func(t *testing.T) {
		o, calls := tokenEndpoint(t, http.StatusInternalServerError, http.StatusServiceUnavailable)
		s, sess := renew(t, o)
		if calls.Load() != 2 || time.Until(sess.TokenExpiry) > time.Minute || s.unreachable.Load() == 0 {
			t.Errorf("%d token requests, expiry in %s, paused %v; want two tries, then the pause",
				calls.Load(), time.Until(sess.TokenExpiry).Round(time.Second), s.unreachable.Load() != 0)
		}
	})
	t.Run("400 is not retried", func(t *testing.T) {
		o, calls := tokenEndpoint(t, http.StatusBadRequest)
		if _, err := o.Refresh(t.Context(), "rt", "alice"); err != ErrLoginEnded || calls.Load() != 1 {
			t.Errorf("refresh = %v after %d token requests, want ErrLoginEnded after one", err, calls.Load())
		}
	})
}
