package devoidc

import (
	"encoding/json"
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

// devEnv is the provider on a test server with a test clock.
type devEnv struct {
	t      *testing.T
	p      *Provider
	srv    *httptest.Server
	c      *clock
	client *http.Client
}

func newDevEnv(t *testing.T) *devEnv {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var p *Provider
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.Handler().ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	p, err := New(Config{BaseURL: srv.URL, ClientID: "wallet", ClientSecret: "secret", RedirectURL: srv.URL + "/auth/callback",
		PostLogoutURL: srv.URL + "/", MaxPending: 20, PendingTTL: time.Minute, Now: c.now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &devEnv{t: t, p: p, srv: srv, c: c, client: client}
}

// begin starts a login at the authorize endpoint and returns its ID.
func (e *devEnv) begin() string {
	e.t.Helper()
	q := url.Values{"client_id": {"wallet"}, "redirect_uri": {e.srv.URL + "/auth/callback"}, "response_type": {"code"},
		"scope": {"openid"}, "state": {"s"}, "nonce": {"n"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}
	res, err := e.client.Get(e.srv.URL + Prefix + "/authorize?" + q.Encode())
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	loc := res.Header.Get("Location")
	i := strings.Index(loc, "authRequestID=")
	if res.StatusCode != http.StatusFound || i < 0 {
		e.t.Fatalf("authorize = %d %q", res.StatusCode, loc)
	}
	return loc[i+len("authRequestID="):]
}

// login posts the form with a right password: 302 onwards while the
// request is pending, 422 once it is gone.
func (e *devEnv) login(id string) *http.Response {
	e.t.Helper()
	res, err := e.client.PostForm(e.srv.URL+Prefix+"/login", url.Values{"id": {id}, "username": {"alice"}, "password": {"alice-devnet"}})
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// TestPendingLoginsBounded: issue 21 point 5. Anonymous login attempts
// (authorize requests nobody finishes) are capped, the oldest dropped, and
// expire; a dropped or expired request cannot be logged in with any more,
// so it is gone from the library's storage, not just from our count.
func TestPendingLoginsBounded(t *testing.T) {
	e := newDevEnv(t)
	p, c, begin := e.p, e.c, e.begin
	login := func(id string) int { return e.login(id).StatusCode }

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

// token runs a whole code flow for alice and returns the access token.
func (e *devEnv) token() string {
	e.t.Helper()
	res := e.login(e.begin())
	for i := 0; res.StatusCode == http.StatusFound && !strings.Contains(res.Header.Get("Location"), "/auth/callback"); i++ {
		loc, err := res.Request.URL.Parse(res.Header.Get("Location"))
		if err != nil || i > 5 {
			e.t.Fatalf("code flow stuck at %q: %v", res.Header.Get("Location"), err)
		}
		if res, err = e.client.Get(loc.String()); err != nil {
			e.t.Fatal(err)
		}
		res.Body.Close()
	}
	cb, err := url.Parse(res.Header.Get("Location"))
	if err != nil || cb.Query().Get("code") == "" {
		e.t.Fatalf("no code in %q", res.Header.Get("Location"))
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {cb.Query().Get("code")},
		"redirect_uri": {e.srv.URL + "/auth/callback"}, "code_verifier": {"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"}}
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+Prefix+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("wallet", "secret")
	tres, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer tres.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(tres.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		e.t.Fatalf("token endpoint = %d, %v", tres.StatusCode, err)
	}
	return tok.AccessToken
}

// userinfo is the userinfo endpoint's status for an access token.
func (e *devEnv) userinfo(access string) int {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+Prefix+"/userinfo", nil)
	req.Header.Set("Authorization", "Bearer "+access)
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestAccessTokensSwept: the library keeps every access token it issued
// until revoked; the provider revokes them once past their lifetime, so
// logins do not grow its memory either.
func TestAccessTokensSwept(t *testing.T) {
	e := newDevEnv(t)
	old := e.token()
	if got := e.userinfo(old); got != http.StatusOK {
		t.Fatalf("userinfo with a fresh token = %d", got)
	}
	e.c.add(accessTokenTTL + time.Second)
	fresh := e.token() // issuing a token sweeps the expired ones
	if got := e.userinfo(old); got == http.StatusOK {
		t.Error("an access token past its lifetime is still stored")
	}
	if got := e.userinfo(fresh); got != http.StatusOK {
		t.Errorf("userinfo with the new token = %d", got)
	}
	if n := e.p.storage.access.len(); n != 1 {
		t.Errorf("%d access tokens tracked, want 1", n)
	}
}

// Pending is the number of logins started and not yet finished, expired
// or dropped.
func (p *Provider) Pending() int { return p.storage.pending.len() }

func (p *pending) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.order.Len()
}

// TestOnlyTheCodeFlow: the provider grants tokens only through the
// wallet's login (the authorization code flow). The library's example
// storage it once used also had a built-in service user (sid1 /
// verysecret) that got an access token by client credentials alone.
func TestOnlyTheCodeFlow(t *testing.T) {
	e := newDevEnv(t)
	post := func(user, secret string, form url.Values) int {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+Prefix+"/oauth/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(user, secret)
		res, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for name, c := range map[string]struct {
		user, secret string
		form         url.Values
	}{
		"demo service user":    {"sid1", "verysecret", url.Values{"grant_type": {"client_credentials"}, "scope": {"openid"}}},
		"wallet, client creds": {"wallet", "secret", url.Values{"grant_type": {"client_credentials"}, "scope": {"openid"}}},
		"wallet, refresh":      {"wallet", "secret", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}}},
	} {
		if got := post(c.user, c.secret, c.form); got == http.StatusOK {
			t.Errorf("%s: token endpoint = 200, want a refusal", name)
		}
	}
	if e.token() == "" { // the code flow still works
		t.Error("no access token from the code flow")
	}
}
