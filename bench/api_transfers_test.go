package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/store/pgtest"
)

// apiRun is how long one throughput run lasts; apiRuns runs of each client
// count give the median, interleaved with pgbench runs of as many clients
// so both see the same share of the shared machine.
const (
	apiRun     = 5 * time.Second
	apiRuns    = 3
	apiLatency = 5 * time.Second
	apiParties = 128
)

// BenchmarkAPITransfers: one-step preapproved transfers per second through
// the JSON API (POST /v0/wallet/transfer-preapproval/send with a
// deduplication id, real JWTs, loopback HTTP, the full router) with 8 and
// 32 closed-loop clients on Postgres, beside pgbench TPC-B with as many
// clients on the same private cluster in the same run; then p50/p99
// latency at a fixed open-loop arrival rate of half the measured maximum.
func BenchmarkAPITransfers(b *testing.B) {
	ctx := context.Background()
	c := ledgertest.Cluster(b)
	pgURL, pgbench := pgbenchOn(b, c)

	e := newHTTPEnv(b)
	g := newSendLoad(b, e, apiParties)
	// pgbench -i vacuums and analyzes its tables; ours get the same, as
	// autovacuum gives a production database, before the warm-up.
	if _, err := e.db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		// Warm up connections, their prepared statements and caches.
		g.closedLoop(8, 2*time.Second)
		g.closedLoop(32, 2*time.Second)
		ours := map[int][]float64{}
		pg := map[int][]float64{}
		// CPU per send (Go process, Postgres) of each run, keyed by
		// client count; 0 stands for the open-loop latency runs.
		cpu := map[int][]sendCPU{}
		for range apiRuns {
			for _, clients := range []int{8, 32} {
				pg[clients] = append(pg[clients], pgbench(clients))
				m := g.startCPU()
				ours[clients] = append(ours[clients], g.closedLoop(clients, apiRun))
				cpu[clients] = append(cpu[clients], m.perSend())
			}
		}
		maxRate := 0.0
		for _, clients := range []int{8, 32} {
			o, p := median(ours[clients]), median(pg[clients])
			maxRate = max(maxRate, o)
			b.ReportMetric(o, fmt.Sprintf("transfers/s-%dc", clients))
			b.ReportMetric(p, fmt.Sprintf("pgbench-tps-%dc", clients))
			row(fmt.Sprintf("One-step transfers via JSON API, Postgres, %d clients (transfers/s, median of %d × %s)", clients, apiRuns, apiRun),
				fmt.Sprintf("%.0f", o), fmt.Sprintf("pgbench TPC-B %d clients: %.0f tps", clients, p),
				fmt.Sprintf("ratio %.2f (aim ≥ 0.5); runs %s", o/p, fmtRates(ours[clients])))
		}

		// pgbench vacuums its tables before each run; ours get the same
		// before the latency runs, after the throughput runs' churn, and
		// pgbench's accounts too, so their autovacuum does not run during
		// ours.
		if _, err := e.db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
			b.Fatal(err)
		}
		if out, err := c.Command(ctx, "psql", "-q", "-c", "VACUUM ANALYZE", pgURL).CombinedOutput(); err != nil {
			b.Fatalf("vacuum pgbench tables: %v\n%s", err, out)
		}
		rate := maxRate / 2
		var p50s, p99s []float64
		sent, failed := 0, 0
		var served []string
		for range apiRuns {
			m := g.startCPU()
			lat, f, took := g.openLoop(rate, apiLatency)
			cpu[0] = append(cpu[0], m.perSend())
			p50s = append(p50s, float64(quantile(lat, 0.50)))
			p99s = append(p99s, float64(quantile(lat, 0.99)))
			sent, failed = sent+len(lat)+f, failed+f
			served = append(served, fmt.Sprintf("%.0f/s", float64(len(lat))/took.Seconds()))
		}
		p50, p99 := time.Duration(median(p50s)), time.Duration(median(p99s))
		b.ReportMetric(float64(p50)/1e6, "p50-ms")
		b.ReportMetric(float64(p99)/1e6, "p99-ms")
		p99runs := make([]string, len(p99s))
		for i, x := range p99s {
			p99runs[i] = ms(time.Duration(x))
		}
		row(fmt.Sprintf("One-step transfer latency via JSON API at half the max rate (%.0f/s open loop, median of %d × %s), p50 / p99", rate, apiRuns, apiLatency),
			ms(p50)+" / "+ms(p99), "", fmt.Sprintf("aim p99 < 20 ms; p99 of the runs %s; %d sent, %d failed; served %s",
				strings.Join(p99runs, ", "), sent, failed, strings.Join(served, ", ")))
		setAim(func() {
			for _, clients := range []int{8, 32} {
				aims.inProcess[clients] = medianCPUOf(cpu[clients], false)
			}
		})
		row("CPU per one-step send: 8 clients / 32 clients closed loop / open loop at half the max rate (median of 3 runs each)",
			fmt.Sprintf("Go %s / %s / %s; Postgres %s / %s / %s", medianCPU(cpu[8], false), medianCPU(cpu[32], false), medianCPU(cpu[0], false),
				medianCPU(cpu[8], true), medianCPU(cpu[32], true), medianCPU(cpu[0], true)),
			"", "steadier than the rates when comparing changes; the Go process includes the load generator, Postgres is every postgres process on the machine")

		// The same closed-loop runs with production durability: the
		// private cluster runs without fsync (fast tests), operators with
		// it, and a commit then waits for the disk, which grouping sends
		// into one transaction shares among them.
		if err := durable(ctx, c, e, true); err != nil {
			row("One-step transfers via JSON API, Postgres with fsync and synchronous_commit on", "-", "", "not measured: "+err.Error())
			continue
		}
		dOurs := map[int][]float64{}
		dPg := map[int][]float64{}
		g.closedLoop(8, 2*time.Second)
		for range apiRuns {
			for _, clients := range []int{8, 32} {
				dPg[clients] = append(dPg[clients], pgbench(clients))
				dOurs[clients] = append(dOurs[clients], g.closedLoop(clients, apiRun))
			}
		}
		if err := durable(ctx, c, e, false); err != nil {
			b.Fatal(err)
		}
		for _, clients := range []int{8, 32} {
			o, p := median(dOurs[clients]), median(dPg[clients])
			b.ReportMetric(o, fmt.Sprintf("durable-transfers/s-%dc", clients))
			b.ReportMetric(p, fmt.Sprintf("durable-pgbench-tps-%dc", clients))
			row(fmt.Sprintf("One-step transfers via JSON API, Postgres with fsync and synchronous_commit on, %d clients (transfers/s, median of %d × %s)", clients, apiRuns, apiRun),
				fmt.Sprintf("%.0f", o), fmt.Sprintf("pgbench TPC-B %d clients, same settings: %.0f tps", clients, p),
				fmt.Sprintf("ratio %.2f (aim ≥ 0.5); runs %s", o/p, fmtRates(dOurs[clients])))
		}
	}
	if n := g.failed.Load(); n > 0 {
		b.Logf("%d sends failed; first: %s", n, g.firstErr())
	}
}

