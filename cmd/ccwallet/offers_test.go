package main

import (
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
)

// TestOffersConfig: config check accepts the offers keys and refuses bad
// values, with the key in words; the floor is off only on a development
// network; unset keys keep the ledger's defaults.
func TestOffersConfig(t *testing.T) {
	prod := "network: production\nauth:\n  jwksUrl: https://idp.example.com/jwks\n"
	for _, c := range []struct {
		name, body, want string
	}{
		{"both keys", "offers:\n  minAmount: \"0.5\"\n  maxOpenPerReceiver: 5\n", ""},
		{"floor off on devnet", "network: devnet\noffers:\n  minAmount: \"0\"\n", ""},
		{"floor off in production", prod + "offers:\n  minAmount: \"0\"\n", "offers.minAmount: 0 turns the floor off, which only a development network may do"},
		{"floor not an amount", "offers:\n  minAmount: lots\n", `offers.minAmount: "lots" is not an amount`},
		{"negative floor", "offers:\n  minAmount: \"-1\"\n", `offers.minAmount: "-1" is not an amount`},
		{"cap zero", "offers:\n  maxOpenPerReceiver: 0\n", "offers.maxOpenPerReceiver: must be between 1 and 100000, not 0"},
		{"unknown key", "offers:\n  maxOpen: 3\n", "offers.maxOpen (line 2): unknown key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadConfig(writeFile(t, "values.yaml", c.body), newEnv(nil), testNow)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("config check = %v, want %q", err, c.want)
			}
		})
	}
	cfg, err := loadConfig(writeFile(t, "values.yaml", "offers:\n  minAmount: \"0.5\"\n"), newEnv(nil), testNow)
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.ledgerConfig().Offers
	if !got.MinAmount.Equal(coin.MustParse("0.5")) || got.MaxOpenPerReceiver != ledger.DefaultOfferLimits.MaxOpenPerReceiver {
		t.Errorf("ledger offer limits = %+v", got)
	}
}
