package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// Scratch: one shipped row (SC_MODE: send, ledgerapi, sdk) with a CPU profile.
func BenchmarkScratchRow(b *testing.B) {
	c := ledgertest.Cluster(b)
	wallet, loadgen := shippedBinaries(b)
	dbURL, drop, err := c.CloneDB(context.Background(), "template1")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(drop)
	w, _ := startWallet(b, wallet, dbURL)
	defer w.stop(b)
	state := filepath.Join(b.TempDir(), "state.json")
	if out, err := exec.Command(loadgen, "setup", "-app", "http://"+w.app, "-parties", strconv.Itoa(apiParties), "-out", state).CombinedOutput(); err != nil {
		b.Fatalf("setup: %v\n%s", err, out)
	}
	mode := os.Getenv("SC_MODE")
	if mode == "sdk" {
		if out, err := exec.Command(loadgen, "sdksetup", "-state", state, "-ledger-api", "http://"+w.lapi).CombinedOutput(); err != nil {
			b.Fatalf("sdksetup: %v\n%s", err, out)
		}
	}
	for seq := 1; seq <= 3; seq++ {
		cpu0 := w.cpu()
		prof := w.profile(fmt.Sprintf("%s-%d.pprof", mode, seq), 3*time.Second)
		out, err := exec.Command(loadgen, mode, "-state", state, "-clients", os.Getenv("SC_CLIENTS"), "-duration", "4s", "-prefix", fmt.Sprintf("s%d", seq),
			"-ledger-api", "http://"+w.lapi).Output()
		cpu := w.cpu() - cpu0
		prof()
		var r loadResult
		if err == nil {
			err = json.Unmarshal(out, &r)
		}
		if err != nil {
			b.Fatalf("%s: %v %s", mode, err, out)
		}
		n := float64(r.OK)
		b.Logf("%s run %d: %.0f ops/s, p50 %.1f ms p99 %.1f ms, wallet CPU %.2f ms/op", mode, seq, r.Rate, r.P50ms, r.P99ms, float64(cpu.Microseconds())/1000/n)
	}
}
