package handlers_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
	"github.com/ccwallet/ccwallet/web/devoidc"
)

// sessionClock is the sessions' clock, separate from the ledger's so
// timeouts can be tested without moving rounds.
type sessionClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *sessionClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *sessionClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// uiEnv is the whole app (JSON APIs and web wallet) on a test server, with
// the built-in development provider: logins go through the real OIDC flow.
type uiEnv struct {
	srv   *httptest.Server
	l     *ledger.Ledger
	w     *workflows.Set
	clock *sessionClock
}

func newUIEnv(t *testing.T, engine store.Dialect, jobs ...handlers.JobStatus) *uiEnv {
	t.Helper()
	return newUIEnvWith(t, engine, func(cfg *handlers.Config) {
		if jobs != nil {
			cfg.Jobs = func() []handlers.JobStatus { return jobs }
		}
	})
}

// newUIEnvWith is newUIEnv with the handlers' configuration set by set.
func newUIEnvWith(t *testing.T, engine store.Dialect, set func(*handlers.Config)) *uiEnv {
	t.Helper()
	return newUIEnvLog(t, engine, nil, set)
}

// newUIEnvLog is newUIEnvWith with the handlers' log going to log.
func newUIEnvLog(t *testing.T, engine store.Dialect, log *slog.Logger, set func(*handlers.Config)) *uiEnv {
	t.Helper()
	return newUIEnvOn(t, ledgertest.New(t, engine), log, set)
}

// newUIEnvOn is newUIEnvLog over an existing ledger.
func newUIEnvOn(t *testing.T, l *ledger.Ledger, log *slog.Logger, set func(*handlers.Config)) *uiEnv {
	t.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	base := srv.URL
	dev, err := devoidc.New(devoidc.Config{BaseURL: base, ClientID: "wallet", ClientSecret: "secret",
		RedirectURL: base + "/auth/callback", PostLogoutURL: base + "/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := &sessionClock{t: time.Now()}
	sessions, err := web.NewSessions(web.SessionConfig{Secret: web.DevSessionSecret, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	login, err := web.NewOIDCLogin(web.OIDCConfig{Issuer: dev.Issuer(), ClientID: "wallet", ClientSecret: "secret",
		RedirectURL: base + "/auth/callback", Secret: web.DevSessionSecret})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	ui := &handlers.UI{Sessions: sessions, Login: login, DevProvider: dev.Handler(), BaseURL: base,
		EventInterval: 50 * time.Millisecond, Shutdown: stop}
	cfg := handlers.Config{UI: ui, Workflows: workflows.New(l)}
	set(&cfg)
	h = handlers.New(l, cfg, log).Routes(web.NewHealthHandler(web.HealthConfig{Checks: map[string]web.HealthChecker{"database": l.Ping}}))
	return &uiEnv{srv: srv, l: l, w: cfg.Workflows, clock: clock}
}

// browser is a cookie-keeping client that does not follow redirects, so
// tests see each 303.
type browser struct {
	t   *testing.T
	env *uiEnv
	c   *http.Client
	// hdr is sent with every request (say X-Forwarded-For).
	hdr map[string]string
}

func (e *uiEnv) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, env: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type resp struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(method, path string, form url.Values, hdr map[string]string) resp {
	b.t.Helper()
	u := path
	if strings.HasPrefix(path, "/") {
		u = b.env.srv.URL + path
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range b.hdr {
		req.Header.Set(k, v)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, header: res.Header, body: string(data)}
}

func (b *browser) get(path string) resp { return b.do(http.MethodGet, path, nil, nil) }

func (b *browser) post(path string, form url.Values) resp {
	return b.do(http.MethodPost, path, form, nil)
}

// login runs the authorization code flow through the development
// provider's form and returns after the wallet's callback.
func (b *browser) login(user string) { b.t.Helper(); b.loginFrom(user, "/login") }

// loginFrom is login starting at start (say /login?next=...); it returns
// the wallet's final Location.
func (b *browser) loginFrom(user, start string) string {
	b.t.Helper()
	r := b.get(start)
	for i := 0; r.status == http.StatusFound || r.status == http.StatusSeeOther; i++ {
		loc := r.header.Get("Location")
		if strings.Contains(loc, "/dev-oidc/login?") {
			id := loc[strings.Index(loc, "authRequestID=")+len("authRequestID="):]
			r = b.post("/dev-oidc/login", url.Values{"id": {id}, "username": {user}, "password": {user + "-devnet"}})
			continue
		}
		if rel := strings.TrimPrefix(loc, b.env.srv.URL); !strings.HasPrefix(rel, "/dev-oidc") && !strings.HasPrefix(rel, "/auth/") {
			return loc // back in the wallet (or, for a bad next, elsewhere)
		}
		if i > 10 {
			b.t.Fatalf("login loop at %s", loc)
		}
		r = b.get(loc)
	}
	b.t.Fatalf("login of %s ended with %d: %s", user, r.status, r.body)
	return ""
}

var scriptRe = regexp.MustCompile(`<script[^>]*>[^<]*</script>`)

var csrfRe = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token in page: %.300s", page)
	}
	return m[1]
}

// onboarded logs user in and onboards it through the UI; it returns the
// CSRF token of the session.
func (b *browser) onboarded(user string) string {
	b.t.Helper()
	b.login(user)
	if r := b.get("/"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/onboard" {
		b.t.Fatalf("GET / before onboarding = %d %q, want 303 /onboard", r.status, r.header.Get("Location"))
	}
	page := b.get("/onboard")
	mustHave(b.t, page, http.StatusOK, `data-testid="onboard-submit"`)
	csrf := csrfOf(b.t, page.body)
	if r := b.post("/onboard", url.Values{"csrf_token": {csrf}}); r.status != http.StatusSeeOther {
		b.t.Fatalf("POST /onboard = %d: %s", r.status, r.body)
	}
	return csrf
}

func mustHave(t *testing.T, r resp, status int, needles ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body: %.500s", r.status, status, r.body)
	}
	for _, n := range needles {
		if !strings.Contains(r.body, n) {
			t.Errorf("body lacks %s; body: %.2000s", n, r.body)
		}
	}
}

func forEngine(t *testing.T, fn func(t *testing.T, e *uiEnv)) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) { fn(t, newUIEnv(t, engine)) })
	}
}