// pgbenchOn makes a database of pgbench's tables (scale 10) on c, dropped
// when b ends, and returns its URL and a run of pgbench TPC-B on it with
// clients for apiRun, in tps.
func pgbenchOn(b *testing.B, c *pgtest.Cluster) (string, func(clients int) float64) {
	ctx := context.Background()
	pgURL, drop, err := c.CloneDB(ctx, "template1")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { drop() })
	if out, err := c.Command(ctx, "pgbench", "-i", "-q", "-s", "10", pgURL).CombinedOutput(); err != nil {
		b.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	return pgURL, func(clients int) float64 {
		out, err := c.Command(ctx, "pgbench", "-c", strconv.Itoa(clients), "-j", "2", "-T", strconv.Itoa(int(apiRun.Seconds())), pgURL).CombinedOutput()
		if err != nil {
			b.Fatalf("pgbench: %v\n%s", err, out)
		}
		return parseTPS(string(out))
	}
}

// sendCPU is the CPU time per send of one run: this process's (server and
// load generator) and Postgres's.
type sendCPU struct{ goCPU, pgCPU time.Duration }

// cpuMark is the CPU used so far (this process's, and each postgres
// process's by pid) and the sends sent so far, at a run's start.
type cpuMark struct {
	g          *sendLoad
	self       time.Duration
	pg         map[string]time.Duration
	sendsSoFar int64
}

