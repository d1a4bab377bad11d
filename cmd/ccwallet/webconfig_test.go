package main

import (
	"strings"
	"testing"
	"time"
)

// TestWebConfig: the web block's keys, their defaults and their checks.
func TestWebConfig(t *testing.T) {
	cfg, err := loadConfig(writeFile(t, "values.yaml", ""), newEnv(nil), testNow)
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.Web.RateLimit; r.Login.Burst != 30 || r.FormsPerSession.Burst != 60 || r.FormsPerClient.Burst != 300 ||
		r.Login.Per.Std() != time.Minute || len(cfg.Web.TrustedProxies) != 0 {
		t.Errorf("defaults: %+v", cfg.Web)
	}
	body := "web:\n  trustedProxies: [10.0.0.0/8, \"::1\"]\n  rateLimit:\n    login: {burst: 5}\n    formsPerClient: {burst: 0}\n"
	cfg, err = loadConfig(writeFile(t, "values.yaml", body), newEnv(nil), testNow)
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.Web.RateLimit; r.Login.Burst != 5 || r.Login.Per.Std() != time.Minute || r.FormsPerClient.Burst != 0 {
		t.Errorf("overrides: %+v", r)
	}
	for body, want := range map[string]string{
		"web:\n  trustedProxies: [proxy.internal]\n":              `web.trustedProxies: trusted proxy "proxy.internal"`,
		"web:\n  rateLimit:\n    login: {burst: -1}\n":            "web.rateLimit.login: burst must be 0 (off) or positive",
		"web:\n  rateLimit:\n    formsPerSession: {per: 0s}\n":    "web.rateLimit.formsPerSession:",
		"web:\n  rateLimit:\n    formsPerClient: {burst: lots}\n": "web.rateLimit.formsPerClient.burst (line 3): wrong type",
		"web:\n  trustedProxy: [10.0.0.1]\n":                      "web.trustedProxy[0] (line 2): unknown key",
	} {
		_, err := loadConfig(writeFile(t, "values.yaml", body), newEnv(nil), testNow)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", body, err, want)
		}
	}
}
