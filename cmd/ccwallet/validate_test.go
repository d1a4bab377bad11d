package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// prodValues is a complete production configuration (the login's
// provider is only contacted at the first login).
const prodValues = `network: production
auth:
  jwksUrl: https://idp.example.com/.well-known/jwks.json
  issuer: https://idp.example.com/
oidc:
  issuer: https://idp.example.com/
  clientId: wallet
  secureCookies: true
publicUrl: https://wallet.example.com
`

var prodSecret = "WALLET_SESSION_SECRET=" + strings.Repeat("s", 40)

// TestConfigCheckAgreesWithServe runs `config check` and `serve` on the
// same configurations: both refuse with the same reason or both accept,
// with the same warnings (printed by check, logged by serve). Before,
// check approved the first five, which serve refused (issue 21), and both
// took disableAuth from WALLET_DISABLE_AUTH alone in production.
func TestConfigCheckAgreesWithServe(t *testing.T) {
	pruning := func(cron string) string {
		return "participantPruningSchedule: {cron: \"" + cron + "\", maxDuration: 5m, retention: 30d}\n"
	}
	without := func(s, line string) string {
		if !strings.Contains(s, line) {
			t.Fatalf("values lack %q", line)
		}
		return strings.Replace(s, line, "", 1)
	}
	tests := []struct {
		name     string
		values   string
		env      []string
		wantErr  string   // "" means both accept
		warnings []string // substrings, in check's output and serve's log
	}{
		{"production without a session secret", prodValues, nil, "oidc.sessionSecret: set a secret of your own", nil},
		{"production without a login issuer", strings.Replace(prodValues, "oidc:\n  issuer: https://idp.example.com/\n", "oidc:\n", 1), []string{prodSecret},
			"oidc.issuer: required outside the development network", nil},
		{"login issuer without a client", without(prodValues, "  clientId: wallet\n"), []string{prodSecret}, "oidc.clientId: required", nil},
		{"session secret too short", "", []string{"WALLET_SESSION_SECRET=short"}, "oidc.sessionSecret: must be at least 32 characters", nil},
		{"secure cookies not a boolean", "", []string{"WALLET_SECURE_COOKIES=maybe"}, "WALLET_SECURE_COOKIES", nil},
		{"production auth off by the environment alone", without(prodValues, "  jwksUrl: https://idp.example.com/.well-known/jwks.json\n"),
			[]string{prodSecret, "WALLET_DISABLE_AUTH=true"}, "disableAuth: in production, turning authentication off takes disableAuth: true in the values file", nil},
		{"production", prodValues, []string{prodSecret}, "", nil},
		{"devnet defaults", "", nil, "", nil},
		{"production auth off in the values file", prodValues + "disableAuth: true\n", []string{prodSecret}, "",
			[]string{"disableAuth: authentication is OFF"}},
		{"production without auth.issuer", strings.Replace(prodValues, "  issuer: https://idp.example.com/\noidc:", "oidc:", 1), []string{prodSecret}, "",
			[]string{"auth.issuer: not set, so tokens from any issuer are accepted"}},
		{"production cookies not Secure over plain HTTP",
			strings.Replace(without(prodValues, "  secureCookies: true\n"), "https://wallet.example.com", "http://wallet.example.com", 1),
			[]string{prodSecret}, "", []string{"oidc.secureCookies: off and the wallet is served over plain HTTP"}},
		// The pruning schedules of docs/operator.md and Canton's
		// automatic-pruning page (Quartz: seconds first, "?", "/10").
		// Before, check approved the Quartz ones and serve refused them.
		{"pruning every ten minutes, Quartz", pruning("0 /10 * * * ?"), nil, "", nil},
		{"pruning every five minutes, Quartz", pruning("0 /5 * * * ?"), nil, "", nil},
		{"pruning on Saturdays, Quartz", pruning("0 0 8 ? * SAT"), nil, "", nil},
		{"pruning nightly, five fields", pruning("0 3 * * *"), nil, "", nil},
		{"pruning on the last day, Quartz L", pruning("0 0 0 L * ?"), nil, "participantPruningSchedule.cron", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values := writeFile(t, "values.yaml", tt.values)
			var out, errOut bytes.Buffer
			// --offline: serve does not fetch from the provider either.
			checkErr := run(t.Context(), []string{"config", "check", "--offline", "--config", values}, tt.env, &out, &errOut)
			s, serveErr := tryServe(t, append(sqliteArgs(t), "--config", values), tt.env)
			for what, err := range map[string]error{"config check": checkErr, "serve": serveErr} {
				switch {
				case tt.wantErr == "" && err != nil:
					t.Errorf("%s refused: %v", what, err)
				case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
					t.Errorf("%s = %v, want a refusal saying %q", what, err, tt.wantErr)
				}
			}
			if tt.wantErr != "" {
				return
			}
			if got := strings.Count(out.String(), "warning: "); got != len(tt.warnings) {
				t.Errorf("config check printed %d warnings, want %d:\n%s", got, len(tt.warnings), out.String())
			}
			for _, w := range tt.warnings {
				if !strings.Contains(out.String(), "warning: "+w) {
					t.Errorf("config check does not warn %q:\n%s", w, out.String())
				}
				if !strings.Contains(s.logs.String(), w) {
					t.Errorf("serve does not log %q:\n%s", w, s.logs.String())
				}
			}
		})
	}
}

// TestDisableAuthIsLoud: with disableAuth in the values file in
// production the wallet starts, and an unsigned token is believed (that
// is what disableAuth means), but an admin's /readyz lists the warning,
// which an anonymous probe does not see.
func TestDisableAuthIsLoud(t *testing.T) {
	values := writeFile(t, "values.yaml", prodValues+"disableAuth: true\n")
	s := startServe(t, append(sqliteArgs(t), "--config", values), []string{prodSecret})
	enc := base64.RawURLEncoding.EncodeToString
	unsigned := enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"admin"}`)) + "."
	if code := call(t, plain, "GET", "http://"+s.addrs.App+"/v0/admin/users", unsigned, "", nil); code != 200 {
		t.Errorf("admin API with an unsigned token and disableAuth = %d, want 200", code)
	}
	readyz := func(base, token string) string {
		req, _ := http.NewRequest("GET", base+"/readyz", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := plain.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Errorf("/readyz = %d %s", resp.StatusCode, b)
		}
		return string(b)
	}
	var admin struct{ Warnings []string }
	if err := json.Unmarshal([]byte(readyz("http://"+s.addrs.App, unsigned)), &admin); err != nil {
		t.Fatal(err)
	}
	if len(admin.Warnings) != 1 || !strings.Contains(admin.Warnings[0], "authentication is OFF") {
		t.Errorf("an admin's /readyz warnings = %q, want the disableAuth warning", admin.Warnings)
	}
	notAdmin := enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"alice"}`)) + "."
	for _, body := range []string{readyz("http://"+s.addrs.App, ""), readyz("http://"+s.addrs.App, notAdmin),
		readyz("http://"+s.addrs.Health, unsigned)} {
		if strings.Contains(body, "warning") {
			t.Errorf("a /readyz not from an admin, or on the health port, shows the warnings: %s", body)
		}
	}
}