func (g *sendLoad) startCPU() cpuMark {
	self, pg := cpuNow()
	return cpuMark{g: g, self: self, pg: pg, sendsSoFar: g.seq.Load()}
}

// perSend is the CPU used since m, per send sent since m. A postgres
// process counts for what it used since m, or since it started; one that
// ended meanwhile (pgbench's connections closing, an autovacuum worker)
// is missed.
func (m cpuMark) perSend() sendCPU {
	self, pg := cpuNow()
	var pgUsed time.Duration
	for pid, t := range pg {
		pgUsed += t - m.pg[pid]
	}
	n := time.Duration(max(1, m.g.seq.Load()-m.sendsSoFar))
	return sendCPU{goCPU: (self - m.self) / n, pgCPU: pgUsed / n}
}

func medianCPU(xs []sendCPU, pg bool) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f ms", float64(medianCPUOf(xs, pg))/1e6)
}

// medianCPUOf is the median of xs' Go process CPU per send, or Postgres's
// when pg; xs holds at least one run.
func medianCPUOf(xs []sendCPU, pg bool) time.Duration {
	fs := make([]float64, len(xs))
	for i, x := range xs {
		fs[i] = float64(x.goCPU)
		if pg {
			fs[i] = float64(x.pgCPU)
		}
	}
	return time.Duration(median(fs))
}

// cpuNow is the CPU time (user and system) used so far by this process
// and by each process named postgres on the machine (during make bench:
// the private cluster's server processes), by pid, from /proc. It counts
// in clock ticks of 10 ms (USER_HZ is 100 on Linux), so runs of seconds
// are needed.
func cpuNow() (self time.Duration, pg map[string]time.Duration) {
	ticks := func(stat string) time.Duration {
		// Fields after the command name, which is in parentheses and may
		// hold spaces: utime and stime are the 12th and 13th.
		f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
		if len(f) < 13 {
			return 0
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		return time.Duration(u+s) * 10 * time.Millisecond
	}
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		self = ticks(string(b))
	}
	pg = map[string]time.Duration{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil || !strings.Contains(string(b), "(postgres)") {
			continue
		}
		pg[e.Name()] = ticks(string(b))
	}
	return self, pg
}

func fmtRates(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(s, ", ")
}

// sendLoad is the load generator: senders with coin and a token each,
// receivers with preapprovals, and a counter for unique deduplication ids.
// Senders never receive, so each keeps a few large holdings (its change),
// as the merge automation keeps a steady wallet; the receivers' holdings
// pile up instead, which no send reads.
type sendLoad struct {
	b         testing.TB
	e         *httpEnv
	senders   []coin.PartyID
	tokens    []string
	receivers []coin.PartyID
	seq       atomic.Int64
	failed    atomic.Int64

	mu    sync.Mutex
	first string
}

func newSendLoad(b testing.TB, e *httpEnv, parties int) *sendLoad {
	ctx := context.Background()
	g := &sendLoad{b: b, e: e}
	for i := range parties {
		name := fmt.Sprintf("sender-%03d", i)
		p, err := users.Of(e.l).Onboard(ctx, name, "")
		if err != nil {
			b.Fatal(err)
		}
		// Three holdings, as a wallet might have, large enough for every
		// run of the benchmark, the durable ones included (about 2,500
		// sends of 1.5 CC per sender in all).
		if err := ledgertest.Dev(b, e.l).MintBulk(ctx, p, []coin.Amount{coin.MustParse("10000"), coin.MustParse("10000"), coin.MustParse("10000")}); err != nil {
			b.Fatal(err)
		}
		g.senders = append(g.senders, p)
		g.tokens = append(g.tokens, e.token(name))

		r, err := users.Of(e.l).Onboard(ctx, fmt.Sprintf("receiver-%03d", i), "")
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := e.l.Preapprovals().Create(ctx, r); err != nil {
			b.Fatal(err)
		}
		g.receivers = append(g.receivers, r)
	}
	return g
}

