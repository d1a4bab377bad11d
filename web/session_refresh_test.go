package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// refresher answers renewals with err, or else with a new refresh token,
// counting the calls.
type refresher struct {
	err   error
	calls int
}

func (f *refresher) Refresh(_ context.Context, rt, _ string) (Tokens, error) {
	f.calls++
	if f.err != nil {
		return Tokens{}, f.err
	}
	return Tokens{RefreshToken: rt + "+", Expiry: time.Now().Add(time.Hour)}, nil
}

// TestSessionRenewal: a session whose access token expires within the
// margin is renewed once, its refresh token sealed at rest; a refusal ends
// the session (ErrLoginEnded); a provider that cannot be asked leaves the
// session serving, and is not asked again on every request.
func TestSessionRenewal(t *testing.T) {
	start := func(t *testing.T, f *refresher) (*Sessions, *http.Request) {
		s, err := NewSessions(SessionConfig{Secret: DevSessionSecret, Refresher: f})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		if _, err := s.Start(rec, httptest.NewRequest(http.MethodGet, "/", nil), "alice",
			Tokens{RefreshToken: "rt-secret", Expiry: time.Now().Add(10 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		for _, c := range rec.Result().Cookies() {
			r.AddCookie(c)
		}
		return s, r
	}
	t.Run("renewed", func(t *testing.T) {
		f := &refresher{}
		s, r := start(t, f)
		sess, err := s.Load(r)
		if err != nil {
			t.Fatal(err)
		}
		if f.calls != 1 || time.Until(sess.TokenExpiry) < 50*time.Minute {
			t.Fatalf("calls %d, expiry %s: want one renewal", f.calls, sess.TokenExpiry)
		}
		if strings.Contains(sess.RefreshToken, "rt-secret") {
			t.Errorf("refresh token stored in clear: %q", sess.RefreshToken)
		}
		if _, err := s.Load(r); err != nil || f.calls != 1 {
			t.Errorf("second load: %v, %d calls; want no renewal", err, f.calls)
		}
	})
	t.Run("refused", func(t *testing.T) {
		s, r := start(t, &refresher{err: ErrLoginEnded})
		if _, err := s.Load(r); !errors.Is(err, ErrLoginEnded) {
			t.Fatalf("load = %v, want ErrLoginEnded", err)
		}
		if _, err := s.Load(r); !errors.Is(err, ErrNoSession) || errors.Is(err, ErrLoginEnded) {
			t.Errorf("load after = %v, want ErrNoSession", err)
		}
	})
	t.Run("provider down", func(t *testing.T) {
		f := &refresher{err: ErrProviderUnreachable}
		s, r := start(t, f)
		for range 3 {
			if _, err := s.Load(r); err != nil {
				t.Fatalf("load = %v, want the session serving", err)
			}
		}
		if f.calls != 1 {
			t.Errorf("%d renewals while the provider is down, want 1 (then a pause)", f.calls)
		}
	})
}
