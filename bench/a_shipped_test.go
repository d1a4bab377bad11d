package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store/pgtest"
)

// shippedRun is how long one run of the shipped binary lasts;
// BENCH_RUN overrides it (e.g. BENCH_RUN=2s while developing).
func shippedRun() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("BENCH_RUN")); err == nil && d > 0 {
		return d
	}
	return apiRun
}

// shippedRuns is how many alternated pairs (pgbench, then ours) give a
// shipped row's medians: the machine's phase moves one pair's ratio by up
// to a factor of two, and five pairs' median moves less than three's.
const shippedRuns = 5

// shippedBinaries are the wallet and load generator under test: built
// from this tree, or CCWALLET_BIN / LOADGEN_BIN (prebuilt binaries, for
// alternated before/after runs of two commits).
func shippedBinaries(b *testing.B) (wallet, loadgen string) {
	return walletBinary(b), binary(b, "LOADGEN_BIN", "./loadgen")
}

// walletBinary is the wallet under test: CCWALLET_BIN (what make bench
// builds) or built from this tree.
func walletBinary(b *testing.B) string { return binary(b, "CCWALLET_BIN", "../cmd/ccwallet") }

// binary is the prebuilt binary env names, or pkg built from this tree.
func binary(b *testing.B, env, pkg string) string {
	if path := os.Getenv(env); path != "" {
		return path
	}
	path := filepath.Join(b.TempDir(), filepath.Base(pkg))
	if o, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput(); err != nil {
		b.Fatalf("build %s: %v\n%s", pkg, err, o)
	}
	return path
}

// walletProc is `ccwallet serve` running as a child process.
type walletProc struct {
	cmd                       *exec.Cmd
	exited                    chan struct{} // closed when cmd has ended (launch)
	app, health, lapi, metric string
	logPath                   string
	pprof                     string // the profiler's address, with BENCH_PPROF
}

// profile saves a CPU profile of the next d to BENCH_PPROF/name, when
// BENCH_PPROF names a directory; it returns at once and done waits.
func (w *walletProc) profile(name string, d time.Duration) (done func()) {
	if w.pprof == "" {
		return func() {}
	}
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", w.pprof, max(1, int(d.Seconds()))))
		if err != nil {
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		os.WriteFile(filepath.Join(os.Getenv("BENCH_PPROF"), name), b, 0o644)
	}()
	return func() { <-ch }
}

// logTail is the end of the wallet's log, for errors.
func (w *walletProc) logTail() string {
	b, _ := os.ReadFile(w.logPath)
	return string(b[max(0, len(b)-4000):])
}