func TestUIOnboardTapHistory(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		b := e.browser(t)
		csrf := b.onboarded("alice")
		mustHave(t, b.get("/"), http.StatusOK, `data-testid="party-id" title="alice::`, `data-testid="balance-cc" title="0.0000000000 CC">0.00 CC<`,
			`data-testid="no-holdings"`, `data-testid="tap-form"`, `data-testid="utxo-health"`, `data-testid="round-number"`)

		// Without JavaScript: post, then 303 back home.
		r := b.post("/tap", url.Values{"csrf_token": {csrf}, "amount": {"100"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/?done=tapped" {
			t.Fatalf("POST /tap = %d %q", r.status, r.header.Get("Location"))
		}
		mustHave(t, b.get("/?done=tapped"), http.StatusOK, `data-testid="flash"><p>Coin from the faucet is in your wallet.</p>`)
		// At the initial price of 0.005 USD, 100 USD is 20000 CC.
		mustHave(t, b.get("/"), http.StatusOK, `data-testid="balance-cc" title="20000.0000000000 CC">20,000.00 CC<`,
			`data-testid="balance-usd" title="100.0000000000 USD">100.00 USD<`, `data-testid="holding-row"`, `data-testid="utxo-count">1<`)
		mustHave(t, b.get("/home/live"), http.StatusOK, `id="home-live"`)

		h := b.get("/history")
		mustHave(t, h, http.StatusOK, `data-testid="history-row" data-kind="balance_change" data-subtype="Tap"`, `title="20000.0000000000 CC">20,000.00 CC<`)
		if strings.Index(h.body, `data-subtype="Tap"`) > strings.Index(h.body, `data-subtype="Onboarded"`) {
			t.Error("history is not newest first")
		}
		mustHave(t, b.get("/history?kind=notification"), http.StatusOK, `data-subtype="Onboarded"`)
		if r := b.get("/history?kind=notification"); strings.Contains(r.body, `data-subtype="Tap"`) {
			t.Error("kind filter kept a Tap row")
		}
		mustHave(t, b.get("/history?kind=bogus"), http.StatusUnprocessableEntity, "Unknown kind &#34;bogus&#34;; choose one from the list.")

		csv := b.get("/history.csv?kind=balance_change")
		mustHave(t, csv, http.StatusOK, "id,time,round,kind,subtype,amount_cc", ",balance_change,Tap,20000.0000000000,")
		if ct := csv.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("csv content type %q", ct)
		}
		if strings.Contains(csv.body, "Onboarded") {
			t.Error("csv export ignores the filter")
		}
	})
}

