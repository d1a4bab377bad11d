package ui_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// failingAutomations is an automations source whose status cannot be read.
type failingAutomations struct{}

func (failingAutomations) Automations(context.Context) ([]handlers.AutomationStatus, error) {
	return nil, errors.New("scheduler status unreadable")
}

// TestUIServerErrorPage: a page that fails on the server's side is a page
// in the layout (menu and all), not a bare text, saying that nothing
// changed and what to do, with the reference the log carries, a retry of
// the same page and a way back; the cause stays in the log.
func TestUIServerErrorPage(t *testing.T) {
	e := handlerstest.NewUIEnvWith(t, ledgertest.Engines[1], func(cfg *handlers.Config) { cfg.UI.Automations = failingAutomations{} })
	admin := e.Browser(t)
	admin.Login("admin")
	r := admin.Get("/admin?x=1")
	ref := r.Header.Get("X-Request-Id")
	handlerstest.MustHave(t, r, http.StatusInternalServerError, `data-testid="server-error"`, `data-testid="nav"`, "changes nothing in your wallet",
		`<code data-testid="error-reference">`+ref+`</code>`, `href="/admin?x=1" data-testid="error-retry"`, `href="/" data-testid="error-home"`,
		`<link rel="icon"`)
	if ref == "" || strings.Contains(r.Body, "scheduler status unreadable") {
		t.Errorf("reference %q; the cause must stay in the log", ref)
	}
	// A form post that fails is not repeated by a link.
	p := admin.Post("/admin/users", url.Values{"csrf_token": {handlerstest.CSRFOf(t, r.Body)}, "name": {""}})
	handlerstest.MustHave(t, p, http.StatusInternalServerError, `data-testid="server-error"`, `data-testid="error-home"`)
	if strings.Contains(p.Body, `data-testid="error-retry"`) {
		t.Error("a failed post offers a retry link")
	}
}
