package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/web"
)

func TestNewUISecrets(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	prod := defaultConfig()
	prod.Network = "production"
	prod.OIDC = OIDCConfig{Issuer: "https://id.example.com", ClientID: "wallet"}
	dev := defaultConfig()
	tests := []struct {
		name    string
		cfg     Config
		env     map[string]string
		wantErr string
		wantDev bool
	}{
		{"production without a secret", prod, nil, "sessionSecret", false},
		{"production with the development secret", prod, map[string]string{"WALLET_SESSION_SECRET": web.DevSessionSecret}, "sessionSecret", false},
		{"production with a secret", prod, map[string]string{"WALLET_SESSION_SECRET": strings.Repeat("s", 40)}, "", false},
		{"production without an issuer", func() Config { c := prod; c.OIDC.Issuer = ""; return c }(),
			map[string]string{"WALLET_SESSION_SECRET": strings.Repeat("s", 40)}, "oidc.issuer", false},
		{"devnet default: built-in provider", dev, nil, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ui, err := newUI(context.Background(), tc.cfg, env(tc.env), "http://localhost:8080", nil, slog.New(slog.DiscardHandler))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one about %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (ui.DevProvider != nil) != tc.wantDev {
				t.Errorf("dev provider on = %v, want %v", ui.DevProvider != nil, tc.wantDev)
			}
		})
	}
}
