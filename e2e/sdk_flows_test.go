package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWalletSDKFlows runs the Canton Network wallet SDK's integration guide
// flows (e2e/sdk/flows.mjs, with the SDK that scripts/deps.sh installs in
// e2e/node) against a fresh wallet on SQLite: external parties onboarded by
// generate, sign and allocate, a tap, holdings and holding transactions,
// and a two-step transfer, each with exact balances. The script prints
// "step NAME ok" per step; a failed step fails the test with its output.
func TestWalletSDKFlows(t *testing.T) {
	t.Parallel()
	modules, err := filepath.Abs("node/node_modules")
	must(t, err)
	if _, err := os.Stat(filepath.Join(modules, "@canton-network/wallet-sdk/package.json")); err != nil {
		t.Fatalf("the wallet SDK is not installed (run `make deps`): %v", err)
	}
	base, ledgerAPI := ownWalletWithLedgerAPI(t)
	out := runSDKScript(t, "flows.mjs", map[string]string{
		"SDK_MODULES": modules,
		"LEDGER_API":  ledgerAPI,
		"WALLET_URL":  base,
		"TOKEN":       devToken(t, walletBin, "admin"),
		"USER_ID":     "admin",
	})
	for _, s := range []string{"connect", "onboard", "tap", "holding-transactions",
		"two-step-transfer-accept", "two-step-transfer-reject", "two-step-transfer-withdraw", "idempotency", "merge-utxos",
		"subscribe-websocket"} {
		if !strings.Contains(out, "step "+s+" ok\n") {
			t.Errorf("step %s did not pass:\n%s", s, out)
		}
	}
}

// runSDKScript runs node on e2e/sdk/NAME with env added and returns its
// output; the test fails with that output when node exits non-zero.
func runSDKScript(t *testing.T, name string, env map[string]string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// Node 20's WebSocket (which the SDK's streams use) is behind a flag.
	cmd := exec.CommandContext(ctx, "node", "--experimental-websocket", filepath.Join("sdk", name))
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", name, err, out)
	}
	return string(out)
}
