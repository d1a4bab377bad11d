package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store/pgtest"
)

// BenchmarkCompare measures a change before it lands: it alternates
// prebuilt wallet binaries on one cluster, each serving a database of its
// own, and runs every run of each right after a pgbench run of as many
// clients, so each run is read against the machine's phase of that
// moment (bench/NOTES.md: the phase moves every rate by up to a factor of
// two, and every process's CPU an operation with it). It runs only when
// COMPARE_BINS names the binaries:
//
//	COMPARE_BINS=/tmp/before,/tmp/after  ccwallet binaries, in that order
//	COMPARE_MODE=send|ledgerapi|sdk      bench/loadgen's load (send)
//	COMPARE_CLIENTS=8                    closed-loop clients
//	COMPARE_RUNS=4 COMPARE_RUN=6s        alternated rounds, each run's length
//	COMPARE_DURABLE=1                    production durability (fsync off without)
//	LOADGEN_BIN, BENCH_PPROF             a prebuilt loadgen; a CPU profile of each run
//	COMPARE_LOADGEN_ARGS=";-completions ws"   more loadgen arguments for each
//	                                     binary's runs, by ";" in COMPARE_BINS' order
//	                                     (the same binary twice compares two loads)
//	COMPARE_PGSS=12                      after each run, the WAL an operation wrote
//	                                     and that many statements that took Postgres
//	                                     the most time, an operation each
//	                                     (pg_stat_statements, loaded for the run)
//
// It prints a line per run and, at the end, each binary's medians: the
// ratio to the pgbench run before each of its runs, the p99, the CPU an
// operation of the wallet, the load generator and the database's
// backends, the wallet's CPU over Postgres's (steadier than either across
// phases), and for sends the batches' size and time and a send's wait.
func BenchmarkCompare(b *testing.B) {
	if os.Getenv("COMPARE_BINS") == "" {
		b.Skip("COMPARE_BINS names no binaries to compare")
	}
	bins := strings.Split(os.Getenv("COMPARE_BINS"), ",")
	for _, bin := range bins {
		if st, err := os.Stat(bin); err != nil || st.IsDir() {
			b.Fatalf("COMPARE_BINS: %q is not a ccwallet binary", bin)
		}
	}
	mode := envOr("COMPARE_MODE", "send")
	if mode != "send" && mode != "ledgerapi" && mode != "sdk" {
		b.Fatalf("COMPARE_MODE %q: want send, ledgerapi or sdk", mode)
	}
	clients, err := strconv.Atoi(envOr("COMPARE_CLIENTS", "8"))
	if err != nil || clients < 1 {
		b.Fatalf("COMPARE_CLIENTS %q: want a positive number", os.Getenv("COMPARE_CLIENTS"))
	}
	rounds, err := strconv.Atoi(envOr("COMPARE_RUNS", "4"))
	if err != nil || rounds < 1 {
		b.Fatalf("COMPARE_RUNS %q: want a positive number", os.Getenv("COMPARE_RUNS"))
	}
	run, err := time.ParseDuration(envOr("COMPARE_RUN", "6s"))
	if err != nil || run < 2*time.Second {
		b.Fatalf("COMPARE_RUN %q: want a duration of 2s or more", os.Getenv("COMPARE_RUN"))
	}
	durable := os.Getenv("COMPARE_DURABLE") == "1"
	extra := make([][]string, len(bins))
	if v := os.Getenv("COMPARE_LOADGEN_ARGS"); v != "" {
		for i, a := range strings.Split(v, ";") {
			if i >= len(bins) {
				b.Fatalf("COMPARE_LOADGEN_ARGS %q: more than COMPARE_BINS' %d binaries", v, len(bins))
			}
			extra[i] = strings.Fields(a)
		}
	}
	loadgen := binary(b, "LOADGEN_BIN", "./loadgen")

	ctx := context.Background()
	c := ledgertest.Cluster(b)
	pgURL, _ := pgbenchOn(b, c)
	pgss, _ := strconv.Atoi(os.Getenv("COMPARE_PGSS"))
	if pgss > 0 {
		// Loaded at the restart setDurable makes; the cluster's data
		// directory is a copy of its own, so nothing outlives the run.
		if out, err := c.Command(ctx, "psql", "-q", "-c", "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'", pgURL).CombinedOutput(); err != nil {
			b.Fatalf("pg_stat_statements: %v\n%s", err, out)
		}
	}
	// Durability is the cluster's: set before the wallets connect.
	if err := setDurable(ctx, c, pgURL, durable); err != nil {
		b.Fatal(err)
	}
	type served struct {
		w     *walletProc
		state string
		db    string
		extra []string
	}
	var ws []served
	for i, bin := range bins {
		dbURL, drop, err := c.CloneDB(ctx, "template1")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { drop() })
		w, _ := startWallet(b, bin, dbURL)
		defer w.stop(b)
		state := filepath.Join(b.TempDir(), "state.json")
		setup := [][]string{{"setup", "-app", "http://" + w.app, "-parties", strconv.Itoa(apiParties), "-out", state}}
		if mode == "sdk" {
			setup = append(setup, []string{"sdksetup", "-state", state, "-ledger-api", "http://" + w.lapi})
		}
		for _, args := range setup {
			if out, err := exec.Command(loadgen, args...).CombinedOutput(); err != nil {
				b.Fatalf("loadgen %s for %s: %v\n%s\n%s", args[0], bin, err, out, w.logTail())
			}
		}
		if out, err := c.Command(ctx, "psql", "-q", "-c", "VACUUM ANALYZE", dbURL).CombinedOutput(); err != nil {
			b.Fatalf("vacuum: %v\n%s", err, out)
		}
		if pgss > 0 {
			if out, err := c.Command(ctx, "psql", "-q", "-c", "CREATE EXTENSION IF NOT EXISTS pg_stat_statements", dbURL).CombinedOutput(); err != nil {
				b.Fatalf("pg_stat_statements: %v\n%s", err, out)
			}
		}
		ws = append(ws, served{w, state, dbURL, extra[i]})
		fmt.Printf("binary %d: %s %s(database %s)\n", i, bin, strings.Join(append(extra[i], ""), " "), dbNameOf(dbURL))
	}

	seq := 0
	load := func(s served, d time.Duration, tag string) (loadResult, batchStats) {
		seq++
		args := []string{mode, "-state", s.state, "-clients", strconv.Itoa(clients), "-duration", d.String(), "-prefix", fmt.Sprintf("c%d", seq)}
		if mode != "send" {
			args = append(args, "-ledger-api", "http://"+s.w.lapi)
		}
		args = append(args, s.extra...)
		if pgss > 0 {
			c.Command(ctx, "psql", "-q", "-c", "SELECT pg_stat_statements_reset(), pg_stat_reset_shared('wal')", s.db).Run()
		}
		r, sp0, sp1 := runLoad(b, loadgen, s.w, c, dbNameOf(s.db), args, fmt.Sprintf("%s-%d.pprof", tag, seq), d)
		if pgss > 0 {
			printStatements(ctx, b, c, s.db, pgss, max(1, r.OK))
		}
		return r, batchesBetween(sp0, sp1)
	}
	pgbench := func() (tps, busy float64) {
		m0 := readMachine()
		out, err := c.Command(ctx, "pgbench", "-c", strconv.Itoa(clients), "-j", "2", "-T", strconv.Itoa(int(run.Seconds())), pgURL).CombinedOutput()
		busy = readMachine().busySince(m0)
		if err != nil {
			b.Fatalf("pgbench: %v\n%s", err, out)
		}
		return parseTPS(string(out)), busy
	}

	// Warm up connections, prepared statements and caches.
	for i, s := range ws {
		load(s, 2*time.Second, fmt.Sprintf("warm%d", i))
	}
	b.ResetTimer()
	results := make([][]compareRun, len(ws))
	for round := range rounds {
		for i, s := range ws {
			tps, pgBusy := pgbench()
			r, bs := load(s, run, fmt.Sprintf("bin%d", i))
			cr := compareRun{r: r, tps: tps, pgBusy: pgBusy, batches: bs}
			results[i] = append(results[i], cr)
			fmt.Printf("round %d binary %d: %s\n", round, i, cr)
		}
	}
	b.StopTimer()
	for i := range ws {
		fmt.Printf("binary %d, medians of %d runs: %s\n", i, rounds, summarize(results[i]))
	}
}