// startWallet starts bin serve on the Postgres database dbURL with a
// values file that only lifts the per-user rate limit (a load generator
// sends as a few hundred users at thousands per second) and returns when
// /readyz answers, with the time that took.
func startWallet(b *testing.B, bin, dbURL string) (*walletProc, time.Duration) {
	return startRetrying(b, "serve", func() *walletProc {
		dir := b.TempDir()
		cfg := filepath.Join(dir, "values.yaml")
		if err := os.WriteFile(cfg, []byte("rateLimit:\n  burst: 100000000\n  per: 1m\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		w := &walletProc{app: freePort(b), health: freePort(b), lapi: freePort(b), metric: freePort(b), logPath: filepath.Join(dir, "ccwallet.log")}
		w.cmd = exec.Command(bin, "serve", "--config", cfg, "--db", dbURL, "--listen", w.app, "--health-listen", w.health,
			"--metrics-listen", w.metric, "--ledger-api-listen", w.lapi)
		w.cmd.Dir = dir
		if os.Getenv("BENCH_PPROF") != "" {
			w.pprof = freePort(b)
			w.cmd.Env = append(os.Environ(), "CCWALLET_PPROF_LISTEN="+w.pprof)
		}
		return w
	}, func(w *walletProc) []string { return []string{w.health} })
}

// startRetrying launches the process build makes (launch) and returns
// when every address that ready lists answers /readyz, with the time that
// took. The ports build picks (freePort) are free when picked, not when
// the process binds them: a connection made meanwhile, the child's own or
// another process's, may be given one first (a `make bench` failed so,
// 2026-12-01). When the child ends saying an address was in use, it
// starts again on ports picked anew, up to three times; only the
// attempt that served is timed.
func startRetrying(b testing.TB, what string, build func() *walletProc, ready func(*walletProc) []string) (*walletProc, time.Duration) {
	for attempt := 1; ; attempt++ {
		w := build()
		t0 := time.Now()
		err := w.launch(ready(w)...)
		if err == nil {
			return w, time.Since(t0)
		}
		tail := w.logTail()
		if attempt < 3 && strings.Contains(tail, "address already in use") {
			b.Logf("%s: a port picked for it was taken before it bound one (attempt %d); again on new ports", what, attempt)
			continue
		}
		b.Fatalf("%s: %v\n%s", what, err, tail)
	}
}

// launch starts w.cmd with its output to w.logPath (the default log
// level, a line per request, to a file as a log collector would take
// it) and waits until every address in ready answers /readyz, or the
// process ends, or 20 s pass; on an error the process is gone.
func (w *walletProc) launch(ready ...string) error {
	logf, err := os.Create(w.logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	w.cmd.Stderr, w.cmd.Stdout = logf, logf
	if err := w.cmd.Start(); err != nil {
		return err
	}
	w.exited = make(chan struct{})
	go func() {
		w.cmd.Wait()
		close(w.exited)
	}()
	errs := make(chan error, len(ready))
	for _, addr := range ready {
		go func() { errs <- waitReady("http://" + addr + "/readyz") }()
	}
	for range ready {
		select {
		case err = <-errs:
		case <-w.exited:
			err = fmt.Errorf("it ended before it was ready: %v", w.cmd.ProcessState)
		}
		if err != nil {
			w.cmd.Process.Kill()
			<-w.exited
			return err
		}
	}
	return nil
}

func (w *walletProc) stop(b testing.TB) {
	w.cmd.Process.Signal(os.Interrupt)
	select {
	case <-w.exited:
	case <-time.After(30 * time.Second):
		w.cmd.Process.Kill()
		<-w.exited
		b.Errorf("ccwallet serve did not stop in 30 s\n%s", w.logTail())
	}
}

// cpu is the CPU time (user and system) the process has used so far.
func (w *walletProc) cpu() time.Duration {
	return time.Duration(procTicks(procStat(strconv.Itoa(w.cmd.Process.Pid)), false)) * time.Second / clockTicks
}

// loadResult is loadgen's line.
type loadResult struct {
	OK     int64   `json:"ok"`
	Failed int64   `json:"failed"`
	Rate   float64 `json:"rate"`
	P50ms  float64 `json:"p50_ms"`
	P99ms  float64 `json:"p99_ms"`
	MeanMs float64 `json:"mean_ms"`
	// FactoryMs is the transfer factory's share of MeanMs (ledgerapi, sdk).
	FactoryMs float64 `json:"factory_ms"`
	// StepsMs are the means of the sdk mode's later steps (prepare,
	// execute, completion).
	StepsMs  map[string]float64 `json:"steps_ms"`
	FirstErr string             `json:"first_error"`
	// split is the CPU per operation of the wallet, the load generator,
	// the database's Postgres backends and the whole cluster (cpuSplit).
	split cpuSplit
	spans string // breakdown of a send run
}

// runLoad runs bench/loadgen with args (its mode first) against w, whose
// database is db on c, for d, with a CPU profile of w saved as profile
// (BENCH_PPROF), and returns loadgen's result with each process's CPU an
// operation, and w's send spans before and after the run.
func runLoad(b *testing.B, loadgen string, w *walletProc, c *pgtest.Cluster, db string, args []string, profile string, d time.Duration) (r loadResult, before, after sendSpans) {
	wal0 := walStat(context.Background(), c, c.URL(db))
	cpu0, before, pg0, cl0 := w.cpu(), w.spans(), postgresCPU(db), clusterCPU(c.DataDir())
	prof := w.profile(profile, d-time.Second)
	cmd := exec.Command(loadgen, args...)
	m0 := readMachine()
	out, err := cmd.Output()
	busy := readMachine().busySince(m0)
	cpu, after, pg, cl := w.cpu()-cpu0, w.spans(), postgresCPU(db)-pg0, clusterCPU(c.DataDir())-cl0
	wal := walStat(context.Background(), c, c.URL(db))
	prof()
	if err == nil {
		err = json.Unmarshal(out, &r)
	}
	if err != nil {
		b.Fatalf("loadgen %s: %v\n%s\n%s", args[0], err, out, w.logTail())
	}
	if r.Failed > 0 {
		b.Logf("loadgen %s %s clients: %d failed; first: %s", args[0], argAfter(args, "-clients"), r.Failed, r.FirstErr)
	}
	n := time.Duration(max(1, r.OK))
	r.split = cpuSplit{wallet: cpu / n, loadgen: (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()) / n, postgres: pg / n, cluster: cl / n,
		wal: wal.per(wal0, int64(n)), busy: busy}
	return r, before, after
}

// argAfter is the argument that follows flag in args, "" if none does.
func argAfter(args []string, flag string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// BenchmarkShipped: the binary users run. `ccwallet serve` is a child
// process on its own database of the private cluster; bench/loadgen, a
// process of its own, drives it over the JSON API (closed-loop one-step
// sends of 0.01 CC at 8 and 32 clients, token-standard transfers through
// the JSON Ledger API at 8) alternated with pgbench TPC-B of as many
// clients on the same cluster, with the cluster's fsync off (the test
// default) and on (production durability). Medians of 5 alternated runs;
// a ratio is the median of each run's ratio to the pgbench run before it
// (pairRatios).
func BenchmarkShipped(b *testing.B) {
	ctx := context.Background()
	run := shippedRun()
	c := ledgertest.Cluster(b)
	pgURL, _ := pgbenchOn(b, c)
	// steady holds every 8-client pgbench run of the shipped rows, by
	// durability (durableNow): the same work each time (steadinessRow).
	steady := map[bool][]pgbenchRun{}
	durableNow := false
	// pgbenchLat is a pgbench run's tps with its transactions' p50 and p99
	// latency (its per-transaction log), the database's own on this
	// machine, beside which a send's are read, and its CPU per
	// transaction: pgbench's own and the cluster's (pgbenchCPU).
	pgbenchLat := func(clients int) (tps, p50, p99 float64, cpu pgbenchCPU) {
		dir, err := os.MkdirTemp("", "pgbench-log")
		if err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(dir)
		os.Chmod(dir, 0o777)           // the cluster's user writes the log
		wal0 := walStat(ctx, c, pgURL) // its psql before the CPU is read
		pg0 := clusterCPU(c.DataDir())
		cmd := c.Command(ctx, "pgbench", "-c", strconv.Itoa(clients), "-j", "2", "-T", strconv.Itoa(max(1, int(run.Seconds()))),
			"-l", "--log-prefix", filepath.Join(dir, "tx"), pgURL)
		m0 := readMachine()
		out, err := cmd.CombinedOutput()
		busy := readMachine().busySince(m0)
		if err != nil {
			b.Fatalf("pgbench: %v\n%s", err, out)
		}
		pg := clusterCPU(c.DataDir()) - pg0
		lat, err := pgbenchLatencies(dir)
		if err != nil {
			b.Fatal(err)
		}
		n := time.Duration(max(1, len(lat)))
		cpu = pgbenchCPU{client: (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()) / n, postgres: pg / n,
			wal: walStat(ctx, c, pgURL).per(wal0, int64(n)), busy: busy}
		tps = parseTPS(string(out))
		if clients == 8 {
			steady[durableNow] = append(steady[durableNow], pgbenchRun{tps, cpu})
		}
		return tps, quantile(lat, 0.5), quantile(lat, 0.99), cpu
	}
	pgbench := func(clients int) (float64, pgbenchCPU) {
		tps, _, _, cpu := pgbenchLat(clients)
		return tps, cpu
	}
	wallet, loadgen := shippedBinaries(b)

	// Start to ready: a fresh database (the first start migrates it),
	// then the same database again (a restart).
	dbURL := freshDB(b, c)()
	w, first := startWallet(b, wallet, dbURL)
	w.stop(b)
	var restarts []float64
	for range 3 {
		w, took := startWallet(b, wallet, dbURL)
		restarts = append(restarts, float64(took))
		w.stop(b)
	}
	row("Start to ready, shipped binary on Postgres: first start (migrates a fresh database) / restart (median of 3)",
		ms(first)+" / "+ms(time.Duration(median(restarts))), "", "aim < 1 s")
	localnetRow(b, wallet, c)

	w, _ = startWallet(b, wallet, dbURL)
	defer w.stop(b)
	state := filepath.Join(b.TempDir(), "state.json")
	if out, err := exec.Command(loadgen, "setup", "-app", "http://"+w.app, "-parties", strconv.Itoa(apiParties), "-out", state).CombinedOutput(); err != nil {
		b.Fatalf("loadgen setup: %v\n%s\n%s", err, out, w.logTail())
	}
	if out, err := exec.Command(loadgen, "sdksetup", "-state", state, "-ledger-api", "http://"+w.lapi).CombinedOutput(); err != nil {
		b.Fatalf("loadgen sdksetup: %v\n%s\n%s", err, out, w.logTail())
	}
	if out, err := c.Command(ctx, "psql", "-q", "-c", "VACUUM ANALYZE", dbURL).CombinedOutput(); err != nil {
		b.Fatalf("vacuum: %v\n%s", err, out)
	}
	dbName := dbNameOf(dbURL)
	seq := 0
	load := func(mode string, clients int, d time.Duration) loadResult {
		seq++
		args := []string{mode, "-state", state, "-clients", strconv.Itoa(clients), "-duration", d.String(), "-prefix", fmt.Sprintf("r%d", seq)}
		if mode == "ledgerapi" || mode == "sdk" {
			args = append(args, "-ledger-api", "http://"+w.lapi)
		}
		r, sp0, sp1 := runLoad(b, loadgen, w, c, dbName, args, fmt.Sprintf("%s-%dc-%d.pprof", mode, clients, seq), d)
		if mode == "send" {
			r.spans = breakdown(sp0, sp1, r.MeanMs)
		}
		return r
	}

	b.ResetTimer()
	for b.Loop() {
		for _, fsync := range []bool{false, true} {
			label := "fsync off"
			if fsync {
				label = "fsync, synchronous_commit, full_page_writes on (production durability)"
			}
			if err := setDurable(ctx, c, dbURL, fsync); err != nil {
				b.Fatal(err)
			}
			durableNow = fsync
			if err := waitReady("http://" + w.health + "/readyz"); err != nil {
				b.Fatal(err)
			}
			load("send", 8, 2*time.Second) // warm up
			ours := map[int][]loadResult{}
			pg, pgP50, pgP99 := map[int][]float64{}, map[int][]float64{}, map[int][]float64{}
			pgCPU := map[int][]pgbenchCPU{}
			for range shippedRuns {
				for _, clients := range []int{8, 32} {
					tps, p50, p99, cpu := pgbenchLat(clients)
					pg[clients], pgP50[clients], pgP99[clients] = append(pg[clients], tps), append(pgP50[clients], p50), append(pgP99[clients], p99)
					pgCPU[clients] = append(pgCPU[clients], cpu)
					ours[clients] = append(ours[clients], load("send", clients, run))
				}
			}
			for _, clients := range []int{8, 32} {
				rates, p50, p99, cpu := make([]float64, shippedRuns), make([]float64, shippedRuns), make([]float64, shippedRuns), make([]float64, shippedRuns)
				splits := make([]cpuSplit, shippedRuns)
				for i, r := range ours[clients] {
					rates[i], p50[i], p99[i], cpu[i], splits[i] = r.Rate, r.P50ms, r.P99ms, float64(r.split.wallet), r.split
				}
				o, p := median(rates), median(pg[clients])
				ratio, pairs := pairRatios(rates, pg[clients])
				spans := ""
				for _, r := range ours[clients] {
					if r.Rate == o {
						spans = r.spans
					}
				}
				aim := map[int]string{8: "aim ratio ≥ 1.0, p99 ≤ 10 ms", 32: "aim ratio ≥ 1.5"}[clients]
				setAim(func() {
					switch {
					case !fsync:
						aims.wallet[clients] = time.Duration(median(cpu))
					case clients == 8:
						aims.ratio8, aims.p99, aims.pgbenchP99 = ratio, median(p99), median(pgP99[clients])
					default:
						aims.ratio32 = ratio
					}
				})
				b.ReportMetric(ratio, fmt.Sprintf("ratio-%dc-fsync-%v", clients, fsync))
				row(fmt.Sprintf("Shipped binary: one-step 0.01 CC sends via JSON API from bench/loadgen, %d clients, %s (sends/s, median of %d × %s)", clients, label, shippedRuns, run),
					fmt.Sprintf("%.0f", o), fmt.Sprintf("pgbench TPC-B %d clients, same cluster and settings: %.0f tps (runs %s; CPU per transaction %s)", clients, p, fmtRates(pg[clients]), medianPgbenchCPU(pgCPU[clients])),
					fmt.Sprintf("ratio %.2f (%s; %s); p50 / p99 %.2f / %.2f ms (pgbench's own transactions %.2f / %.2f ms); CPU per send %s; %s; runs %s",
						ratio, pairs, aim, median(p50), median(p99), median(pgP50[clients]), median(pgP99[clients]), medianSplit(splits), cpuAgainst(splits, pgCPU[clients], "send"), fmtRates(rates)))
				row(fmt.Sprintf("Shipped binary: where a send's time went (means per send of the median run), %d clients, %s", clients, label), "", "", spans)
			}
			var lRates, lPg, lMean, lFactory []float64
			var lSplits []cpuSplit
			var lPgCPU []pgbenchCPU
			load("ledgerapi", 8, 2*time.Second) // warm up
			for range shippedRuns {
				tps, cpu := pgbench(8)
				lPg, lPgCPU = append(lPg, tps), append(lPgCPU, cpu)
				r := load("ledgerapi", 8, run)
				lRates, lMean, lFactory, lSplits = append(lRates, r.Rate), append(lMean, r.MeanMs), append(lFactory, r.FactoryMs), append(lSplits, r.split)
			}
			o, p := median(lRates), median(lPg)
			ratio, pairs := pairRatios(lRates, lPg)
			b.ReportMetric(ratio, fmt.Sprintf("ratio-ledgerapi-fsync-%v", fsync))
			if fsync {
				setAim(func() { aims.ledgerAPI = ratio })
			}
			row(fmt.Sprintf("Shipped binary: token-standard transfers via the JSON Ledger API from bench/loadgen (transfer factory + submit-and-wait), 8 clients, %s (transfers/s, median of %d × %s)", label, shippedRuns, run),
				fmt.Sprintf("%.0f", o), fmt.Sprintf("pgbench TPC-B 8 clients: %.0f tps (runs %s)", p, fmtRates(lPg)),
				fmt.Sprintf("ratio %.2f (%s; aim ≥ 0.5); mean %.2f ms per transfer, of which the transfer factory %.2f; CPU per transfer %s; %s; runs %s",
					ratio, pairs, median(lMean), median(lFactory), medianSplit(lSplits), cpuAgainst(lSplits, lPgCPU, "transfer"), fmtRates(lRates)))
			sdkRow(b, fsync, label, run, pgbench, func(d time.Duration) loadResult { return load("sdk", 8, d) })
			if fsync {
				localnetDurableRow(b, wallet, c)
			}
		}
		if err := setDurable(ctx, c, dbURL, false); err != nil {
			b.Fatal(err)
		}
		row(steadinessRow(steady[false], steady[true]))
		setAim(func() { aims.steadiness = spreadOf(steady[true]) })
	}
}

// pgbenchRun is one pgbench run: its rate and its CPU a transaction.
type pgbenchRun struct {
	tps float64
	cpu pgbenchCPU
}

// spreadOf is the most CPU a transaction of rs cost over the least: the
// machine's steadiness across those runs; 0 when the cluster's CPU was
// not read for each of them.
func spreadOf(rs []pgbenchRun) float64 {
	if len(rs) == 0 {
		return 0
	}
	cmin, cmax := rs[0].cpu.total(), rs[0].cpu.total()
	for _, r := range rs {
		if r.cpu.postgres == 0 {
			return 0
		}
		cmin, cmax = min(cmin, r.cpu.total()), max(cmax, r.cpu.total())
	}
	return float64(cmax) / float64(cmin)
}

// steadinessRow is results.md's row on how quiet the machine was during
// the shipped rows: the range of pgbench's 8-client runs among them (each
// row's ratios are read against them), fsync off and durable. Each run
// is the same work, so where the CPU a transaction moves, the machine's
// phase moved it (bench/NOTES.md: on the 2-core EPYC by up to a factor of
// two within minutes), and every row's runs with it.
func steadinessRow(off, durable []pgbenchRun) (metric, ours, ref, note string) {
	span := func(rs []pgbenchRun) (tps, cpu, spread string) {
		if len(rs) == 0 {
			return "-", "-", "-"
		}
		lo, hi := rs[0].tps, rs[0].tps
		cmin, cmax := rs[0].cpu.total(), rs[0].cpu.total()
		for _, r := range rs {
			lo, hi = min(lo, r.tps), max(hi, r.tps)
			cmin, cmax = min(cmin, r.cpu.total()), max(cmax, r.cpu.total())
		}
		if sp := spreadOf(rs); sp > 0 { // 0: the cluster's CPU, which clusterCPU may not read
			cpu, spread = fmt.Sprintf("%.3f-%.3f ms", float64(cmin)/1e6, float64(cmax)/1e6), fmt.Sprintf("×%.2f", sp)
		} else {
			cpu, spread = "not read", "-"
		}
		return fmt.Sprintf("%.0f-%.0f tps", lo, hi), cpu, spread
	}
	tOff, cOff, sOff := span(off)
	tOn, cOn, sOn := span(durable)
	return fmt.Sprintf("The machine's steadiness during the shipped rows: pgbench TPC-B at 8 clients, the same work in each run, fsync off / production durability (%d / %d runs)", len(off), len(durable)),
		sOff + " / " + sOn,
		fmt.Sprintf("%s / %s; CPU a transaction (pgbench and the cluster) %s / %s", tOff, tOn, cOff, cOn),
		"the most CPU a run's transaction cost over the least, for the same work: what the machine's phase did to every row's runs, whose ratios hold it only as far as a pair shares its phase"
}

// setDurable restarts the cluster with production durability on or off
// (see durable) and waits until fsync reads back as asked.
func setDurable(ctx context.Context, c *pgtest.Cluster, dbURL string, on bool) error {
	return restartDurable(ctx, c, on, func() (string, error) {
		out, err := c.Command(ctx, "psql", "-tA", "-c", "SHOW fsync", dbURL).Output()
		return strings.TrimSpace(string(out)), err
	})
}

// localnetRow measures `serve --localnet` start to ready on the shipped
// binary (issue 34 aims at 0.3 s at most): from the process's start until
// both validators answer /readyz on their app ports (the app user's and
// the app provider's), on a fresh SQLite file (LocalNet's developer's
// default) and on a fresh Postgres database of the cluster, median of 3
// each. A binary without the flag is said so.
func localnetRow(b *testing.B, bin string, c *pgtest.Cluster) {
	const metric = "Start to ready, `serve --localnet`, both validators' /readyz: fresh SQLite file / fresh Postgres database (median of 3)"
	if !hasLocalNet(bin) {
		row(metric, "-", "", "not measured: this binary has no --localnet")
		return
	}
	sqlite := localnetStarts(b, bin, func() string { return filepath.Join(b.TempDir(), "localnet.db") })
	pg := localnetStarts(b, bin, freshDB(b, c))
	b.Logf("serve --localnet start to ready: SQLite %s, Postgres %s", sqlite, pg)
	row(metric, ms(sqlite)+" / "+ms(pg), "", "aim ≤ 0.3 s")
}

// localnetDurableRow is localnetRow's Postgres start on the cluster at
// production durability, as a LocalNet developer's Postgres runs: there a
// fresh database's migrations wait on the disk (bench/NOTES.md,
// 2026-12-03).
func localnetDurableRow(b *testing.B, bin string, c *pgtest.Cluster) {
	if !hasLocalNet(bin) {
		return
	}
	pg := localnetStarts(b, bin, freshDB(b, c))
	b.Logf("serve --localnet start to ready at production durability: Postgres %s", pg)
	row("Start to ready, `serve --localnet`, both validators' /readyz: fresh Postgres database at production durability (median of 3)",
		ms(pg), "", "aim ≤ 0.3 s")
}

// hasLocalNet says whether bin serves --localnet.
func hasLocalNet(bin string) bool {
	out, _ := exec.Command(bin, "serve", "-h").CombinedOutput()
	return strings.Contains(string(out), "-localnet")
}

// localnetStarts is the median of 3 starts of bin serve --localnet, each
// on a database db makes.
func localnetStarts(b *testing.B, bin string, db func() string) time.Duration {
	var took []float64
	for range 3 {
		w, d := startLocalNet(b, bin, db())
		w.stop(b)
		took = append(took, float64(d))
	}
	return time.Duration(median(took))
}

// freshDB makes an empty database of c for each call, dropped when b ends.
func freshDB(b *testing.B, c *pgtest.Cluster) func() string {
	return func() string {
		url, drop, err := c.CloneDB(context.Background(), "template1")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(drop)
		return url
	}
}

// startLocalNet starts bin serve --localnet on db (a SQLite file or a
// Postgres URL), on free ports, and returns when both validators' app
// ports answer /readyz, with the time that took; w.app is the app
// user's wallet port.
func startLocalNet(b *testing.B, bin, db string) (*walletProc, time.Duration) {
	var provider string
	return startRetrying(b, "serve --localnet", func() *walletProc {
		dir := b.TempDir()
		w := &walletProc{app: freePort(b), health: freePort(b), lapi: freePort(b), metric: freePort(b), logPath: filepath.Join(dir, "ccwallet.log")}
		provider = freePort(b)
		listen := strings.Join([]string{w.app, w.lapi, provider, freePort(b), freePort(b)}, ",")
		w.cmd = exec.Command(bin, "serve", "--localnet", "--localnet-listen", listen, "--db", db,
			"--health-listen", w.health, "--metrics-listen", w.metric)
		w.cmd.Dir = dir
		w.cmd.Env = append(os.Environ(), "WALLET_NETWORK=devnet")
		return w
	}, func(w *walletProc) []string { return []string{w.app, provider} })
}

// sendSpans are the sums (seconds) and counts of the stages of a send
// that ccwallet serve's /metrics reports: the HTTP handler of the send's
// route and the ledger's send stages (ledger/sendspans.go).
type sendSpans map[string][2]float64

var spanSeries = map[string]string{
	"http":  `ccwallet_http_request_duration_seconds_%s{method="POST",route="POST /v0/wallet/transfer-preapproval/send"}`,
	"wait":  `ccwallet_ledger_operation_duration_seconds_%s{kind="send.wait"}`,
	"read":  `ccwallet_ledger_operation_duration_seconds_%s{kind="send.read"}`,
	"write": `ccwallet_ledger_operation_duration_seconds_%s{kind="send.write"}`,
	"batch": `ccwallet_ledger_operation_duration_seconds_%s{kind="send.batch"}`,
}

func (w *walletProc) spans() sendSpans {
	out := sendSpans{}
	resp, err := http.Get("http://" + w.metric + "/metrics")
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		for name, series := range spanSeries {
			for i, part := range []string{"sum", "count"} {
				if v, ok := strings.CutPrefix(line, fmt.Sprintf(series, part)+" "); ok {
					f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
					x := out[name]
					x[i] = f
					out[name] = x
				}
			}
		}
	}
	return out
}

// since is the sum and count the series name gained from before to s.
func (s sendSpans) since(before sendSpans, name string) (sum, count float64) {
	return s[name][0] - before[name][0], s[name][1] - before[name][1]
}

// breakdown is where a send's time went between two snapshots, as the
// client saw it (clientMean, loadgen's mean latency): mean milliseconds
// per send of each stage, and the sends per batch.
func breakdown(before, after sendSpans, clientMean float64) string {
	per := func(name string) float64 {
		s, n := after.since(before, name)
		if n == 0 {
			return 0
		}
		return s / n * 1000
	}
	_, sends := after.since(before, "wait")
	_, batches := after.since(before, "batch")
	httpMs, wait, read, write, batch := per("http"), per("wait"), per("read"), per("write"), per("batch")
	return fmt.Sprintf("client %.2f ms = outside the handler (loopback, HTTP parsing, client) %.2f + handler %.2f; handler = queue and gather wait %.2f + batch %.2f (read round trip %.2f, rule in memory %.2f, write+COMMIT round trip %.2f) + the rest (auth, JSON, routing) %.2f; %.1f sends per batch",
		clientMean, clientMean-httpMs, httpMs, wait, batch, read, batch-read-write, write, httpMs-wait-batch, sends/max(1, batches))
}

// pgbenchLatencies reads the transactions' latencies (ms) from the
// per-transaction logs pgbench -l wrote in dir (its third field is the
// latency in microseconds).
func pgbenchLatencies(dir string) ([]float64, error) {
	files, err := filepath.Glob(filepath.Join(dir, "tx*"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("pgbench's logs in %s: %d files, %v", dir, len(files), err)
	}
	var lat []float64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if fs := strings.Fields(line); len(fs) > 2 {
				if us, err := strconv.ParseFloat(fs[2], 64); err == nil {
					lat = append(lat, us/1000)
				}
			}
		}
	}
	sort.Float64s(lat)
	return lat, nil
}

// cpuSplit is the CPU one operation of a shipped row cost the wallet,
// the load generator (its rusage) and the benchmark database's Postgres
// backends (postgresCPU): on two cores a row's rate is the machine's CPU
// shared among them, so where it goes says what a faster row needs.
// cluster is the whole cluster's (clusterCPU: those backends and the
// server's own processes, the WAL writer's among them), counted as
// pgbenchCPU counts pgbench's.
type cpuSplit struct {
	wallet, loadgen, postgres, cluster time.Duration
	wal                                walUse
	busy                               float64 // the machine's busy share (machineTicks)
}

// walUse is the WAL one operation wrote, the cluster's (pg_stat_wal):
// its bytes and the full-page images among them, and the bytes its
// database grew by. Durable, a page's first change after a checkpoint
// writes the whole page (full_page_writes), so a row that changes many
// pages pays for them in the runs after one. Every new page a database
// grows by is a file's extension, which costs a virtual machine that
// hands free memory back to its host far more than a write to a page it
// holds (bench/NOTES.md, 2026-12-03 07:07).
type walUse struct{ bytes, fpi, grown float64 }

// walStat reads the cluster's WAL counters (pg_stat_wal) and the size of
// url's database: bytes and full-page images so far, and the database's
// bytes; zeros where they cannot be read.
func walStat(ctx context.Context, c *pgtest.Cluster, url string) walUse {
	out, err := c.Command(ctx, "psql", "-tA", "-F", " ", "-c", "SELECT wal_bytes, wal_fpi, pg_database_size(current_database()) FROM pg_stat_wal", url).Output()
	var w walUse
	if err == nil {
		fmt.Sscan(string(out), &w.bytes, &w.fpi, &w.grown)
	}
	return w
}

// per is the WAL used and the database's growth since before, over n
// operations.
func (w walUse) per(before walUse, n int64) walUse {
	return walUse{(w.bytes - before.bytes) / float64(n), (w.fpi - before.fpi) / float64(n), (w.grown - before.grown) / float64(n)}
}

// medianSplit is each part's median over the runs, as words.
func medianSplit(ss []cpuSplit) string {
	part := func(f func(cpuSplit) time.Duration) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = float64(f(s))
		}
		return median(v) / 1e6
	}
	return fmt.Sprintf("wallet %.3f, loadgen %.3f, Postgres %.3f ms",
		part(func(s cpuSplit) time.Duration { return s.wallet }), part(func(s cpuSplit) time.Duration { return s.loadgen }),
		part(func(s cpuSplit) time.Duration { return s.postgres }))
}

