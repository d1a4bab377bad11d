package ui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// newLimitedUIEnv is the UI with limits set by lim, behind a trusted proxy
// (the test client's 127.0.0.1): each browser names its address in
// X-Forwarded-For.
func newLimitedUIEnv(t *testing.T, lim handlers.UILimits) *handlerstest.UIEnv {
	t.Helper()
	addr, err := web.NewClientAddr([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	lim.ClientAddr = addr
	return handlerstest.NewUIEnvWith(t, store.SQLite, func(cfg *handlers.Config) { cfg.UI.Limits = lim })
}

func mustBeLimited(t *testing.T, r handlerstest.Resp, needles ...string) {
	t.Helper()
	handlerstest.MustHave(t, r, http.StatusTooManyRequests, needles...)
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}

// TestUILoginRateLimit: issue 21 point 7. Past its budget a client
// address's login attempts (/login, the callback, the development
// provider's authorize and password form) get 429 with a page in the
// layout; other addresses, and the provider's endpoints the wallet itself
// calls, are unaffected.
func TestUILoginRateLimit(t *testing.T) {
	e := newLimitedUIEnv(t, handlers.UILimits{Login: web.NewLimiter(web.RateLimit{Burst: 3, Per: time.Hour})})
	a := e.BrowserAt(t, "203.0.113.1")
	for i := range 3 {
		if r := a.Get("/login"); r.Status != http.StatusFound {
			t.Fatalf("login attempt %d = %d", i+1, r.Status)
		}
	}
	mustBeLimited(t, a.Get("/login"), "too many login attempts", `class="brand"`, "Please wait")
	mustBeLimited(t, a.Get("/auth/callback?code=x&state=y"), "too many login attempts")
	// Password guesses at the development provider have a budget of their own.
	guess := url.Values{"id": {"x"}, "username": {"alice"}, "password": {"guess"}}
	for range 3 {
		handlerstest.MustHave(t, a.Post("/dev-oidc/login", guess), http.StatusUnprocessableEntity)
	}
	mustBeLimited(t, a.Post("/dev-oidc/login", guess), "too many login attempts")
	r := a.Do(http.MethodGet, "/login", nil, map[string]string{"HX-Request": "true"})
	mustBeLimited(t, r, `data-testid="rate-limited"`)
	if strings.Contains(r.Body, "<html") || r.Header.Get("HX-Retarget") == "" {
		t.Errorf("htmx got a page, not a retargeted fragment: %q %.200s", r.Header.Get("HX-Retarget"), r.Body)
	}
	if r := a.Get("/dev-oidc/.well-known/openid-configuration"); r.Status != http.StatusOK {
		t.Errorf("provider discovery was limited too: %d", r.Status)
	}
	// Another address logs in all the way.
	e.BrowserAt(t, "203.0.113.2").Login("alice")
}

// TestUIFormRateLimit: form posts are limited per session and per client
// address; other sessions and addresses go on.
func TestUIFormRateLimit(t *testing.T) {
	e := newLimitedUIEnv(t, handlers.UILimits{
		FormPerSession: web.NewLimiter(web.RateLimit{Burst: 2, Per: time.Hour}),
		FormPerClient:  web.NewLimiter(web.RateLimit{Burst: 6, Per: time.Hour}),
	})
	tap := func(b *handlerstest.Browser, csrf string, hdr map[string]string) handlerstest.Resp {
		return b.Do(http.MethodPost, "/tap", url.Values{"csrf_token": {csrf}, "amount": {"not a number"}}, hdr)
	}
	alice := e.BrowserAt(t, "203.0.113.1")
	csrf := alice.Onboarded("alice") // form post 1 of the session, 1 of the address
	handlerstest.MustHave(t, tap(alice, csrf, nil), http.StatusUnprocessableEntity)
	mustBeLimited(t, tap(alice, csrf, nil), "sending forms faster", `data-testid="current-user"`)
	r := tap(alice, csrf, map[string]string{"HX-Request": "true"})
	mustBeLimited(t, r, `data-testid="rate-limited"`)
	if strings.Contains(r.Body, "<html") {
		t.Errorf("htmx got a page: %.200s", r.Body)
	}

	// Bob's session on the same address has its own budget (address: 5, 6).
	bob := e.BrowserAt(t, "203.0.113.1")
	handlerstest.MustHave(t, tap(bob, bob.Onboarded("bob"), nil), http.StatusUnprocessableEntity)
	// The admin's fresh session is refused: the address's budget is spent.
	admin := e.BrowserAt(t, "203.0.113.1")
	admin.Login("admin")
	mustBeLimited(t, admin.Post("/onboard", url.Values{"csrf_token": {"any"}}), "sending forms faster")
	// Another address is not: bob again, from elsewhere.
	away := e.BrowserAt(t, "203.0.113.2")
	away.Login("bob")
	handlerstest.MustHave(t, tap(away, handlerstest.CSRFOf(t, away.Get("/").Body), nil), http.StatusUnprocessableEntity)
}
