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
// e2e/node) against a fresh wallet on SQLite and on Postgres: external
// parties onboarded by generate, sign and allocate, a tap, holdings and
// holding transactions, two-step transfers accepted, rejected and
// withdrawn, idempotency, the SDK's merge and a WebSocket subscription,
// each with exact balances. The script prints "step NAME ok" per step; a
// failed step fails the test with its output.
func TestWalletSDKFlows(t *testing.T) {
	t.Parallel()
	steps := []string{"connect", "onboard", "tap", "holding-transactions",
		"two-step-transfer-accept", "two-step-transfer-reject", "two-step-transfer-withdraw", "idempotency", "merge-utxos",
		"subscribe-websocket"}
	forEachSDKEngine(t, func(t *testing.T, base, ledgerAPI string) {
		out := runSDKScript(t, "flows.mjs", sdkEnv(t, base, ledgerAPI))
		wantSteps(t, out, steps)
	})
}

// sdkWalletValues configure the SDK flows' wallets: no rate limit, and
// the expiry automation (every 30 s by default) out of the scripts' way.
// Splice leaves an instruction past its deadline for its sender to
// withdraw or its receiver to reject, which a flow checks; this wallet's
// automation ends it itself (jobs tests that), and when its run fell
// between the deadline and the withdrawal the flow failed (seen under
// load: "AmuletTransferInstruction ... not found").
const sdkWalletValues = "rateLimit: {burst: 0}\nautomation: {expiryInterval: 1h}\n"

// forEachSDKEngine runs fn against a fresh wallet on SQLite and one on
// Postgres, in parallel.
func forEachSDKEngine(t *testing.T, fn func(t *testing.T, base, ledgerAPI string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		srv := startCrashServerWith(t, walletBin, filepath.Join(dir, "wallet.db"), dir, sdkWalletValues)
		fn(t, srv.url, lastLedgerAPI(t, dir))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		bin, dbURL, dir := crashEnv(t)
		srv := startCrashServerWith(t, bin, dbURL, dir, sdkWalletValues)
		fn(t, srv.url, lastLedgerAPI(t, dir))
	})
}

// sdkEnv is the environment of the SDK scripts (sdk/lib.mjs) against the
// wallet at base with its Ledger API at ledgerAPI, as its admin user.
func sdkEnv(t *testing.T, base, ledgerAPI string) map[string]string {
	t.Helper()
	modules, err := filepath.Abs("node/node_modules")
	must(t, err)
	if _, err := os.Stat(filepath.Join(modules, "@canton-network/wallet-sdk/package.json")); err != nil {
		t.Fatalf("the wallet SDK is not installed (run `make deps`): %v", err)
	}
	return map[string]string{
		"SDK_MODULES": modules,
		"LEDGER_API":  ledgerAPI,
		"WALLET_URL":  base,
		"TOKEN":       devToken(t, walletBin, "admin"),
		"USER_ID":     "admin",
	}
}

// wantSteps fails t for each step that did not print "step NAME ok".
func wantSteps(t *testing.T, out string, steps []string) {
	t.Helper()
	for _, s := range steps {
		if !strings.Contains(out, "step "+s+" ok\n") {
			t.Errorf("step %s did not pass:\n%s", s, out)
		}
	}
}

// runSDKScript runs node on e2e/sdk/NAME with env added and returns its
// output; the test fails with that output when node exits non-zero.
func runSDKScript(t *testing.T, name string, env map[string]string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
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