// pgbenchCPU is the CPU one pgbench transaction cost: pgbench's own (its
// rusage) and the cluster's (clusterCPU). Beside a row's cpuSplit it says
// how much more work one of ours is than one of pgbench's, which the
// ratio of rates reads through the machine: on two cores both share it.
type pgbenchCPU struct {
	client, postgres time.Duration
	wal              walUse
	busy             float64 // the machine's busy share (machineTicks)
}

// total is what the transaction cost pgbench and the cluster together.
func (p pgbenchCPU) total() time.Duration { return p.client + p.postgres }

// medianPgbenchCPU is each part's median over the runs, as words
// (Postgres 0 when the cluster's CPU could not be read: clusterCPU).
func medianPgbenchCPU(cs []pgbenchCPU) string {
	cl, pg := make([]float64, len(cs)), make([]float64, len(cs))
	for i, c := range cs {
		cl[i], pg[i] = float64(c.client), float64(c.postgres)
	}
	return fmt.Sprintf("pgbench %.3f, Postgres %.3f ms", median(cl)/1e6, median(pg)/1e6)
}

// cpuAgainst compares, as words, the CPU an operation of ours cost every
// process that served it (the wallet, the load generator and the whole
// cluster) with what a pgbench transaction cost (pgbench and the
// cluster): the medians, and the median of each run's ratio to the
// pgbench run before it, as the machine's phase moves the CPU a unit of
// work takes as it moves the rates (pairRatios). On two busy cores the
// ratio of rates follows its inverse, moved by what each leaves idle
// waiting on its WAL flushes.
func cpuAgainst(ss []cpuSplit, ps []pgbenchCPU, op string) string {
	ours, theirs := make([]float64, len(ss)), make([]float64, len(ps))
	for i, s := range ss {
		ours[i] = float64(s.wallet+s.loadgen+s.cluster) / 1e6
	}
	for i, p := range ps {
		theirs[i] = float64(p.total()) / 1e6
	}
	if median(ours) == 0 || slices.Contains(theirs, 0) {
		return "CPU in all not read"
	}
	s := fmt.Sprintf("CPU in all (wallet, loadgen, cluster) %.3f ms a %s against pgbench's %.3f a transaction (%.2f×, the median of the pairs' ratios)",
		median(ours), op, median(theirs), median(ratios(ours, theirs)))
	return s + busyAgainst(ss, ps) + walAgainst(ss, ps, op)
}