func TestUITapErrors(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		b := e.browser(t)
		csrf := b.onboarded("bob")
		tests := []struct {
			name, amount string
			htmx         bool
			want         string
		}{
			{"not a number", "abc", false, "is not a number"},
			{"negative", "-5", true, "greater than 0"},
			{"empty", "", true, "Enter an amount"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				hdr := map[string]string{}
				if tc.htmx {
					hdr["HX-Request"] = "true"
				}
				r := b.do(http.MethodPost, "/tap", url.Values{"csrf_token": {csrf}, "amount": {tc.amount}}, hdr)
				mustHave(t, r, http.StatusUnprocessableEntity, `data-testid="tap-error"`, tc.want)
				if fragment := !strings.Contains(r.body, "<html"); fragment != tc.htmx {
					t.Errorf("fragment = %v for HX-Request %v", fragment, tc.htmx)
				}
			})
		}
		r := b.do(http.MethodPost, "/tap", url.Values{"csrf_token": {csrf}, "amount": {"1"}}, map[string]string{"HX-Request": "true"})
		mustHave(t, r, http.StatusOK, `data-testid="flash" hx-swap-oob="true"><p>Coin from the faucet is in your wallet.</p>`)
		if r.header.Get("HX-Trigger") != "wallet-changed" {
			t.Errorf("HX-Trigger = %q", r.header.Get("HX-Trigger"))
		}
	})
}

func TestUICSRF(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		b := e.browser(t)
		csrf := b.onboarded("alice")
		tests := []struct {
			name string
			form url.Values
			hdr  map[string]string
			want int
		}{
			{"no token", url.Values{"amount": {"1"}}, nil, http.StatusForbidden},
			{"wrong token", url.Values{"amount": {"1"}, "csrf_token": {"x" + csrf}}, nil, http.StatusForbidden},
			{"cross-site browser post with a valid token", url.Values{"amount": {"1"}, "csrf_token": {csrf}},
				map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
			{"foreign origin", url.Values{"amount": {"1"}, "csrf_token": {csrf}},
				map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
			{"htmx header token", url.Values{"amount": {"1"}}, map[string]string{"X-CSRF-Token": csrf}, http.StatusSeeOther},
			{"form token", url.Values{"amount": {"1"}, "csrf_token": {csrf}}, map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusSeeOther},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if r := b.do(http.MethodPost, "/tap", tc.form, tc.hdr); r.status != tc.want {
					t.Errorf("status = %d, want %d: %.300s", r.status, tc.want, r.body)
				}
			})
		}
		// Logout is a POST too: without the token it is refused.
		if r := b.post("/logout", url.Values{}); r.status != http.StatusForbidden {
			t.Errorf("logout without token = %d", r.status)
		}
		// No GET changes state: GET /tap and GET /logout are not routes.
		for _, p := range []string{"/tap", "/logout", "/onboard?x=1"} {
			if r := b.get(p); r.status == http.StatusSeeOther && p != "/onboard?x=1" {
				t.Errorf("GET %s = %d", p, r.status)
			}
		}
	})
}

