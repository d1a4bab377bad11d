// Package handlerstest is the shared harness of the handlers' tests: the
// whole app port (JSON APIs and web wallet) on a test server over a real
// ledger, with the built-in development OpenID Provider, so logins go
// through the real flow; a cookie-keeping browser that sees each
// redirect; onboarded wallets and the helpers that read their pages; the
// JSON APIs' client (api.go) and the checks of its exchanges against the
// public specs (spec.go). The web wallet's tests (handlers/ui), the JSON
// APIs' (handlers/api) and the port's (handlers) share it.
package handlerstest

import (
	"bufio"
	"context"
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

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/web"
	"github.com/ccwallet/ccwallet/web/devoidc"
)

var cidRe = regexp.MustCompile(`data-testid="([a-z-]+)-row" data-cid="([^"]+)"`)

func MustSend(t *testing.T, w *Wallet, to coin.PartyID, amount, method string) {
	t.Helper()
	r := w.Send(url.Values{"receiver": {string(to)}, "amount": {amount}, "method": {method}, "expires": {"1d"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("send %s %s = %d: %.500s", method, amount, r.Status, r.Body)
	}
}

// GroupIDs groups the second submatches of re in body by the first.
func GroupIDs(re *regexp.Regexp, body string) map[string][]string {
	out := map[string][]string{}
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out[m[1]] = append(out[m[1]], m[2])
	}
	return out
}

// Pending is the contract ids on the offers page by list.
func (w *Wallet) Pending() map[string][]string {
	w.T.Helper()
	r := w.Get("/offers")
	MustHave(w.T, r, http.StatusOK, `data-testid="transfers-list"`)
	return GroupIDs(cidRe, r.Body)
}

// Send posts the send form as a fresh render of it would.
func (w *Wallet) Send(form url.Values) Resp {
	w.T.Helper()
	page := w.Get("/send")
	MustHave(w.T, page, http.StatusOK, `data-testid="send-form"`)
	form.Set("csrf_token", w.Csrf)
	form.Set("dedup_id", DedupOf(w.T, page.Body))
	return w.Post("/send", form)
}

func (w *Wallet) Balance() string {
	w.T.Helper()
	b, err := w.Env.L.Balance(context.Background(), w.Party)
	if err != nil {
		w.T.Fatal(err)
	}
	return b.EffectiveUnlocked.String()
}

func (e *UIEnv) Wallet(t *testing.T, user, usd string) *Wallet {
	t.Helper()
	b := e.Browser(t)
	csrf := b.Onboarded(user)
	p, err := users.Of(e.L).PartyOf(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	if usd != "" {
		if r := b.Post("/tap", url.Values{"csrf_token": {csrf}, "amount": {usd}}); r.Status != http.StatusSeeOther {
			t.Fatalf("tap = %d", r.Status)
		}
	}
	return &Wallet{Browser: b, Csrf: csrf, Party: p}
}

// Wallet is an onboarded user of the UI tests.
type Wallet struct {
	*Browser
	Csrf  string
	Party coin.PartyID
}

// DedupOf is the send form's dedup id.
func DedupOf(t *testing.T, page string) string {
	t.Helper()
	m := dedupRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no dedup id in page: %.300s", page)
	}
	return m[1]
}

var dedupRe = regexp.MustCompile(`name="dedup_id" value="([^"]+)"`)

func (e *UIEnv) BrowserAt(t *testing.T, addr string) *Browser {
	b := e.Browser(t)
	b.Hdr = map[string]string{"X-Forwarded-For": addr}
	return b
}

// OpenStream opens /events with b's session; it returns the status and,
// for a 200, the open response (closed at the end of the test).
func (b *Browser) OpenStream(ctx context.Context) (int, *http.Response) {
	b.T.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.Env.Srv.URL+"/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	res, err := b.C.Do(req)
	if err != nil {
		b.T.Errorf("GET /events: %v", err)
		return 0, nil
	}
	if res.StatusCode != http.StatusOK {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, nil
	}
	// Read the first lines, so the stream is known to be open.
	if line, err := bufio.NewReader(res.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry:") {
		b.T.Errorf("first line of /events %q, %v", line, err)
	}
	b.T.Cleanup(func() { res.Body.Close() })
	return res.StatusCode, res
}

func ForEngine(t *testing.T, fn func(t *testing.T, e *UIEnv)) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) { fn(t, NewUIEnv(t, engine)) })
	}
}

func MustHave(t *testing.T, r Resp, status int, needles ...string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body: %.500s", r.Status, status, r.Body)
	}
	for _, n := range needles {
		if !strings.Contains(r.Body, n) {
			t.Errorf("body lacks %s; body: %.2000s", n, r.Body)
		}
	}
}

// Onboarded logs user in and onboards it through the UI; it returns the
// CSRF token of the session.
func (b *Browser) Onboarded(user string) string {
	b.T.Helper()
	b.Login(user)
	if r := b.Get("/"); r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/onboard" {
		b.T.Fatalf("GET / before onboarding = %d %q, want 303 /onboard", r.Status, r.Header.Get("Location"))
	}
	page := b.Get("/onboard")
	MustHave(b.T, page, http.StatusOK, `data-testid="onboard-submit"`)
	csrf := CSRFOf(b.T, page.Body)
	if r := b.Post("/onboard", url.Values{"csrf_token": {csrf}}); r.Status != http.StatusSeeOther {
		b.T.Fatalf("POST /onboard = %d: %s", r.Status, r.Body)
	}
	return csrf
}

func CSRFOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token in page: %.300s", page)
	}
	return m[1]
}

var csrfRe = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// LoginFrom is login starting at start (say /login?next=...); it returns
// the wallet's final Location.
func (b *Browser) LoginFrom(user, start string) string {
	b.T.Helper()
	r := b.Get(start)
	for i := 0; r.Status == http.StatusFound || r.Status == http.StatusSeeOther; i++ {
		loc := r.Header.Get("Location")
		if strings.Contains(loc, "/dev-oidc/login?") {
			id := loc[strings.Index(loc, "authRequestID=")+len("authRequestID="):]
			r = b.Post("/dev-oidc/login", url.Values{"id": {id}, "username": {user}, "password": {user + "-devnet"}})
			continue
		}
		if rel := strings.TrimPrefix(loc, b.Env.Srv.URL); !strings.HasPrefix(rel, "/dev-oidc") && !strings.HasPrefix(rel, "/auth/") {
			return loc // back in the wallet (or, for a bad next, elsewhere)
		}
		if i > 10 {
			b.T.Fatalf("login loop at %s", loc)
		}
		r = b.Get(loc)
	}
	b.T.Fatalf("login of %s ended with %d: %s", user, r.Status, r.Body)
	return ""
}

// Login runs the authorization code flow through the development
// provider's form and returns after the wallet's callback.
func (b *Browser) Login(user string) { b.T.Helper(); b.LoginFrom(user, "/login") }

func (b *Browser) Post(path string, form url.Values) Resp {
	return b.Do(http.MethodPost, path, form, nil)
}

func (b *Browser) Get(path string) Resp { return b.Do(http.MethodGet, path, nil, nil) }

func (b *Browser) Do(method, path string, form url.Values, hdr map[string]string) Resp {
	b.T.Helper()
	u := path
	if strings.HasPrefix(path, "/") {
		u = b.Env.Srv.URL + path
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		b.T.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range b.Hdr {
		req.Header.Set(k, v)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := b.C.Do(req)
	if err != nil {
		b.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return Resp{Status: res.StatusCode, Header: res.Header, Body: string(data)}
}

type Resp struct {
	Status int
	Header http.Header
	Body   string
}

func (e *UIEnv) Browser(t *testing.T) *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{T: t, Env: e, C: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// Browser is a cookie-keeping client that does not follow redirects, so
// tests see each 303.
type Browser struct {
	T   *testing.T
	Env *UIEnv
	C   *http.Client
	// hdr is sent with every request (say X-Forwarded-For).
	Hdr map[string]string
}

// NewUIEnvOn is newUIEnvLog over an existing ledger.
func NewUIEnvOn(t *testing.T, l *ledger.Ledger, log *slog.Logger, set func(*handlers.Config)) *UIEnv {
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
	clock := &SessionClock{T: time.Now()}
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
	return &UIEnv{Srv: srv, L: l, W: cfg.Workflows, Clock: clock}
}

// NewUIEnvLog is newUIEnvWith with the handlers' log going to log.
func NewUIEnvLog(t *testing.T, engine ledgertest.Engine, log *slog.Logger, set func(*handlers.Config)) *UIEnv {
	t.Helper()
	return NewUIEnvOn(t, ledgertest.New(t, engine), log, set)
}

// NewUIEnvWith is newUIEnv with the handlers' configuration set by set.
func NewUIEnvWith(t *testing.T, engine ledgertest.Engine, set func(*handlers.Config)) *UIEnv {
	t.Helper()
	return NewUIEnvLog(t, engine, nil, set)
}

func NewUIEnv(t *testing.T, engine ledgertest.Engine, jobs ...handlers.JobStatus) *UIEnv {
	t.Helper()
	return NewUIEnvWith(t, engine, func(cfg *handlers.Config) {
		if jobs != nil {
			cfg.Jobs = func() []handlers.JobStatus { return jobs }
		}
	})
}

// UIEnv is the whole app (JSON APIs and web wallet) on a test server, with
// the built-in development provider: logins go through the real OIDC flow.
type UIEnv struct {
	Srv   *httptest.Server
	L     *ledger.Ledger
	W     *workflows.Set
	Clock *SessionClock
}

func (c *SessionClock) Advance(d time.Duration) {
	c.Mu.Lock()
	c.T = c.T.Add(d)
	c.Mu.Unlock()
}

func (c *SessionClock) Now() time.Time {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	return c.T
}

// SessionClock is the sessions' clock, separate from the ledger's so
// timeouts can be tested without moving rounds.
type SessionClock struct {
	Mu sync.Mutex
	T  time.Time
}

func (w *Wallet) Locked() string {
	w.T.Helper()
	b, err := w.Env.L.Balance(context.Background(), w.Party)
	if err != nil {
		w.T.Fatal(err)
	}
	return b.EffectiveLocked.String()
}

// ActHX is act with htmx.
func (w *Wallet) ActHX(cid coin.ContractID, action, leg string) Resp {
	w.T.Helper()
	return w.Do(http.MethodPost, "/allocations/"+string(cid)+"/"+action, url.Values{"csrf_token": {w.Csrf}, "leg": {leg}},
		map[string]string{"HX-Request": "true"})
}

// Act posts an Allocations page button without JavaScript.
func (w *Wallet) Act(cid coin.ContractID, action, leg string) Resp {
	w.T.Helper()
	return w.Post("/allocations/"+string(cid)+"/"+action, url.Values{"csrf_token": {w.Csrf}, "leg": {leg}})
}
