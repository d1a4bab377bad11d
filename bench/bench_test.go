// Package bench measures ccwallet against same-run references on this
// machine: `make bench` runs it and writes bench/results.md. Timings are
// reported, never asserted.
package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// results collects rows for bench/results.md.
var results struct {
	sync.Mutex
	rows [][4]string // metric, ours, reference, ratio/aim
}

func row(metric, ours, ref, note string) {
	results.Lock()
	defer results.Unlock()
	results.rows = append(results.rows, [4]string{metric, ours, ref, note})
}

const benchDuration = 15 * time.Second

// BenchmarkTransferPrimitive: transfers per second of ledger.Transfer on
// the private Postgres with 8 workers, beside pgbench TPC-B (8 clients) on
// the same cluster in the same run.
func BenchmarkTransferPrimitive(b *testing.B) {
	c := ledgertest.Cluster(b)
	ctx := context.Background()

	// Reference: pgbench TPC-B, scale 10, 8 clients, same duration.
	url, drop, err := c.CloneDB(ctx, "template1")
	if err != nil {
		b.Fatal(err)
	}
	defer drop()
	if out, err := c.Command(ctx, "pgbench", "-i", "-q", "-s", "10", url).CombinedOutput(); err != nil {
		b.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	out, err := c.Command(ctx, "pgbench", "-c", "8", "-j", "2", "-T", strconv.Itoa(int(benchDuration.Seconds())), url).CombinedOutput()
	if err != nil {
		b.Fatalf("pgbench: %v\n%s", err, out)
	}
	pgTPS := parseTPS(string(out))

	lurl := ledgertest.DBURL(b, store.Postgres)
	l := ledgertest.Open(b, lurl, ledgertest.Options{})
	const parties = 1000
	ps := make([]coin.PartyID, parties)
	for i := range ps {
		ps[i] = ledgertest.Party(b, l)
		for range 5 {
			ledgertest.Mint(b, l, ps[i], "1000")
		}
	}
	// pgbench -i vacuums and analyzes its tables; ours get the same, as
	// autovacuum gives a production database, after the seeding.
	if out, err := c.Command(ctx, "psql", "-q", "-c", "VACUUM ANALYZE", lurl).CombinedOutput(); err != nil {
		b.Fatalf("vacuum: %v\n%s", err, out)
	}
	var n, fail atomic.Int64
	deadline := time.Now().Add(benchDuration)
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for time.Now().Before(deadline) {
				s, r := ps[rng.IntN(parties)], ps[rng.IntN(parties)]
				if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: s, Receiver: r, Amount: coin.MustParse("1.5")}); err != nil {
					fail.Add(1)
					continue
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	ours := float64(n.Load()) / benchDuration.Seconds()
	b.ReportMetric(ours, "transfers/s")
	b.ReportMetric(pgTPS, "pgbench-tps")
	ratio := ours / pgTPS
	b.ReportMetric(ratio, "ratio")
	row("Transfer primitive, Postgres, 8 workers (transfers/s)", fmt.Sprintf("%.0f", ours), fmt.Sprintf("pgbench TPC-B 8 clients: %.0f tps", pgTPS),
		fmt.Sprintf("ratio %.2f (aim ≥ 0.5); %d failed", ratio, fail.Load()))
	if _, err := l.CheckConservation(ctx); err != nil {
		b.Fatal(err)
	}
}

var tpsRe = regexp.MustCompile(`tps = ([0-9.]+)`)

func parseTPS(out string) float64 {
	m := tpsRe.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// BenchmarkStartup: time from starting `ccwallet serve` on a fresh SQLite
// file to /readyz answering 200, and the idle resident memory after.
func BenchmarkStartup(b *testing.B) {
	bin := walletBinary(b)
	var starts []time.Duration
	var rss []int
	for i := range 5 {
		w, took := startRetrying(b, "serve", func() *walletProc {
			dir := b.TempDir()
			w := &walletProc{app: freePort(b), health: freePort(b), metric: freePort(b), logPath: filepath.Join(dir, "ccwallet.log")}
			w.cmd = exec.Command(bin, "serve", "--db", filepath.Join(dir, "w.db"), "--listen", w.app, "--health-listen", w.health, "--metrics-listen", w.metric, "--ledger-api-listen", "off")
			w.cmd.Dir = dir
			return w
		}, func(w *walletProc) []string { return []string{w.health} })
		starts = append(starts, took)
		if i == 0 {
			time.Sleep(2 * time.Second) // idle
		}
		rss = append(rss, rssKiB(w.cmd.Process.Pid))
		w.stop(b)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	sort.Ints(rss)
	med := starts[len(starts)/2]
	b.ReportMetric(float64(med.Milliseconds()), "ms-to-ready")
	b.ReportMetric(float64(rss[len(rss)/2])/1024, "MiB-idle-rss")
	row("Start to ready, SQLite, fresh file (median of 5)", med.Round(time.Millisecond).String(), "initdb+pg_ctl start ≈ 0.9 s (RECIPES)", "aim < 1 s")
	row("Idle RSS after start (median of 5)", fmt.Sprintf("%.1f MiB", float64(rss[len(rss)/2])/1024), "", "aim < 40 MB")
}

func freePort(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitReady(url string) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return errors.New("server not ready after 20 s")
}

func rssKiB(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}
