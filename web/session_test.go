package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestSessionCookieFlags(t *testing.T) {
	tests := []struct {
		name   string
		secure bool
		cookie string
		want   []string
	}{
		{"plain http", false, "ccwallet_session=", []string{"HttpOnly", "SameSite=Lax", "Path=/"}},
		{"tls", true, "__Host-ccwallet_session=", []string{"HttpOnly", "SameSite=Lax", "Path=/", "Secure"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSessions(SessionConfig{Secret: DevSessionSecret, Secure: tc.secure})
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			sess, err := s.Start(rec, httptest.NewRequest(http.MethodGet, "/", nil), "alice", Tokens{})
			if err != nil {
				t.Fatal(err)
			}
			sc := rec.Header().Get("Set-Cookie")
			if !strings.HasPrefix(sc, tc.cookie) {
				t.Errorf("cookie %q, want prefix %q", sc, tc.cookie)
			}
			for _, w := range tc.want {
				if !strings.Contains(sc, w) {
					t.Errorf("cookie %q lacks %s", sc, w)
				}
			}
			if strings.Contains(sc, "Domain=") {
				t.Errorf("cookie %q has a Domain", sc)
			}
			if !tc.secure && strings.Contains(sc, "Secure") {
				t.Errorf("cookie %q is Secure over plain http", sc)
			}
			// The cookie carries neither the CSRF token nor the user's ID token.
			if strings.Contains(sc, sess.CSRF) {
				t.Error("CSRF token in the cookie")
			}
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("Cookie", strings.Split(sc, ";")[0])
			got, err := s.Load(req)
			if err != nil || got.User != "alice" || got.ID != sess.ID {
				t.Fatalf("Load = %+v, %v", got, err)
			}
			s.End(httptest.NewRecorder(), req, got)
			if _, err := s.Load(req); err != ErrNoSession {
				t.Errorf("Load after End = %v, want ErrNoSession", err)
			}
		})
	}
}

func TestSessionSecretTooShort(t *testing.T) {
	if _, err := NewSessions(SessionConfig{Secret: "short"}); err == nil {
		t.Error("a short secret was accepted")
	}
}

func TestSessionForgedCookie(t *testing.T) {
	a, _ := NewSessions(SessionConfig{Secret: DevSessionSecret})
	b, _ := NewSessions(SessionConfig{Secret: strings.Repeat("x", 40)})
	rec := httptest.NewRecorder()
	if _, err := b.Start(rec, httptest.NewRequest(http.MethodGet, "/", nil), "admin", Tokens{}); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Cookie", strings.Split(rec.Header().Get("Set-Cookie"), ";")[0])
	if _, err := a.Load(req); err != ErrNoSession {
		t.Errorf("a cookie made with another secret: %v", err)
	}
}