// sendConn is one load-generator client's keep-alive connection to the
// server. It writes each request itself and reads the answer with
// net/http's own response parser, as wrk does, instead of going through
// http.Client, whose transport hands every request to two goroutines of
// its own (a read and a write loop) and a connection pool: 15% of this
// process's CPU with 8 clients, paid on the cores the server measures
// (pgbench's client is a thin C loop). The server side is the same.
type sendConn struct {
	conn net.Conn
	br   *bufio.Reader
	buf  []byte
}

func (sc *sendConn) close() {
	if sc.conn != nil {
		sc.conn.Close()
		sc.conn = nil
	}
}

// send posts one preapproved transfer from sender s to receiver r on sc
// and reports whether it was accepted (200). A connection that fails is
// closed and the next send dials again.
func (g *sendLoad) send(sc *sendConn, s, r int) bool {
	status, resp, err := g.post(sc, s, r)
	if err == nil && status == http.StatusOK {
		return true
	}
	sc.close()
	g.failed.Add(1)
	g.mu.Lock()
	if g.first == "" {
		g.first = fmt.Sprintf("status %d, %v: %s", status, err, resp)
	}
	g.mu.Unlock()
	return false
}

func (g *sendLoad) post(sc *sendConn, s, r int) (int, []byte, error) {
	if sc.conn == nil {
		c, err := net.Dial("tcp", g.e.srv.Listener.Addr().String())
		if err != nil {
			return 0, nil, err
		}
		sc.conn, sc.br = c, bufio.NewReader(c)
	}
	body := fmt.Sprintf(`{"receiver_party_id":%q,"amount":"1.5","deduplication_id":"bench-%d"}`, g.receivers[r], g.seq.Add(1))
	// The headers http.Client sends, so the server's work is the same
	// (Accept-Encoding brings in its compression wrapper).
	sc.buf = fmt.Appendf(sc.buf[:0], "POST /v0/wallet/transfer-preapproval/send HTTP/1.1\r\nHost: %s\r\n"+
		"User-Agent: Go-http-client/1.1\r\nAccept-Encoding: gzip\r\n"+
		"Authorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		g.e.srv.Listener.Addr(), g.tokens[s], len(body), body)
	if _, err := sc.conn.Write(sc.buf); err != nil {
		return 0, nil, err
	}
	resp, err := http.ReadResponse(sc.br, nil)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.Close {
		err = errors.New("the server closed the connection")
	}
	return resp.StatusCode, b, err
}

func (g *sendLoad) firstErr() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.first
}

// closedLoop runs clients that each send as fast as answers come back for
// d; each client sends from its own senders (a wallet's users act for
// themselves) to any receiver. It returns accepted transfers per second.
func (g *sendLoad) closedLoop(clients int, d time.Duration) float64 {
	n := len(g.senders)
	return closedLoop(clients, d, func(c int) (func(i int) bool, func()) {
		rng := rand.New(rand.NewPCG(uint64(c), uint64(g.seq.Load())))
		var sc sendConn
		return func(i int) bool { return g.send(&sc, c+clients*(i%(n/clients)), rng.IntN(n)) }, sc.close
	})
}

