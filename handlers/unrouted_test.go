package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestUnroutedAnswersInShape: a path no route takes answers 404, and a
// path with routes for other methods 405 with Allow, as {"error": ...} for
// the JSON APIs and clients asking for JSON, and as a page in the layout
// with a way back home otherwise; never net/http's plain text.
func TestUnroutedAnswersInShape(t *testing.T) {
	e := handlerstest.NewUIEnv(t, ledgertest.Engines[1]) // no ledger rule involved
	b := e.Browser(t)
	html := map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
	jsonAccept := map[string]string{"Accept": "application/json"}
	tests := []struct {
		method, path string
		hdr          map[string]string
		status       int
		allow        string
		json         bool
	}{
		{"GET", "/no-such-page", html, 404, "", false},
		{"GET", "/no-such-page", nil, 404, "", false}, // curl's */*
		{"GET", "/no-such-page", jsonAccept, 404, "", true},
		{"GET", "/no-such-page", map[string]string{"Accept": "application/problem+json"}, 404, "", true},
		{"GET", "/api/nope", html, 404, "", true},
		{"GET", "/registry/nope", nil, 404, "", true},
		{"GET", "/api/validator/v0/nope", nil, 404, "", true},
		{"GET", "/v0/nope", nil, 404, "", true},
		{"GET", "/registry/transfer-instruction/v1/transfer-factory", nil, 405, "POST", true},
		{"GET", "/v0/wallet/tap", nil, 405, "POST", true},
		{"DELETE", "/api/validator/v0/wallet/balance", nil, 405, "GET, HEAD", true},
		{"POST", "/login", html, 405, "GET, HEAD", false},
		{"DELETE", "/login", jsonAccept, 405, "GET, HEAD", true},
		// Under /api/validator only the API's routes count.
		{"POST", "/api/validator/login", nil, 404, "", true},
	}
	for _, tt := range tests {
		r := b.Do(tt.method, tt.path, nil, tt.hdr)
		name := tt.method + " " + tt.path
		if r.Status != tt.status {
			t.Errorf("%s = %d, want %d; body %.300s", name, r.Status, tt.status, r.Body)
			continue
		}
		if got := r.Header.Get("Allow"); got != tt.allow {
			t.Errorf("%s: Allow = %q, want %q", name, got, tt.allow)
		}
		ct := r.Header.Get("Content-Type")
		if tt.json {
			var body struct{ Error string }
			if !strings.HasPrefix(ct, "application/json") || json.Unmarshal([]byte(r.Body), &body) != nil || body.Error == "" {
				t.Errorf("%s: %s %q, want {\"error\": ...}", name, ct, r.Body)
			}
			continue
		}
		if !strings.HasPrefix(ct, "text/html") || !strings.Contains(r.Body, "</html>") || !strings.Contains(r.Body, `href="/" data-testid="error-home"`) {
			t.Errorf("%s: %s %.500q, want a page with a way back home", name, ct, r.Body)
		}
	}
	// A logged-in user's 404 page keeps the menu.
	b.Onboarded("alice")
	handlerstest.MustHave(t, b.Do("GET", "/no-such-page", nil, html), http.StatusNotFound, `data-testid="nav"`, "There is no page at /no-such-page.")
}
