package handlers_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/ccwallet/ccwallet/store"
)

// TestUILoginNextStaysOnOrigin: issue 21's open redirects, through the
// whole development login and for a logged-in user's /login: the next
// parameter can only lead to a path on this origin.
func TestUILoginNextStaysOnOrigin(t *testing.T) {
	e := newUIEnv(t, store.SQLite)
	for next, want := range map[string]string{
		`/../\evil.example`: "/",
		"/\t/evil.example":  "/",
		"//evil.example":    "/",
		"/%5Cevil.example":  "/",
		"/history?page=2":   "/history?page=2",
	} {
		b := e.browser(t)
		start := "/login?next=" + url.QueryEscape(next)
		if got := b.loginFrom("alice", start); got != want {
			t.Errorf("login with next=%q lands on %q, want %q", next, got, want)
		}
		// Logged in already: /login redirects straight to next.
		r := b.get(start)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != want {
			t.Errorf("logged-in /login?next=%q = %d %q, want 303 %q", next, r.status, r.header.Get("Location"), want)
		}
	}
}
