package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

const dashboardFile = "grafana/validator-grafana-dashboards/ccwallet.json"

// metricRE finds the wallet's metric names in a PromQL expression.
var metricRE = regexp.MustCompile(`\b(?:ccwallet|go_sql)_[a-z_]+\b`)

// dashboardMetrics lists every metric name the dashboard's panels query.
func dashboardMetrics(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			found := metricRE.FindAllString(q.Expr, -1)
			if len(found) == 0 {
				t.Errorf("panel %q queries none of the wallet's metrics: %s", p.Title, q.Expr)
			}
			names = append(names, found...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// TestDashboardSendKinds: the send batch panels query the stages a batch
// of one-step sends reports (ledger/sendspans.go; TestSendSpans in
// package ledger holds the ledger to the same names), and no other: a
// kind the ledger does not report is a panel with no data.
func TestDashboardSendKinds(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var queried []string
	for _, m := range regexp.MustCompile(`kind=\\"(send\.[a-z]+)\\"`).FindAllStringSubmatch(string(b), -1) {
		queried = append(queried, m[1])
	}
	for _, m := range regexp.MustCompile(`send\[\.\]\(([a-z|]+)\)`).FindAllStringSubmatch(string(b), -1) {
		for _, k := range strings.Split(m[1], "|") {
			queried = append(queried, "send."+k)
		}
	}
	slices.Sort(queried)
	queried = slices.Compact(queried)
	if want := []string{"send.batch", "send.wait", "send.write"}; !slices.Equal(queried, want) {
		t.Errorf("the dashboard queries the send kinds %v, want %v", queried, want)
	}
}

// TestDashboardIsGenerated: the committed JSON is what the generator
// writes now.
func TestDashboardIsGenerated(t *testing.T) {
	out, err := exec.Command("go", "run", "./grafana/gen").Output()
	if err != nil {
		t.Fatalf("go run ./grafana/gen: %v", err)
	}
	committed, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, committed) {
		t.Fatalf("%s is stale: run go generate ./deploy/grafana/...", dashboardFile)
	}
}

// TestDashboardMetricsExported starts the wallet with metrics on, lets its
// automations run and serves a request, then checks that every metric a
// panel queries is on /metrics.
func TestDashboardMetricsExported(t *testing.T) {
	want := dashboardMetrics(t)
	if len(want) < 10 {
		t.Fatalf("only %d metrics found in the dashboard: %v", len(want), want)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(cfg, []byte("metrics: {enable: true}\nautomation: {pollInterval: 1s, mergeInterval: 1s, expiryInterval: 1s, renewalInterval: 1s, rewardCollectionInterval: 1s, roundInterval: 2s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Port 0 for each listener: the wallet binds them and names them in
	// its ready line, so no other process can take one in between.
	cmd := exec.CommandContext(ctx, wallet, "serve", "--config", cfg, "--db", filepath.Join(dir, "wallet.db"),
		"--listen", "127.0.0.1:0", "--health-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--ledger-api-listen", "off")
	cmd.Dir = dir
	logPath := filepath.Join(dir, "wallet.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			log, _ := os.ReadFile(logPath)
			t.Logf("wallet log:\n%s", log)
		}
	})
	var app, metrics string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		log, _ := os.ReadFile(logPath)
		if m := readyRE.FindStringSubmatch(string(log)); m != nil {
			app, metrics = strings.TrimSuffix(strings.TrimPrefix(m[1], "http://"), "/"), m[2]
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the wallet did not log its ready line in 60 s")
		}
	}
	var missing []string
	deadline := time.Now().Add(60 * time.Second)
	for {
		if resp, err := http.Get("http://" + app + "/readyz"); err == nil {
			resp.Body.Close()
		}
		exported := scrape("http://" + metrics + "/metrics")
		missing = missing[:0]
		for _, name := range want {
			if !exported[name] {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("panels query metrics the wallet does not export: %v", missing)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Every job's failure series exists from the start, at 0, beside its
	// runs (before, they appeared only after a first failure, and the
	// dashboard's failure panels showed "No data").
	page := scrapePage("http://" + metrics + "/metrics")
	jobRE := regexp.MustCompile(`(?m)^ccwallet_job_runs_total\{job="([^"]+)"\}`)
	jobsSeen := jobRE.FindAllStringSubmatch(page, -1)
	if len(jobsSeen) < 5 {
		t.Fatalf("only %d jobs in ccwallet_job_runs_total:\n%s", len(jobsSeen), page)
	}
	for _, m := range jobsSeen {
		for _, series := range []string{"ccwallet_job_failures_total", "ccwallet_job_last_failure_timestamp_seconds", "ccwallet_job_last_run_failed"} {
			if !strings.Contains(page, series+`{job="`+m[1]+`"}`) {
				t.Errorf("%s{job=%q} is not exported", series, m[1])
			}
		}
	}
	for _, kind := range []string{"transfer", "create-transfer-offer", "create-transfer-instruction", "buy-traffic"} {
		if !strings.Contains(page, `ccwallet_ledger_operations_total{kind="`+kind+`",outcome="error"}`) {
			t.Errorf("ccwallet_ledger_operations_total{kind=%q,outcome=\"error\"} is not exported", kind)
		}
	}
}

// scrapePage returns a /metrics page's text.
func scrapePage(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// scrape returns the metric names on a /metrics page, with the histogram
// and counter suffixes as they appear (name_bucket, name_sum, ...) and the
// family name itself.
func scrape(url string) map[string]bool {
	names := map[string]bool{}
	for _, line := range strings.Split(scrapePage(url), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line[:strings.IndexAny(line+" ", "{ ")]
		names[name] = true
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok {
				names[base] = true
			}
		}
	}
	return names
}

// readyRE finds the web and metrics addresses in the wallet's ready line.
var readyRE = regexp.MustCompile(`msg="ccwallet ready" url=(\S+) health=\S+ metrics=(\S+)`)
