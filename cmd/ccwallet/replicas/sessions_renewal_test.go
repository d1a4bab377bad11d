package replicas_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/cmd/ccwallet/replicas"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/web"
)

// rotatingProvider is a provider that rotates refresh tokens, as Hydra
// does: each refresh token works once, and a second use of one ends the
// login (reuse detection). The first refresh waits for release, so a
// test can hold one renewal in flight.
type rotatingProvider struct {
	mu      sync.Mutex
	current string
	calls   int
	reused  bool
	entered chan struct{}
	release chan struct{}
}

func (p *rotatingProvider) Refresh(_ context.Context, rt, _ string) (web.Tokens, error) {
	p.mu.Lock()
	p.calls++
	first := p.calls == 1
	if rt != p.current {
		p.reused = true
		p.mu.Unlock()
		return web.Tokens{}, web.ErrLoginEnded
	}
	p.current = rt + "+"
	p.mu.Unlock()
	if first {
		close(p.entered)
		<-p.release
	}
	return web.Tokens{IDToken: "id-" + rt + "+", RefreshToken: rt + "+", Expiry: time.Now().Add(time.Hour)}, nil
}

// TestSessionRenewalAcrossReplicas: two replicas (two Sessions on one
// database) that both see a session due for renewal use its refresh
// token once between them: while one renews, the other serves on with
// the tokens it has, then takes the winner's. Before, each replica's
// locks were its own, both refreshed with the same token, and a
// provider that rotates refresh tokens ended the login.
func TestSessionRenewalAcrossReplicas(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			url := ledgertest.DBURL(t, e)
			secret := "0123456789abcdef0123456789abcdef-test"
			p := &rotatingProvider{current: "rt", entered: make(chan struct{}), release: make(chan struct{})}
			replica := func() *web.Sessions {
				s, err := web.NewSessions(web.SessionConfig{Secret: secret, Refresher: p, Store: replicas.Sessions(ledgertest.OpenDB(t, url))})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			a, b := replica(), replica()
			w := httptest.NewRecorder()
			if _, err := a.Start(w, httptest.NewRequest(http.MethodGet, "/", nil), "alice",
				web.Tokens{IDToken: "id-rt", RefreshToken: "rt", Expiry: time.Now().Add(10 * time.Second)}); err != nil {
				t.Fatal(err)
			}
			cookie := w.Result().Cookies()[0]
			load := func(s *web.Sessions) (*web.Session, error) {
				r := httptest.NewRequest(http.MethodGet, "/", nil)
				r.AddCookie(cookie)
				return s.Load(r)
			}

			done := make(chan error, 1)
			go func() {
				_, err := load(a)
				done <- err
			}()
			<-p.entered // a is at the provider with "rt"
			if sess, err := load(b); err != nil || sess.IDToken != "id-rt" {
				t.Errorf("replica b while a renews: %v, %+v; want the session serving on its tokens", err, sess)
			}
			close(p.release)
			if err := <-done; err != nil {
				t.Fatalf("replica a's renewal: %v", err)
			}
			for name, s := range map[string]*web.Sessions{"a": a, "b": b} {
				sess, err := load(s)
				if err != nil || sess.IDToken != "id-rt+" || time.Until(sess.TokenExpiry) < 50*time.Minute {
					t.Errorf("replica %s after the renewal: %v, %+v; want the renewed session", name, err, sess)
				}
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.reused || p.calls != 1 {
				t.Errorf("the provider was asked %d times (a refresh token reused: %v), want once", p.calls, p.reused)
			}
		})
	}
}