// closedLoop runs clients, each calling its step (client returns it and
// what to do when done) as fast as it returns for d, and returns the
// steps that succeeded per second.
func closedLoop(clients int, d time.Duration, client func(c int) (step func(i int) bool, done func())) float64 {
	var ok atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	deadline := t0.Add(d)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			step, done := client(c)
			defer done()
			for i := 0; time.Now().Before(deadline); i++ {
				if step(i) {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(ok.Load()) / time.Since(t0).Seconds()
}

// openLoop sends at a fixed arrival rate for d, whatever the answers'
// pace, and returns the sorted latencies of the accepted sends, each from
// its scheduled start (so a stalled server is not hidden by sending
// less), the number that failed, and the time until the last answer
// (longer than d when the server fell behind).
func (g *sendLoad) openLoop(rate float64, d time.Duration) ([]time.Duration, int, time.Duration) {
	n := len(g.senders)
	total := int(rate * d.Seconds())
	interval := time.Duration(float64(time.Second) / rate)
	lat := make([]time.Duration, total)
	okAt := make([]bool, total)
	var wg sync.WaitGroup
	start := time.Now()
	// Each send goes to an idle client goroutine, or to a new one when
	// none is idle, so none waits; the clients stay for the next sends
	// rather than each send starting a goroutine whose stack grows
	// through the HTTP client's calls (a twentieth of this process's CPU).
	type job struct {
		i  int
		at time.Time
	}
	jobs := make(chan job)
	client := func(j job) {
		var sc sendConn
		defer sc.close()
		for {
			okAt[j.i] = g.send(&sc, j.i%n, (j.i*7919)%n)
			lat[j.i] = time.Since(j.at)
			wg.Done()
			var ok bool
			if j, ok = <-jobs; !ok {
				return
			}
		}
	}
	for i := range total {
		at := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(at))
		wg.Add(1)
		select {
		case jobs <- job{i, at}:
		default:
			go client(job{i, at})
		}
	}
	wg.Wait()
	close(jobs)
	took := time.Since(start)
	var out []time.Duration
	failed := 0
	for i := range total {
		if okAt[i] {
			out = append(out, lat[i])
		} else {
			failed++
		}
	}
	slices.Sort(out)
	return out, failed, took
}

// durable restarts the cluster with its durability settings on (fsync,
// synchronous_commit, full_page_writes, as a production server runs) or
// back to the test cluster's; the server's command line sets them, which
// ALTER SYSTEM cannot override. The wallet's pool loses its connections
// and makes new ones; the warm-up run after it absorbs that.
func durable(ctx context.Context, c *pgtest.Cluster, e *httpEnv, on bool) error {
	return restartDurable(ctx, c, on, func() (string, error) {
		var got string
		err := e.db.QueryRowContext(ctx, "SHOW fsync").Scan(&got)
		return got, err
	})
}

// restartDurable restarts c with durability on or off, waits until
// show (SHOW fsync on the database under test) reads it back, and warms
// the cluster's WAL (warmWAL).
func restartDurable(ctx context.Context, c *pgtest.Cluster, on bool, show func() (string, error)) error {
	if err := c.StopServer(); err != nil {
		return err
	}
	c.SetDurable(on)
	if err := c.StartServer(ctx); err != nil {
		return err
	}
	want := map[bool]string{true: "on", false: "off"}[on]
	for range 100 {
		if got, err := show(); err == nil && got == want {
			return warmWAL(ctx, c)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("fsync did not become %s after the restart", want)
}

// warmWAL leaves the cluster the WAL segments a server that has run a
// while has. A fresh cluster creates each 16 MB segment when its WAL first
// reaches it, zero-filled and synced inside the commit that got there; a
// running one renames segments a checkpoint has passed and writes over
// them. A one-step send writes about 6.65 KB of WAL, so at 3,500 sends/s
// a fresh cluster held every commit for 23-31 ms every 0.7 s (scratch
// rows: p99 10.1-11.5 ms cold against 6.8-9.4 warm; bench/NOTES.md).
// 1 GB of WAL messages and a checkpoint, on the cluster's own database
// (the WAL is the cluster's), leave segments to reuse for pgbench and the
// wallet alike, as a server in steady state has. BENCH_COLD_WAL=1 skips
// it, to measure the difference.
func warmWAL(ctx context.Context, c *pgtest.Cluster) error {
	if os.Getenv("BENCH_COLD_WAL") != "" {
		return nil
	}
	out, err := c.Command(ctx, "psql", "-q", "-v", "ON_ERROR_STOP=1",
		"-c", `SELECT count(pg_logical_emit_message(false, 'bench-warm-wal', repeat('x', 1048576))) FROM generate_series(1, 1024)`,
		"-c", "CHECKPOINT", c.URL("postgres")).CombinedOutput()
	if err != nil {
		return fmt.Errorf("warm the WAL: %w\n%s", err, out)
	}
	return nil
}
