package e2e

import (
	"encoding/json"
	"testing"
)

// TestWalletSDKMoreFlows runs the rest of the wallet integration guide's
// flows with the Canton Network wallet SDK (e2e/sdk/more.mjs) against a
// fresh wallet on SQLite and on Postgres: offline signing (the topology
// and transaction hashes recomputed and signed apart from the online
// calls), a transfer preapproval renewed by the operator and cancelled by
// the receiver, a two-step transfer that expires (its coin unlocked, the
// instruction refused to the receiver and withdrawn), buying traffic (the
// scan's traffic status up by exactly the amount bought), merging twelve
// holdings by delegation through the batch utility, a DvP allocation
// through the trading app settled by the venue, and several users: each
// onboards an external party only it sees, a master user with
// CanReadAsAnyParty and CanExecuteAsAnyParty sees all, and the guide's
// idempotency example (ten concurrent executes of one signed command run
// it once; those that found it running wait for its completion). Each step checks
// exact amounts; a failed step fails the test with the script's output.
func TestWalletSDKMoreFlows(t *testing.T) {
	t.Parallel()
	steps := []string{"connect", "offline-signing", "preapproval-renew-cancel", "two-step-transfer-expire",
		"buy-traffic", "merge-delegation", "allocation", "multi-user", "idempotent-execute"}
	forEachSDKEngine(t, func(t *testing.T, base, ledgerAPI string) {
		env := sdkEnv(t, base, ledgerAPI)
		tokens := map[string]string{}
		for _, u := range []string{"mu-alice-user", "mu-bob-user", "mu-master-user"} {
			tokens[u] = devToken(t, walletBin, u)
		}
		b, err := json.Marshal(tokens)
		must(t, err)
		env["USER_TOKENS"] = string(b)
		env["FLOWS"] = "preapproval,expire,traffic,merge-delegation,allocation,multi-user,idempotent-execute"
		wantSteps(t, runSDKScript(t, "more.mjs", env), steps)
	})
}