// busyAgainst is the share of the machine's CPU time (all its cores) our
// runs kept busy against pgbench's runs, as words ("" when /proc/stat
// could not be read). A ratio of rates is the inverse of the CPU an
// operation costs only where both keep the machine as busy; a row bound
// by its operations' latency (a batch waiting on its WAL flush) leaves a
// part of it idle, and this says how much.
func busyAgainst(ss []cpuSplit, ps []pgbenchCPU) string {
	var ours, theirs []float64
	for _, s := range ss {
		ours = append(ours, s.busy)
	}
	for _, p := range ps {
		theirs = append(theirs, p.busy)
	}
	if len(ours) == 0 || len(theirs) == 0 || slices.Contains(ours, 0) || slices.Contains(theirs, 0) {
		return ""
	}
	return fmt.Sprintf("; the machine busy %.0f%% of our runs, %.0f%% of pgbench's (medians; the runs' %s against %s)",
		100*median(ours), 100*median(theirs), fmtPercents(ours), fmtPercents(theirs))
}

// fmtPercents is shares (0 to 1) as whole percents, as words.
func fmtPercents(vs []float64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.FormatFloat(100*v, 'f', 0, 64) + "%"
	}
	return strings.Join(s, ", ")
}

// machineTicks is the machine's CPU time so far, all its cores together,
// in clock ticks: busy (everything but idle and I/O wait) and in all,
// from /proc/stat's first line. Zeros where it cannot be read.
type machineTicks struct{ busy, all int64 }

