package e2e

import (
	"testing"
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
	runBesideSDK(t, "guide.mjs", "LEDGER_API="+lapi, "APP="+base, "TOKEN="+devToken(t, walletBin, "admin"))
}
