package handlers_test

import (
	"context"
	"errors"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/google/go-cmp/cmp"
)

var (
	networkRowRE = regexp.MustCompile(`(?s)<tr data-testid="network-setting" data-key="([^"]+)">(.*?)</tr>`)
	networkValRE = regexp.MustCompile(`(?s)<td[^>]*data-testid="network-value"[^>]*>(.*?)</td>`)
	tagRE        = regexp.MustCompile(`<[^>]*>`)
)

// networkRows reads the admin page's network configuration table as
// key -> "value | mark".
func networkRows(t *testing.T, body string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range networkRowRE.FindAllStringSubmatch(body, -1) {
		v := networkValRE.FindStringSubmatch(m[2])
		if v == nil {
			t.Fatalf("row %s has no value cell: %s", m[1], m[2])
		}
		mark := "used"
		if strings.Contains(m[2], `data-testid="network-ignored"`) {
			mark = "ignored"
		}
		out[m[1]] = strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(v[1], ""))) + " | " + mark
	}
	return out
}

// TestUIAdminNetworkConfiguration: the admin page lists the multi-validator
// network keys it is given, with their values ("not set" when empty) and
// the embedded network's marks; only admins see it, and a page given none
// says so.
func TestUIAdminNetworkConfiguration(t *testing.T) {
	settings := []handlers.NetworkSetting{
		{Key: "synchronizer connection mode", Value: "single trusted scan", Ignored: true},
		{Key: "svSponsorAddress", Env: "SPONSOR_SV_URL", Value: "https://sv.sv-1.example.com", Ignored: true},
		{Key: "scanAddress", Env: "TRUSTED_SCAN_URL", Value: "https://scan.sv-1.example.com/?a=1&b=2", Ignored: true},
		{Key: "decentralizedSynchronizerUrl", Ignored: true},
		{Key: "onboardingSecret", Env: "ONBOARDING_SECRET", Value: "set (****)", Ignored: true},
		{Key: "validatorPartyHint", Value: "acme-validator-1"},
	}
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			e := newUIEnvWith(t, engine, func(c *handlers.Config) { c.Network = settings })
			admin := e.browser(t)
			admin.login("admin")
			page := admin.get("/admin")
			mustHave(t, page, http.StatusOK, `data-testid="network-config"`, "(SPONSOR_SV_URL)", "(TRUSTED_SCAN_URL)",
				"one validator, no sponsor, scan or sequencers")
			want := map[string]string{
				"synchronizer connection mode": "single trusted scan | ignored",
				"svSponsorAddress":             "https://sv.sv-1.example.com | ignored",
				"scanAddress":                  "https://scan.sv-1.example.com/?a=1&b=2 | ignored",
				"decentralizedSynchronizerUrl": "not set | ignored",
				"onboardingSecret":             "set (****) | ignored",
				"validatorPartyHint":           "acme-validator-1 | used",
			}
			if diff := cmp.Diff(want, networkRows(t, page.body)); diff != "" {
				t.Errorf("network configuration (-want +got):\n%s", diff)
			}

			alice := e.browser(t)
			alice.onboarded("alice")
			if r := alice.get("/admin"); r.status != http.StatusForbidden || strings.Contains(r.body, "network-config") {
				t.Errorf("a user sees the admin page: %d", r.status)
			}
		})
	}
	e := newUIEnv(t, ledgertest.Engines[1])
	admin := e.browser(t)
	admin.login("admin")
	mustHave(t, admin.get("/admin"), http.StatusOK, `data-testid="network-none"`)
}

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
	e := newUIEnvWith(t, ledgertest.Engines[1], func(cfg *handlers.Config) { cfg.UI.Automations = failingAutomations{} })
	admin := e.browser(t)
	admin.login("admin")
	r := admin.get("/admin?x=1")
	ref := r.header.Get("X-Request-Id")
	mustHave(t, r, http.StatusInternalServerError, `data-testid="server-error"`, `data-testid="nav"`, "changes nothing in your wallet",
		`<code data-testid="error-reference">`+ref+`</code>`, `href="/admin?x=1" data-testid="error-retry"`, `href="/" data-testid="error-home"`,
		`<link rel="icon"`)
	if ref == "" || strings.Contains(r.body, "scheduler status unreadable") {
		t.Errorf("reference %q; the cause must stay in the log", ref)
	}
	// A form post that fails is not repeated by a link.
	p := admin.post("/admin/users", url.Values{"csrf_token": {csrfOf(t, r.body)}, "name": {""}})
	mustHave(t, p, http.StatusInternalServerError, `data-testid="server-error"`, `data-testid="error-home"`)
	if strings.Contains(p.body, `data-testid="error-retry"`) {
		t.Error("a failed post offers a retry link")
	}
}