func readMachine() machineTicks {
	st, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineTicks{}
	}
	return parseMachine(string(st))
}

// parseMachine reads the "cpu" line of /proc/stat's text: user, nice,
// system, idle, iowait, irq, softirq and steal. Guest time is counted in
// user already (proc(5)) and is left out.
func parseMachine(stat string) machineTicks {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return machineTicks{}
	}
	var m machineTicks
	for i, s := range f[1:9] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return machineTicks{}
		}
		m.all += v
		if i != 3 && i != 4 { // idle, iowait
			m.busy += v
		}
	}
	return m
}

// busySince is the share of the machine's CPU time busy since before,
// 0 when either reading failed or no time passed.
func (m machineTicks) busySince(before machineTicks) float64 {
	if before.all == 0 || m.all <= before.all {
		return 0
	}
	return float64(m.busy-before.busy) / float64(m.all-before.all)
}

// walAgainst is the WAL an operation of ours wrote and the bytes its
// database grew by, against a pgbench transaction's, as words ("" when
// the WAL could not be read).
func walAgainst(ss []cpuSplit, ps []pgbenchCPU, op string) string {
	if len(ss) == 0 || len(ps) == 0 {
		return ""
	}
	var wb, wf, wg []float64
	for _, s := range ss {
		wb, wf, wg = append(wb, s.wal.bytes), append(wf, s.wal.fpi), append(wg, s.wal.grown)
	}
	var pb, pf, pg []float64
	for _, p := range ps {
		pb, pf, pg = append(pb, p.wal.bytes), append(pf, p.wal.fpi), append(pg, p.wal.grown)
	}
	if median(wb) <= 0 || median(pb) <= 0 {
		return ""
	}
	s := fmt.Sprintf("; WAL a %s %.2f KB, %.3f full-page images (the runs' %s), against pgbench's %.2f KB, %.3f (%s)",
		op, median(wb)/1024, median(wf), fmtFloats(wf, 3), median(pb)/1024, median(pf), fmtFloats(pf, 3))
	if median(wg) > 0 {
		// Rounded before printing: a vacuum that truncates a table can
		// shrink pgbench's database by a few bytes, never "-0.00".
		kb := func(v float64) float64 {
			if v = math.Round(v/1024*100) / 100; v == 0 {
				return 0 // not -0
			}
			return v
		}
		s += fmt.Sprintf("; its database grew %.2f KB a %s, pgbench's %.2f KB a transaction", kb(median(wg)), op, kb(median(pg)))
	}
	return s
}

