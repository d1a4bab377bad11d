package ui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestUIFormBounds: text that is not UTF-8 cannot come through JSON (the
// decoder replaces it) but can through a form; the ledger refuses it with
// a message naming the field, on both engines (Postgres failed the
// transaction with 500; SQLite stored bytes no page can show). A traffic
// purchase past MaxTrafficBytes, in bytes or in CC (whose byte count
// overflowed an int64), is refused by the form too.
func TestUIFormBounds(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100")
		bob := e.Wallet(t, "bob", "")
		for _, method := range []string{"offer", "instruction"} {
			r := alice.Send(url.Values{"receiver": {string(bob.Party)}, "amount": {"1"}, "expires": {"1h"},
				"method": {method}, "description": {"ok\xff\xfeok"}})
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "valid UTF-8") {
				t.Errorf("send by %s with invalid UTF-8: %d %.300s; want 422 naming UTF-8", method, r.Status, r.Body)
			}
		}
		for _, f := range []url.Values{{"unit": {"cc"}, "amount": {strings.Repeat("9", 28)}}, {"unit": {"bytes"}, "amount": {"4611686018427387904"}}} {
			f.Set("csrf_token", alice.Csrf)
			f.Set("member", string(e.L.Operator()))
			f.Set("step", "quote")
			if r := alice.Post("/traffic", f); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "at most") {
				t.Errorf("traffic quote of %s %s: %d %.300s; want 422 naming the most", f.Get("amount"), f.Get("unit"), r.Status, r.Body)
			}
		}
		handlerstest.MustHave(t, bob.Get("/offers"), http.StatusOK, `data-testid="transfers-list"`)
		ledgertest.Conserved(t, e.L)
	})
}
