package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestWalletSDKGuide runs the wallet integration guide's flows with the
// Canton Network wallet SDK from npm (@canton-network/wallet-sdk, pinned
// by scripts/deps.sh in e2e/node) against a fresh wallet of its own, as an
// exchange's or a wallet's code would: two external parties onboarded by
// generate-topology and allocate, taps signed by the party, a two-step
// transfer accepted and one rejected, holdings and holding transactions,
// a preapproval and a one-step transfer, and a merge of holdings by
// self-transfer (sdk/guide.mjs). Each step checks exact amounts; the
// script stops at the first failure and its output is the test's
// message. On SQLite and on Postgres.
func TestWalletSDKGuide(t *testing.T) {
	t.Parallel()
	forEachSDKEngine(t, runSDKGuide)
}

// runSDKGuide runs sdk/guide.mjs against the wallet at base, whose JSON
// Ledger API is at lapi.
func runSDKGuide(t *testing.T, base, lapi string) {
	t.Helper()
	// The script must sit beside e2e/node/node_modules for Node.js to
	// resolve the SDK from it.
	src, err := os.ReadFile(filepath.Join("sdk", "guide.mjs"))
	must(t, err)
	script, err := os.CreateTemp("node", "sdk-guide-*.mjs")
	must(t, err)
	t.Cleanup(func() { os.Remove(script.Name()) })
	_, err = script.Write(src)
	must(t, err)
	must(t, script.Close())

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Base(script.Name()))
	cmd.Dir = "node"
	cmd.Env = append(os.Environ(), "LEDGER_API="+lapi, "APP="+base, "TOKEN="+devToken(t, walletBin, "admin"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the SDK's guide flows: %v\n%s", err, out.String())
	}
	if !bytes.HasSuffix(bytes.TrimSpace(out.Bytes()), []byte("DONE")) {
		t.Fatalf("the SDK's guide flows did not finish:\n%s", out.String())
	}
}
