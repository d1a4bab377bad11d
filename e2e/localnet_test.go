package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// localNet is a running `ccwallet serve --localnet`: its two validators'
// wallet and Ledger API URLs and scan's.
type localNet struct {
	userApp, userLedger, providerApp, providerLedger, scan string
}

var localNetRe = regexp.MustCompile(`msg="localnet: .*app_user_wallet=(\S+) app_user_ledger_api=(\S+) .*app_provider_wallet=(\S+) app_provider_ledger_api=(\S+) .*scan=(\S+)`)

// startLocalNet runs bin serve --localnet on db, on LocalNet's own ports
// when fixed, else on ports the kernel picks (--localnet-listen), and
// waits until it is ready.
func startLocalNet(t *testing.T, bin, db string, fixed bool) localNet {
	t.Helper()
	dir := t.TempDir()
	args := []string{"serve", "--localnet", "--db", db, "--health-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"}
	if !fixed {
		args = append(args, "--localnet-listen", strings.TrimSuffix(strings.Repeat("127.0.0.1:0,", 5), ","))
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "WALLET_NETWORK=devnet")
	logPath := filepath.Join(dir, "localnet.log")
	logf, err := os.Create(logPath)
	must(t, err)
	t.Cleanup(func() { logf.Close() })
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "ccwallet is ready") {
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		log, _ := os.ReadFile(logPath)
		t.Fatalf("serve --localnet did not start:\n%s", log)
	}
	log, err := os.ReadFile(logPath)
	must(t, err)
	m := localNetRe.FindSubmatch(log)
	if m == nil {
		t.Fatalf("serve --localnet logged no addresses:\n%s", log)
	}
	url := func(b []byte) string { return "http://" + strings.Replace(string(b), "[::]", "127.0.0.1", 1) }
	return localNet{userApp: url(m[1]), userLedger: url(m[2]), providerApp: url(m[3]), providerLedger: url(m[4]), scan: url(m[5])}
}

// runBesideSDK runs sdk/<name> with env, copied with sdk/steps.mjs into a
// directory of its own in e2e/node (whence Node.js resolves the SDK by
// its package name, from node_modules above), and fails the test unless
// it ends with DONE.
func runBesideSDK(t *testing.T, name string, env ...string) {
	t.Helper()
	dir, err := os.MkdirTemp("node", "sdk-run-*")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, f := range []string{name, "steps.mjs"} {
		src, err := os.ReadFile(filepath.Join("sdk", f))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, f), src, 0o600))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", name)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out.String())
	}
	if !bytes.HasSuffix(bytes.TrimSpace(out.Bytes()), []byte("DONE")) {
		t.Fatalf("%s did not finish:\n%s", name, out.String())
	}
}

// TestLocalNetExchangeFlows runs the wallet integration guide's exchange
// flows with the wallet SDK against serve --localnet, with LocalNet's
// test authentication (sdk/exchange.mjs): the exchange's treasury on the
// app provider with its featured app right and preapproval, a customer
// on the app user who taps, then a one-step deposit, a one-step
// withdrawal, a multi-step deposit and a multi-step withdrawal, each
// checked in the exchange's transaction log and both parties' holdings.
// The clients get explicit 127.0.0.1 URLs and kernel-chosen ports. On
// SQLite and on Postgres.
func TestLocalNetExchangeFlows(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, ln localNet) {
		runBesideSDK(t, "exchange.mjs", "USER_LEDGER="+ln.userLedger, "PROVIDER_LEDGER="+ln.providerLedger,
			"USER_VALIDATOR="+ln.userApp, "PROVIDER_VALIDATOR="+ln.providerApp, "SCAN="+ln.scan+"/api/scan")
	}
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		run(t, startLocalNet(t, walletBin, filepath.Join(t.TempDir(), "wallet.db"), false))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		bin, dbURL, _ := crashEnv(t)
		run(t, startLocalNet(t, bin, dbURL, false))
	})
}

// TestLocalNetSDKDefaults: the wallet SDK's LocalNet defaults, unmodified
// (its factories, localNetAuthDefault and localNetStaticConfig), connect
// to serve --localnet on LocalNet's own ports 2975/2000, 3975/3000 and
// 4000 and run a transfer between the two validators
// (sdk/localnet-defaults.mjs). The only test that binds those ports.
func TestLocalNetSDKDefaults(t *testing.T) {
	t.Parallel()
	startLocalNet(t, walletBin, filepath.Join(t.TempDir(), "wallet.db"), true)
	runBesideSDK(t, "localnet-defaults.mjs")
}
