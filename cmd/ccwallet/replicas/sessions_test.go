package replicas_test

import (
	"net/http/httptest"
	"testing"

	"github.com/ccwallet/ccwallet/cmd/ccwallet/replicas"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/web"
)

// TestSessionsSharedAcrossReplicas: two session managers on one database
// (two replicas, each with its own connections) honour each other's
// logins, and a logout on either ends the session everywhere.
func TestSessionsSharedAcrossReplicas(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			url := ledgertest.DBURL(t, e)
			secret := "0123456789abcdef0123456789abcdef-test"
			a, err := web.NewSessions(web.SessionConfig{Secret: secret, Store: replicas.Sessions(ledgertest.OpenDB(t, url))})
			if err != nil {
				t.Fatal(err)
			}
			b, err := web.NewSessions(web.SessionConfig{Secret: secret, Store: replicas.Sessions(ledgertest.OpenDB(t, url))})
			if err != nil {
				t.Fatal(err)
			}
			w := httptest.NewRecorder()
			sess, err := a.Start(w, httptest.NewRequest("GET", "/", nil), "alice", web.Tokens{IDToken: "id-token"})
			if err != nil {
				t.Fatal(err)
			}
			cookie := w.Result().Cookies()[0]
			r := httptest.NewRequest("GET", "/", nil)
			r.AddCookie(cookie)
			got, err := b.Load(r)
			if err != nil || got.User != "alice" || got.ID != sess.ID {
				t.Fatalf("replica b: %+v, %v; want alice's session", got, err)
			}
			if tok := b.End(httptest.NewRecorder(), r, got); tok != "id-token" {
				t.Errorf("End returned %q, want the ID token for the provider's logout", tok)
			}
			r2 := httptest.NewRequest("GET", "/", nil)
			r2.AddCookie(cookie)
			if _, err := a.Load(r2); err != web.ErrNoSession {
				t.Errorf("replica a after logout on b: %v, want ErrNoSession", err)
			}
		})
	}
}