// fmtFloats is vs as words, with prec decimals.
func fmtFloats(vs []float64, prec int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.FormatFloat(v, 'f', prec, 64)
	}
	return strings.Join(s, ", ")
}

// pairRatios is the median of ours[i]/ref[i], each run of ours against
// the pgbench run just before it, with the ratios as words. The runs
// alternate, so a pair shares the machine's phase, which moves both by up
// to a half within minutes (bench/NOTES.md); the ratio of the two
// series' medians can set a fast phase's pgbench against a slow phase's
// run, and is shown beside it.
func pairRatios(ours, ref []float64) (float64, string) {
	rs := ratios(ours, ref)
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = fmt.Sprintf("%.2f", r)
	}
	return median(rs), fmt.Sprintf("median of the alternated pairs' ratios %s; the medians' ratio %.2f", strings.Join(s, ", "), median(ours)/median(ref))
}

// ratios is ours[i]/ref[i] for each run.
func ratios(ours, ref []float64) []float64 {
	rs := make([]float64, len(ours))
	for i := range ours {
		rs[i] = ours[i] / ref[i]
	}
	return rs
}

// clusterCPU is the CPU time so far of the cluster whose data directory
// is dataDir: its postmaster's own and its children's, those that ended
// (the postmaster waits for each backend; the kernel adds theirs to its
// cutime and cstime) and those still running. pgbench's backends end with
// it, so postgresCPU, which reads the running ones, cannot count them.
func clusterCPU(dataDir string) time.Duration {
	pidFile, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _, _ := strings.Cut(string(pidFile), "\n")
	ticks := procTicks(procStat(pid), true)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if f := procStat(e.Name()); len(f) > 1 && f[1] == pid {
			ticks += procTicks(f, false)
		}
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// procStat is process pid's /proc stat fields after its command's closing
// parenthesis (proc(5)'s third field on), or nil.
func procStat(pid string) []string {
	st, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return nil
	}
	s := string(st)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// procTicks is the utime and stime in clock ticks of a process's stat
// fields (procStat), with its ended children's (cutime, cstime) when
// children is true; 0 when they are missing.
func procTicks(f []string, children bool) int64 {
	if len(f) < 15 {
		return 0
	}
	var t int64
	fields := []int{11, 12}
	if children {
		fields = append(fields, 13, 14)
	}
	for _, i := range fields {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		t += v
	}
	return t
}

// dbNameOf is the database a postgres:// URL names.
func dbNameOf(url string) string {
	name := url[strings.LastIndex(url, "/")+1:]
	name, _, _ = strings.Cut(name, "?")
	return name
}

// postgresCPU is the CPU time (user and system) of the Postgres backends
// connected to database db so far, from /proc: a backend's command line
// names its database ("postgres: user db host(port) state"). The
// server's own processes (the WAL writer, the checkpointer) are not
// counted; their work is the cluster's, not one row's.
func postgresCPU(db string) time.Duration {
	ents, _ := os.ReadDir("/proc")
	var ticks int64
	for _, e := range ents {
		cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if !strings.HasPrefix(string(cl), "postgres: ") || !strings.Contains(string(cl), " "+db+" ") {
			continue
		}
		ticks += procTicks(procStat(e.Name()), false)
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// clockTicks is the kernel's USER_HZ, the unit of /proc's CPU times: 100
// on every Linux this runs on.
const clockTicks = 100

func TestSteadinessRow(t *testing.T) {
	run := func(tps float64, client, pg time.Duration) pgbenchRun {
		return pgbenchRun{tps, pgbenchCPU{client: client, postgres: pg}}
	}
	off := []pgbenchRun{run(3000, 100*time.Microsecond, 500*time.Microsecond), run(2500, 100*time.Microsecond, 650*time.Microsecond)}
	durable := []pgbenchRun{run(1800, 150*time.Microsecond, 750*time.Microsecond), run(900, 200*time.Microsecond, 0)}
	_, ours, ref, _ := steadinessRow(off, durable)
	if want := "×1.25 / -"; ours != want {
		t.Errorf("spreads %q, want %q", ours, want)
	}
	if want := "2500-3000 tps / 900-1800 tps; CPU a transaction (pgbench and the cluster) 0.600-0.750 ms / not read"; ref != want {
		t.Errorf("ranges:\n got %s\nwant %s", ref, want)
	}
	if m, ours, ref, _ := steadinessRow(nil, nil); ours != "- / -" || ref != "- / -; CPU a transaction (pgbench and the cluster) - / -" || !strings.Contains(m, "(0 / 0 runs)") {
		t.Errorf("no runs: %q %q %q", m, ours, ref)
	}
}

func TestWALAgainst(t *testing.T) {
	ours := []cpuSplit{{wal: walUse{7 * 1024, 0.1, 5 * 1024}}, {wal: walUse{8 * 1024, 0.3, 4.5 * 1024}}, {wal: walUse{9 * 1024, 0.2, 4 * 1024}}}
	theirs := []pgbenchCPU{{wal: walUse{512, 0.4, 100}}, {wal: walUse{1024, 0.5, 110}}, {wal: walUse{768, 0.6, 90}}}
	shrunk := []pgbenchCPU{{wal: walUse{512, 0.4, -3}}, {wal: walUse{1024, 0.5, -2}}, {wal: walUse{768, 0.6, 0}}}
	if got := walAgainst(ours, shrunk, "send"); !strings.HasSuffix(got, "pgbench's 0.00 KB a transaction") {
		t.Errorf("walAgainst, pgbench's database a few bytes smaller: %s", got)
	}
	wal := "; WAL a send 8.00 KB, 0.200 full-page images (the runs' 0.100, 0.300, 0.200), against pgbench's 0.75 KB, 0.500 (0.400, 0.500, 0.600)"
	want := wal + "; its database grew 4.50 KB a send, pgbench's 0.10 KB a transaction"
	if got := walAgainst(ours, theirs, "send"); got != want {
		t.Errorf("walAgainst:\n got %s\nwant %s", got, want)
	}
	// A database that did not grow (or whose size was not read) leaves
	// the growth out, the WAL in.
	for i := range ours {
		ours[i].wal.grown = 0
	}
	if got := walAgainst(ours, theirs, "send"); got != wal {
		t.Errorf("walAgainst without sizes:\n got %s\nwant %s", got, wal)
	}
	if got := walAgainst(nil, theirs, "send"); got != "" {
		t.Errorf("walAgainst without our WAL: %q, want none", got)
	}
}

func TestMachineBusy(t *testing.T) {
	// /proc/stat's first line: user nice system idle iowait irq softirq
	// steal guest guest_nice; guest is in user already.
	before := parseMachine("cpu  100 0 50 800 50 0 0 0 40 0\ncpu0 50 0 25 400 25 0 0 0 20 0\n")
	after := parseMachine("cpu  250 10 100 900 70 5 5 10 90 0\ncpu0 1 2 3 4 5 6 7 8 9 0\n")
	if want := (machineTicks{busy: 150, all: 1000}); before != want {
		t.Fatalf("parseMachine = %+v, want %+v", before, want)
	}
	// busy 380-150 = 230 of 1350-1000 = 350 ticks.
	if got := after.busySince(before); got < 0.657 || got > 0.658 {
		t.Errorf("busySince = %.4f, want 230/350", got)
	}
	for _, bad := range []string{"", "intr 1 2 3\n", "cpu 1 2 3\n", "cpu 1 2 x 4 5 6 7 8\n"} {
		if m := parseMachine(bad); m != (machineTicks{}) {
			t.Errorf("parseMachine(%q) = %+v, want zeros", bad, m)
		}
	}
	if got := before.busySince(machineTicks{}); got != 0 {
		t.Errorf("busySince an unread start = %v, want 0", got)
	}
	if got := before.busySince(before); got != 0 {
		t.Errorf("busySince no time = %v, want 0", got)
	}

	ours := []cpuSplit{{busy: 0.79}, {busy: 0.75}, {busy: 0.81}}
	theirs := []pgbenchCPU{{busy: 0.91}, {busy: 0.9}, {busy: 0.926}}
	want := "; the machine busy 79% of our runs, 91% of pgbench's (medians; the runs' 79%, 75%, 81% against 91%, 90%, 93%)"
	if got := busyAgainst(ours, theirs); got != want {
		t.Errorf("busyAgainst:\n got %s\nwant %s", got, want)
	}
	theirs[1].busy = 0 // not read: no figure rather than a wrong one
	if got := busyAgainst(ours, theirs); got != "" {
		t.Errorf("busyAgainst with a share unread: %q, want none", got)
	}
}
