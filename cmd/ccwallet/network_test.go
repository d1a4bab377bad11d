package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestNetworkSettings: the admin page's network configuration shows every
// multi-validator key with its effective value (file or env), the
// connection mode the keys select, secrets masked, and each marked ignored
// by the embedded network.
func TestNetworkSettings(t *testing.T) {
	issued := testNow.Add(-47 * time.Hour).Format(time.RFC3339)
	tests := []struct {
		name string
		file string
		env  []string
		want map[string]string
	}{
		{"defaults", "", nil, map[string]string{
			"synchronizer connection mode":    modeBFT,
			"svSponsorAddress":                "",
			"scanAddress":                     "",
			"nonSvValidatorTrustSingleScan":   "false",
			"useSequencerConnectionsFromScan": "true (default)",
			"decentralizedSynchronizerUrl":    "",
			"onboardingSecret":                "",
			"migration.id":                    "0",
			"migration.migrating":             "false",
		}},
		{"every key", goodValues, []string{"SECRET_ENV=pw"}, map[string]string{
			"synchronizer connection mode":    modeTrustedBoth,
			"svSponsorAddress":                "https://sv.sv-1.example.com",
			"scanAddress":                     "https://scan.sv-1.example.com",
			"nonSvValidatorTrustSingleScan":   "true",
			"useSequencerConnectionsFromScan": "false",
			"decentralizedSynchronizerUrl":    "https://sequencer.sv-1.example.com",
			"onboardingSecret":                "",
			"migration.id":                    "3",
			"migration.migrating":             "false",
		}},
		{"env, secret with its issue time, URL with a password", "nonSvValidatorTrustSingleScan: true\n",
			[]string{"SPONSOR_SV_URL=https://ops:hunter2@sv.example.com", "TRUSTED_SCAN_URL=https://scan.example.com",
				"MIGRATION_ID=4", "ONBOARDING_SECRET=s3cr3t@" + issued}, map[string]string{
				"synchronizer connection mode":    modeTrustedScan,
				"svSponsorAddress":                "https://ops:xxxxx@sv.example.com",
				"scanAddress":                     "https://scan.example.com",
				"nonSvValidatorTrustSingleScan":   "true",
				"useSequencerConnectionsFromScan": "true (default)",
				"decentralizedSynchronizerUrl":    "",
				"onboardingSecret":                fmt.Sprintf("set (****), issued %s, valid until %s", issued, testNow.Add(time.Hour).Format(time.RFC3339)),
				"migration.id":                    "4",
				"migration.migrating":             "false",
			}},
		{"single trusted sequencer, secret without a time", "useSequencerConnectionsFromScan: false\ndecentralizedSynchronizerUrl: https://seq.example.com\n",
			[]string{"ONBOARDING_SECRET=opaque"}, map[string]string{
				"synchronizer connection mode":    modeTrustedSeq,
				"svSponsorAddress":                "",
				"scanAddress":                     "",
				"nonSvValidatorTrustSingleScan":   "false",
				"useSequencerConnectionsFromScan": "false",
				"decentralizedSynchronizerUrl":    "https://seq.example.com",
				"onboardingSecret":                "set (****)",
				"migration.id":                    "0",
				"migration.migrating":             "false",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadConfig(writeFile(t, "v.yaml", tt.file), newEnv(tt.env), testNow)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, s := range cfg.networkSettings(testNow) {
				if !s.Ignored {
					t.Errorf("%s is not marked ignored by the embedded network", s.Key)
				}
				if strings.Contains(s.Value, "hunter2") || strings.Contains(s.Value, "s3cr3t") || strings.Contains(s.Value, "opaque") {
					t.Errorf("%s shows a secret: %s", s.Key, s.Value)
				}
				got[s.Key] = s.Value
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("network settings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOnboardingSecretSummaryExpired: a secret past its 48 hours says so
// (the page is rendered long after start-up, where it was still valid).
func TestOnboardingSecretSummaryExpired(t *testing.T) {
	issued := testNow.Add(-49 * time.Hour)
	got := onboardingSecretSummary("s@"+issued.Format(time.RFC3339), testNow)
	want := fmt.Sprintf("set (****), issued %s, expired at %s", issued.Format(time.RFC3339), issued.Add(48*time.Hour).Format(time.RFC3339))
	if got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}
