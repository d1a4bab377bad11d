package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/store/pgtest"
)

// TestDevnetTail: `ccwallet devnet tail` prints the updates committed
// after it starts, within 2 s, filtered by template (and party), on both
// engines; it refuses outside a development network.
func TestDevnetTail(t *testing.T) {
	c, err := pgtest.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	for name, db := range map[string][]string{"sqlite": sqliteArgs(t), "postgres": {"--db", c.URL("postgres")}} {
		t.Run(name, func(t *testing.T) {
			cli := func(args ...string) error {
				var out bytes.Buffer
				return run(t.Context(), append(append([]string{}, args...), db...), nil, &out, &out)
			}
			if err := cli("advance-rounds", "--rounds", "1"); err != nil { // the schema and the network exist
				t.Fatal(err)
			}
			tail := func(args ...string) (*syncBuffer, func()) {
				ctx, cancel := context.WithCancel(t.Context())
				out, errOut := &syncBuffer{}, &syncBuffer{}
				done := make(chan error, 1)
				go func() {
					done <- run(ctx, append(append([]string{"devnet", "tail", "--interval", "20ms"}, db...), args...), nil, out, errOut)
				}()
				for deadline := time.Now().Add(5 * time.Second); !strings.Contains(errOut.String(), "watching updates after offset"); {
					select {
					case err := <-done:
						t.Fatalf("tail %v ended: %v %s", args, err, errOut.String())
					case <-time.After(10 * time.Millisecond):
					}
					if time.Now().After(deadline) {
						t.Fatalf("tail did not start: %s", errOut.String())
					}
				}
				return out, func() {
					cancel()
					if err := <-done; err != nil {
						t.Errorf("tail: %v", err)
					}
				}
			}
			rounds, stopRounds := tail("--json", "--template", "Splice.Round:OpenMiningRound")
			installs, stopInstalls := tail("--template", "Splice.Wallet.Install:WalletAppInstall")
			nobody, stopNobody := tail("--party", "nobody::1220"+strings.Repeat("0", 64))
			// Two jumps, two updates (a jump of two rounds is one update).
			for range 2 {
				if err := cli("advance-rounds", "--rounds", "1"); err != nil {
					t.Fatal(err)
				}
			}
			var lines []string
			for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if lines = strings.Fields(rounds.String()); len(lines) >= 2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the rounds' tail printed %q within 2 s, want 2 updates", rounds.String())
				}
			}
			stopRounds()
			stopInstalls()
			stopNobody()
			for _, line := range lines {
				var u struct {
					Offset    int64    `json:"offset"`
					Templates []string `json:"templates"`
				}
				if err := json.Unmarshal([]byte(line), &u); err != nil || u.Offset == 0 || !strings.Contains(strings.Join(u.Templates, " "), "OpenMiningRound") {
					t.Errorf("tail printed %q (%v), want an update of an OpenMiningRound", line, err)
				}
			}
			if installs.String() != "" || nobody.String() != "" {
				t.Errorf("filtered tails printed %q and %q, want nothing", installs.String(), nobody.String())
			}
		})
	}
	prod := writeFile(t, "prod.yaml", "network: production\nauth:\n  jwksUrl: https://idp.example.com/.well-known/jwks.json\n")
	var out bytes.Buffer
	if err := run(t.Context(), []string{"devnet", "tail", "--config", prod}, nil, &out, &out); err == nil || !strings.Contains(err.Error(), "only available on a development network") {
		t.Errorf("tail on production = %v, want a refusal", err)
	}
}
