package ui_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
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
			e := handlerstest.NewUIEnvWith(t, engine, func(c *handlers.Config) { c.Network = settings })
			admin := e.Browser(t)
			admin.Login("admin")
			page := admin.Get("/admin")
			handlerstest.MustHave(t, page, http.StatusOK, `data-testid="network-config"`, "(SPONSOR_SV_URL)", "(TRUSTED_SCAN_URL)",
				"one validator, no sponsor, scan or sequencers")
			want := map[string]string{
				"synchronizer connection mode": "single trusted scan | ignored",
				"svSponsorAddress":             "https://sv.sv-1.example.com | ignored",
				"scanAddress":                  "https://scan.sv-1.example.com/?a=1&b=2 | ignored",
				"decentralizedSynchronizerUrl": "not set | ignored",
				"onboardingSecret":             "set (****) | ignored",
				"validatorPartyHint":           "acme-validator-1 | used",
			}
			if diff := cmp.Diff(want, networkRows(t, page.Body)); diff != "" {
				t.Errorf("network configuration (-want +got):\n%s", diff)
			}

			alice := e.Browser(t)
			alice.Onboarded("alice")
			if r := alice.Get("/admin"); r.Status != http.StatusForbidden || strings.Contains(r.Body, "network-config") {
				t.Errorf("a user sees the admin page: %d", r.Status)
			}
		})
	}
	e := handlerstest.NewUIEnv(t, ledgertest.Engines[1])
	admin := e.Browser(t)
	admin.Login("admin")
	handlerstest.MustHave(t, admin.Get("/admin"), http.StatusOK, `data-testid="network-none"`)
}

// TestUIAdminConfigWarnings: the configuration's security warnings (say,
// disableAuth) head the admin page; a configuration without any shows no
// warning box (issue 21).
func TestUIAdminConfigWarnings(t *testing.T) {
	warning := "disableAuth: authentication is OFF & anyone can act as any user"
	e := handlerstest.NewUIEnvWith(t, ledgertest.Engines[0], func(c *handlers.Config) { c.Warnings = []string{warning} })
	admin := e.Browser(t)
	admin.Login("admin")
	handlerstest.MustHave(t, admin.Get("/admin"), http.StatusOK, `data-testid="config-warnings"`, html.EscapeString(warning))

	quiet := handlerstest.NewUIEnv(t, ledgertest.Engines[0]).Browser(t)
	quiet.Login("admin")
	if page := quiet.Get("/admin"); strings.Contains(page.Body, "config-warnings") {
		t.Error("the admin page shows a warning box without warnings")
	}
}
