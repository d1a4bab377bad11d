package ui_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/cmd/ccwallet/replicas"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/web"
)

// TestSessionStoreDownIsNotALogout: when the sessions' database cannot be
// read, a logged-in user's pages answer 503 in words; they are not sent
// to log in again, Home does not turn into the logged-out landing page,
// and a live reload (htmx) is not redirected to the login, which would
// navigate away from the page it updates. (A busy SQLite wallet did that
// to a browser test's Home under load.)
func TestSessionStoreDownIsNotALogout(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) { sessionStoreDown(t, engine) })
	}
}

func sessionStoreDown(t *testing.T, engine ledgertest.Engine) {
	// The sessions on a connection pool of their own to the ledger's
	// database, as a replica's: closing it fails their reads only.
	url := ledgertest.DBURL(t, engine)
	l, sdb := ledgertest.Open(t, url, ledgertest.Options{}), ledgertest.OpenDB(t, url)
	e := handlerstest.NewUIEnvOn(t, l, nil, func(cfg *handlers.Config) {
		s, err := web.NewSessions(web.SessionConfig{Secret: web.DevSessionSecret, Store: replicas.Sessions(sdb)})
		if err != nil {
			t.Fatal(err)
		}
		cfg.UI.Sessions = s
	})
	b := e.Browser(t)
	b.Onboarded("alice")
	handlerstest.MustHave(t, b.Get("/"), http.StatusOK, `data-testid="party-id"`)

	if err := sdb.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		hdr  map[string]string
	}{
		{"/", nil},
		{"/send", nil},
		{"/home/live", map[string]string{"HX-Request": "true"}},
	} {
		r := b.Do(http.MethodGet, c.path, nil, c.hdr)
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("HX-Redirect") != "" || r.Header.Get("Location") != "" {
			t.Errorf("GET %s with the sessions' database down = %d (Location %q, HX-Redirect %q), want 503",
				c.path, r.Status, r.Header.Get("Location"), r.Header.Get("HX-Redirect"))
		}
		if !strings.Contains(r.Body, "cannot check your login just now") {
			t.Errorf("GET %s: the answer does not say why: %.400s", c.path, r.Body)
		}
	}
}