func TestUISecurityHeadersAndCookie(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		b := e.browser(t)
		b.onboarded("alice")
		var session *http.Cookie
		u, _ := url.Parse(e.srv.URL)
		for _, c := range b.c.Jar.Cookies(u) {
			if c.Name == "ccwallet_session" {
				session = c
			}
		}
		if session == nil {
			t.Fatal("no session cookie")
		}
		// The jar drops attributes: read them from a fresh login's Set-Cookie.
		b2 := e.browser(t)
		r := b2.get("/login")
		if sc := r.header.Get("Set-Cookie"); !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Lax") {
			t.Errorf("login cookie %q lacks HttpOnly/SameSite=Lax", sc)
		}
		for _, p := range []string{"/", "/history", "/onboard", "/admin"} {
			r := b.get(p)
			csp := r.header.Get("Content-Security-Policy")
			for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("%s: CSP %q lacks %s", p, csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") {
				t.Errorf("%s: CSP allows inline", p)
			}
			if r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: no nosniff", p)
			}
			for _, tag := range scriptRe.FindAllString(r.body, -1) {
				if !strings.Contains(tag, " src=") || !strings.HasSuffix(tag, "></script>") {
					t.Errorf("%s: inline script %s", p, tag)
				}
			}
			for _, bad := range []string{" style=", " onclick=", " onload=", " onsubmit="} {
				if strings.Contains(r.body, bad) {
					t.Errorf("%s: inline %s", p, bad)
				}
			}
		}
		// Assets: content-hash URLs, cached for long.
		page := b.get("/").body
		m := regexp.MustCompile(`href="(/static/[0-9a-f]+/app\.css)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatal("no hashed stylesheet link")
		}
		css := b.get(m[1])
		if css.status != http.StatusOK || !strings.Contains(css.header.Get("Cache-Control"), "immutable") {
			t.Errorf("stylesheet: %d %q", css.status, css.header.Get("Cache-Control"))
		}
	})
}

func TestUISessionTimeouts(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		idle := e.browser(t)
		idle.onboarded("alice")
		e.clock.Advance(20 * time.Minute)
		mustHave(t, idle.get("/history"), http.StatusOK)
		e.clock.Advance(31 * time.Minute) // idle > 30 min since the last request
		if r := idle.get("/history"); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
			t.Errorf("idle session: GET /history = %d %q, want a redirect to /login", r.status, r.header.Get("Location"))
		}

		// An active session still ends 12 hours after login.
		active := e.browser(t)
		active.onboarded("bob")
		for range 35 { // 11 h 40 min, a request every 20 minutes
			e.clock.Advance(20 * time.Minute)
			mustHave(t, active.get("/history"), http.StatusOK)
		}
		e.clock.Advance(25 * time.Minute)
		if r := active.get("/history"); r.status != http.StatusSeeOther {
			t.Errorf("session older than 12h: GET /history = %d", r.status)
		}
	})
}

func TestUILogoutRevokes(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		b := e.browser(t)
		csrf := b.onboarded("alice")
		u, _ := url.Parse(e.srv.URL)
		old := b.c.Jar.Cookies(u)

		r := b.post("/logout", url.Values{"csrf_token": {csrf}})
		if r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), "/dev-oidc/end_session?") {
			t.Fatalf("logout = %d %q, want 303 to the provider's end_session", r.status, r.header.Get("Location"))
		}
		// The provider ends its side and sends the browser back home.
		end := b.get(r.header.Get("Location"))
		if loc := end.header.Get("Location"); end.status/100 != 3 || loc != e.srv.URL+"/" {
			t.Errorf("end_session = %d %q", end.status, loc)
		}
		if r := b.get("/history"); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
			t.Errorf("after logout GET /history = %d %q", r.status, r.header.Get("Location"))
		}
		// A copy of the old cookie is refused too.
		replay := e.browser(t)
		replay.c.Jar.SetCookies(u, old)
		if r := replay.get("/history"); r.status != http.StatusSeeOther {
			t.Errorf("old cookie after logout: GET /history = %d, want 303 to login", r.status)
		}
		if r := replay.post("/tap", url.Values{"csrf_token": {csrf}, "amount": {"1"}}); r.status != http.StatusUnauthorized {
			t.Errorf("old cookie after logout: POST /tap = %d, want 401", r.status)
		}
	})
}

func TestUIAdmin(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		admin := e.browser(t)
		admin.login("admin")
		page := admin.get("/admin")
		mustHave(t, page, http.StatusOK, `data-testid="users"`, `data-user="admin"`, `data-testid="onboard-user-form"`,
			`data-testid="automations"`, "No automations yet.")
		csrf := csrfOf(t, page.body)
		mustHave(t, admin.post("/admin/users", url.Values{"csrf_token": {csrf}, "name": {""}}), http.StatusUnprocessableEntity,
			`data-testid="onboard-user-error"`)
		if r := admin.post("/admin/users", url.Values{"csrf_token": {csrf}, "name": {"carol"}}); r.status != http.StatusSeeOther {
			t.Fatalf("onboard carol = %d: %.300s", r.status, r.body)
		}
		mustHave(t, admin.get("/admin"), http.StatusOK, `data-user="carol"`)

		alice := e.browser(t)
		alice.onboarded("alice")
		mustHave(t, alice.get("/admin"), http.StatusForbidden, `data-testid="error-message"`)
		if strings.Contains(alice.get("/").body, `data-testid="nav-admin"`) {
			t.Error("a normal user sees the admin link")
		}
		r := alice.get("/admin")
		if r2 := alice.post("/admin/users", url.Values{"csrf_token": {csrfOf(t, r.body)}, "name": {"mallory"}}); r2.status != http.StatusForbidden {
			t.Errorf("normal user onboarding = %d", r2.status)
		}
	})
}

func TestUIPublicAndProtected(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		b := e.browser(t)
		mustHave(t, b.get("/"), http.StatusOK, `data-testid="login-link"`)
		for _, p := range []string{"/history", "/admin", "/onboard", "/history.csv", "/events"} {
			if r := b.get(p); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login?next=") {
				t.Errorf("GET %s logged out = %d %q", p, r.status, r.header.Get("Location"))
			}
		}
		// A forged callback without the login cookie logs nobody in.
		mustHave(t, b.get("/auth/callback?code=x&state=y"), http.StatusUnauthorized, `data-testid="login-error"`)
		// With a pending login, a wrong state is refused before any code exchange.
		if r := b.get("/login"); r.status != http.StatusFound {
			t.Fatalf("GET /login = %d", r.status)
		}
		mustHave(t, b.get("/auth/callback?code=x&state=y"), http.StatusUnauthorized, "state mismatch")
		// A provider error is shown, not followed.
		b.get("/login")
		mustHave(t, b.get("/auth/callback?error=access_denied"), http.StatusUnauthorized, "access_denied")
		// Wrong password: the provider's form answers 422 and stays.
		b.get("/login")
		r := b.post("/dev-oidc/login", url.Values{"id": {"nope"}, "username": {"alice"}, "password": {"wrong"}})
		mustHave(t, r, http.StatusUnprocessableEntity, "development", `data-testid="login-error"`)
		// Post-login redirect only to local paths.
		b.login("alice")
	})
}

func TestUIEvents(t *testing.T) {
	e := newUIEnv(t, store.SQLite)
	b := e.browser(t)
	csrf := b.onboarded("alice")
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/events", nil)
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	if r := b.post("/tap", url.Values{"csrf_token": {csrf}, "amount": {"1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("tap = %d", r.status)
	}
	buf := make([]byte, 4096)
	got := ""
	for !strings.Contains(got, "event: changed") {
		n, err := res.Body.Read(buf)
		if err != nil {
			t.Fatalf("read events: %v (got %q)", err, got)
		}
		got += string(buf[:n])
	}
}

func TestUIUTXOHealth(t *testing.T) {
	forEngine(t, func(t *testing.T, e *uiEnv) {
		b := e.browser(t)
		csrf := b.onboarded("alice")
		// 0.0005 USD is 0.1 CC at 0.005 USD/CC: the holding fee (about
		// 0.0038 CC per round) eats it within a day of rounds.
		for i := 0; i < 11; i++ {
			amount := "10"
			if i == 0 {
				amount = "0.0005"
			}
			if r := b.post("/tap", url.Values{"csrf_token": {csrf}, "amount": {amount}}); r.status != http.StatusSeeOther {
				t.Fatalf("tap %d = %d", i, r.status)
			}
		}
		home := b.get("/")
		mustHave(t, home, http.StatusOK, `data-testid="utxo-count">11<`, `data-testid="fragmented"`, `data-testid="dust-risk"`)
		if n := strings.Count(home.body, `data-testid="dust-risk"`); n != 1 {
			t.Errorf("%d holdings marked at risk, want 1", n)
		}
		// 11 holdings at 0.00380518 CC per round, 144 rounds a day.
		if m := regexp.MustCompile(`Holding fee: <span class="amt" title="([0-9.]+) CC"`).FindStringSubmatch(home.body); m == nil || m[1] != "6.0274051200" {
			t.Errorf("fee per day: %v", m)
		}
	})
}

func TestUIEventsEndWithTheSession(t *testing.T) {
	e := newUIEnv(t, store.SQLite)
	b := e.browser(t)
	csrf := b.onboarded("alice")
	res, err := b.c.Get(e.srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if r := b.post("/logout", url.Values{"csrf_token": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("logout = %d", r.status)
	}
	// The stream ends by itself: reading it to the end returns.
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		t.Fatalf("read events: %v", err)
	}
}
