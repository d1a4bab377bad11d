package ui_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/internal/testnet"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// TestUILoginNextStaysOnOrigin: issue 21's open redirects, through the
// whole development login and for a logged-in user's /login: the next
// parameter can only lead to a path on this origin.
func TestUILoginNextStaysOnOrigin(t *testing.T) {
	e := handlerstest.NewUIEnv(t, store.SQLite)
	for next, want := range map[string]string{
		`/../\evil.example`: "/",
		"/\t/evil.example":  "/",
		"//evil.example":    "/",
		"/%5Cevil.example":  "/",
		"/history?page=2":   "/history?page=2",
	} {
		b := e.Browser(t)
		start := "/login?next=" + url.QueryEscape(next)
		if got := b.LoginFrom("alice", start); got != want {
			t.Errorf("login with next=%q lands on %q, want %q", next, got, want)
		}
		// Logged in already: /login redirects straight to next.
		r := b.Get(start)
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != want {
			t.Errorf("logged-in /login?next=%q = %d %q, want 303 %q", next, r.Status, r.Header.Get("Location"), want)
		}
	}
}

// syncBuffer is a log destination the server's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestUILoginProviderUnreachable: issue 21 point 6. With the identity
// provider down (its issuer on a port that refuses) /login answers 503 with a
// page in the layout that says so, and the outage is logged once as a
// warning, not once per attempt.
func TestUILoginProviderUnreachable(t *testing.T) {
	closed := "http://" + testnet.RefusingAddr(t)
	var logs syncBuffer
	e := handlerstest.NewUIEnvWith(t, store.SQLite, func(cfg *handlers.Config) {
		login, err := web.NewOIDCLogin(web.OIDCConfig{Issuer: closed, ClientID: "wallet", ClientSecret: "secret",
			RedirectURL: cfg.UI.BaseURL + "/auth/callback", Secret: web.DevSessionSecret,
			Log: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		cfg.UI.Login = login
	})
	b := e.Browser(t)
	for range 3 {
		r := b.Get("/login?next=/history")
		handlerstest.MustHave(t, r, http.StatusServiceUnavailable, "login service is unreachable", `class="brand"`, "Login unavailable")
		if r.Header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("want one warning for the outage, got:\n%s", logs.String())
	}
}

// TestUILoginLongNext: the pending login travels in a cookie, which
// browsers cap at 4 KiB; an overlong next is dropped instead of failing
// the login with a 500.
func TestUILoginLongNext(t *testing.T) {
	e := handlerstest.NewUIEnv(t, store.SQLite)
	b := e.Browser(t)
	r := b.Get("/login?next=/" + strings.Repeat("a", 5000))
	if r.Status != http.StatusFound {
		t.Fatalf("GET /login with a 5000-byte next = %d: %.300s", r.Status, r.Body)
	}
	for _, c := range r.Header.Values("Set-Cookie") {
		if len(c) > 4000 {
			t.Errorf("login cookie of %d bytes", len(c))
		}
	}
}
