package devoidc

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestPendingLoginsBounded: issue 21 point 5. Anonymous login attempts
// (authorize requests nobody finishes) are capped, the oldest dropped, and
// expire; a dropped or expired request cannot be logged in with any more,
// so it is gone from the library's storage, not just from our count.
func TestPendingLoginsBounded(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var p *Provider
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.Handler().ServeHTTP(w, r) }))
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL, ClientID: "wallet", ClientSecret: "secret", RedirectURL: srv.URL + "/auth/callback",
		PostLogoutURL: srv.URL + "/", MaxPending: 20, PendingTTL: time.Minute, Now: c.now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	begin := func() string {
		t.Helper()
		q := url.Values{"client_id": {"wallet"}, "redirect_uri": {srv.URL + "/auth/callback"}, "response_type": {"code"},
			"scope": {"openid"}, "state": {"s"}, "nonce": {"n"},
			"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}
		res, err := client.Get(srv.URL + Prefix + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc := res.Header.Get("Location")
		i := strings.Index(loc, "authRequestID=")
		if res.StatusCode != http.StatusFound || i < 0 {
			t.Fatalf("authorize = %d %q", res.StatusCode, loc)
		}
		return loc[i+len("authRequestID="):]
	}
	// login posts the form with a right password: 302 onwards while the
	// request is pending, 422 once it is gone.
	login := func(id string) int {
		t.Helper()
		res, err := client.PostForm(srv.URL+Prefix+"/login", url.Values{"id": {id}, "username": {"alice"}, "password": {"alice-devnet"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}

	first := begin()
	var last string
	for range 200 {
		last = begin()
		if n := p.Pending(); n > 20 {
			t.Fatalf("%d pending logins, cap 20", n)
		}
	}
	if got := login(first); got != http.StatusUnprocessableEntity {
		t.Errorf("the oldest request, dropped at the cap: login = %d, want 422", got)
	}
	if got := login(last); got != http.StatusFound {
		t.Errorf("the newest request: login = %d, want 302", got)
	}

	kept := begin()
	c.add(time.Minute + time.Second)
	if got := login(kept); got != http.StatusUnprocessableEntity {
		t.Errorf("an expired request: login = %d, want 422", got)
	}
	begin()
	if n := p.Pending(); n != 1 {
		t.Errorf("after expiry %d pending, want only the new one", n)
	}
}