// printStatements prints the n statements of db that took Postgres the
// most time since the last reset, with their calls and time an operation
// (ops operations ran).
func printStatements(ctx context.Context, b *testing.B, c *pgtest.Cluster, db string, n int, ops int64) {
	q := fmt.Sprintf(`SELECT to_char(total_exec_time * 1000 / %[1]d, 'FM999990.0') || ' us/op, ' || to_char(calls::numeric / %[1]d, 'FM9990.00') || ' calls/op, ' ||
  rows || ' rows: ' || left(regexp_replace(query, '\s+', ' ', 'g'), 160)
FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
ORDER BY total_exec_time DESC LIMIT %[2]d`, ops, n)
	out, err := c.Command(ctx, "psql", "-tA", "-c", q, db).CombinedOutput()
	if err != nil {
		b.Fatalf("pg_stat_statements: %v\n%s", err, out)
	}
	wal, err := c.Command(ctx, "psql", "-tA", "-c", fmt.Sprintf("SELECT wal_records / %[1]d || ' records, ' || round(wal_bytes / %[1]d) || ' bytes, ' || to_char(wal_fpi::numeric / %[1]d, 'FM990.00') || ' full pages' FROM pg_stat_wal", ops), db).CombinedOutput()
	if err != nil {
		b.Fatalf("pg_stat_wal: %v\n%s", err, wal)
	}
	fmt.Printf("WAL an operation (the cluster's): %sstatements by Postgres's time, an operation:\n%s", wal, out)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// batchStats are a run's send batches from the wallet's /metrics: how
// many, the sends they held, their mean time and a send's mean wait for
// a worker (ledger/sendspans.go). All zero where no send was batched.
type batchStats struct {
	batches, sends, batchMs, waitMs float64
}

func batchesBetween(before, after sendSpans) batchStats {
	bSum, batches := after.since(before, "batch")
	wSum, sends := after.since(before, "wait")
	if batches == 0 || sends == 0 {
		return batchStats{}
	}
	return batchStats{batches: batches, sends: sends, batchMs: bSum / batches * 1000, waitMs: wSum / sends * 1000}
}

// compareRun is one run of a binary and the pgbench run before it.
type compareRun struct {
	r       loadResult
	tps     float64
	pgBusy  float64 // the machine's busy share during the pgbench run
	batches batchStats
}

func (c compareRun) ratio() float64 { return c.r.Rate / c.tps }

// busyRead says both runs' busy shares were read (busySince: 0 if not).
func (c compareRun) busyRead() bool { return c.r.split.busy > 0 && c.pgBusy > 0 }

func (c compareRun) String() string {
	s := fmt.Sprintf("%.0f/s against pgbench's %.0f: ratio %.3f, p99 %.2f ms, CPU an operation wallet %.3f, loadgen %.3f, Postgres %.3f ms, failed %d",
		c.r.Rate, c.tps, c.ratio(), c.r.P99ms, msOf(c.r.split.wallet), msOf(c.r.split.loadgen), msOf(c.r.split.postgres), c.r.Failed)
	if c.busyRead() {
		s += fmt.Sprintf("; machine busy %.0f%% (pgbench's %.0f%%)", 100*c.r.split.busy, 100*c.pgBusy)
	}
	if bs := c.batches; bs.batches > 0 {
		s += fmt.Sprintf("; %.2f sends a batch, batch %.2f ms, wait %.2f ms", bs.sends/bs.batches, bs.batchMs, bs.waitMs)
	}
	return s
}

func summarize(runs []compareRun) string {
	var ratio, p99, wallet, loadgen, pg, walletOverPG, perBatch, busy, pgBusy []float64
	for _, c := range runs {
		if c.busyRead() {
			busy, pgBusy = append(busy, c.r.split.busy), append(pgBusy, c.pgBusy)
		}
		ratio = append(ratio, c.ratio())
		p99 = append(p99, c.r.P99ms)
		wallet = append(wallet, msOf(c.r.split.wallet))
		loadgen = append(loadgen, msOf(c.r.split.loadgen))
		pg = append(pg, msOf(c.r.split.postgres))
		walletOverPG = append(walletOverPG, float64(c.r.split.wallet)/float64(max(1, c.r.split.postgres)))
		if c.batches.batches > 0 {
			perBatch = append(perBatch, c.batches.sends/c.batches.batches)
		}
	}
	s := fmt.Sprintf("ratio %.3f, p99 %.2f ms, CPU an operation wallet %.3f, loadgen %.3f, Postgres %.3f ms, wallet over Postgres %.3f",
		median(ratio), median(p99), median(wallet), median(loadgen), median(pg), median(walletOverPG))
	if len(perBatch) > 0 {
		s += fmt.Sprintf(", %.2f sends a batch", median(perBatch))
	}
	if len(busy) > 0 {
		s += fmt.Sprintf(", machine busy %.0f%% (pgbench's %.0f%%)", 100*median(busy), 100*median(pgBusy))
	}
	return s
}

func msOf(d time.Duration) float64 { return float64(d) / 1e6 }

// TestCompareSummary checks the figures BenchmarkCompare prints from two
// /metrics snapshots and a binary's runs: a batch's size, time and wait
// per run, and the medians across runs (the upper middle of an even
// count, as median takes it).
func TestCompareSummary(t *testing.T) {
	before := sendSpans{"batch": {1.0, 100}, "wait": {0.5, 300}}
	after := sendSpans{"batch": {1.5, 300}, "wait": {0.8, 900}}
	bs := batchesBetween(before, after)
	if want := (batchStats{batches: 200, sends: 600, batchMs: 2.5, waitMs: 0.5}); !near(bs, want) {
		t.Fatalf("batchesBetween = %+v, want %+v", bs, want)
	}
	if bs := batchesBetween(after, after); bs != (batchStats{}) {
		t.Fatalf("no batches between equal snapshots: got %+v", bs)
	}
	run := func(rate, tps float64, wallet, pg time.Duration, b batchStats, busy, pgBusy float64) compareRun {
		return compareRun{r: loadResult{Rate: rate, P99ms: rate / 100, split: cpuSplit{wallet: wallet, postgres: pg, busy: busy}}, tps: tps, pgBusy: pgBusy, batches: b}
	}
	runs := []compareRun{
		run(1000, 2000, 300*time.Microsecond, 600*time.Microsecond, batchStats{batches: 10, sends: 30}, 0.70, 0.90),
		run(3000, 2000, 200*time.Microsecond, 500*time.Microsecond, batchStats{batches: 10, sends: 20}, 0.80, 0.92),
		run(2000, 2000, 400*time.Microsecond, 400*time.Microsecond, batchStats{}, 0.75, 0),
	}
	got := summarize(runs)
	want := "ratio 1.000, p99 20.00 ms, CPU an operation wallet 0.300, loadgen 0.000, Postgres 0.500 ms, wallet over Postgres 0.500, 3.00 sends a batch, machine busy 80% (pgbench's 92%)"
	if got != want {
		t.Fatalf("summarize:\n got %s\nwant %s", got, want)
	}
	// A run whose pgbench's share was not read is left out of both.
	if got := runs[2].String(); strings.Contains(got, "machine busy") {
		t.Errorf("a run without pgbench's share prints one: %s", got)
	}
	if got := runs[0].String(); !strings.HasSuffix(got, "; machine busy 70% (pgbench's 90%); 3.00 sends a batch, batch 0.00 ms, wait 0.00 ms") {
		t.Errorf("a run's line: %s", got)
	}
}

func near(a, b batchStats) bool {
	eq := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	return eq(a.batches, b.batches) && eq(a.sends, b.sends) && eq(a.batchMs, b.batchMs) && eq(a.waitMs, b.waitMs)
}
