package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
)

// TestConfigWalletAutomations maps walletSweep, autoAcceptTransfers and
// topup onto the jobs' configuration.
func TestConfigWalletAutomations(t *testing.T) {
	cfg, err := loadConfig(writeFile(t, "values.yaml", goodValues), newEnv([]string{"SECRET_ENV=pw"}), testNow)
	if err != nil {
		t.Fatal(err)
	}
	a, err := cfg.automation()
	if err != nil {
		t.Fatal(err)
	}
	want := struct {
		Sweeps     []autotransfer.SweepConfig
		AutoAccept []jobs.AutoAcceptRule
		Topup      traffic.TopupConfig
	}{
		[]autotransfer.SweepConfig{{Sender: alice, Receiver: bob, MaxBalanceUSD: coin.MustParse("100.5"), MinBalanceUSD: coin.MustParse("10"), UsePreapproval: true}},
		[]jobs.AutoAcceptRule{{Receiver: bob, From: []coin.PartyID{alice}}},
		traffic.TopupConfig{TargetThroughput: 20000, MinInterval: time.Minute},
	}
	got := struct {
		Sweeps     []autotransfer.SweepConfig
		AutoAccept []jobs.AutoAcceptRule
		Topup      traffic.TopupConfig
	}{a.Sweeps, a.AutoAccept, a.Topup}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(x, y coin.Amount) bool { return x.Equal(y) })); diff != "" {
		t.Errorf("automation (-want +got):\n%s", diff)
	}
	cfg.Topup.Enabled = false
	if a, _ := cfg.automation(); a.Topup.Active() {
		t.Error("topup.enabled: false still tops up")
	}
	cfg.Topup.Enabled, cfg.Topup.TargetThroughput = true, 0
	if a, _ := cfg.automation(); a.Topup.Active() {
		t.Error("targetThroughput 0 still tops up")
	}
}

// TestServeRefusesUnknownSweepParty: a sweep whose sender is not a party of
// this node stops serve at start with the key.
func TestServeRefusesUnknownSweepParty(t *testing.T) {
	cfg := writeFile(t, "v.yaml", "walletSweep:\n  \""+alice+"\":\n    maxBalanceUSD: 10\n    minBalanceUSD: 1\n    receiver: \""+bob+"\"\n")
	s, err := tryServe(t, append(sqliteArgs(t), "--config", cfg), nil)
	if err == nil || !strings.Contains(err.Error(), "walletSweep."+alice+": sender") {
		t.Errorf("serve = %v, want a refusal naming walletSweep.%s\n%s", err, alice, s.logs.String())
	}
}

// TestServeJobMetricsAndHealth: job runs show in /metrics and /readyz
// includes the scheduler check.
func TestServeJobMetricsAndHealth(t *testing.T) {
	cfg := writeFile(t, "v.yaml", "automation:\n  expiryInterval: 1s\nmetrics:\n  enable: true\n")
	s := startServe(t, append(sqliteArgs(t), "--config", cfg), nil)
	deadline := time.Now().Add(20 * time.Second)
	for {
		mfs := scrape(t, s.addrs.Metrics)
		if find(mfs, "ccwallet_job_runs_total", map[string]string{"job": "expire-transfers"}) != nil &&
			find(mfs, "ccwallet_job_duration_seconds", map[string]string{"job": "expire-transfers"}) != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no ccwallet_job_runs_total{job=expire-transfers} after 20 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	resp, err := plain.Get("http://" + s.addrs.Health + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz = %d %v", resp.StatusCode, body)
	}
	t.Logf("/readyz: %v", body)
}

// TestJobRunMetrics: every run counts in ccwallet_job_runs_total and the
// duration histogram, a failed one in ccwallet_job_failures_total too.
func TestJobRunMetrics(t *testing.T) {
	for _, native := range []bool{true, false} {
		m := newMetrics(native)
		m.JobRun("sweep", 2*time.Second, nil)
		m.JobRun("sweep", time.Second, errors.New("boom"))
		m.JobRun("expire-transfers", time.Millisecond, nil)
		fams, err := m.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		mfs := map[string]*dto.MetricFamily{}
		for _, f := range fams {
			mfs[f.GetName()] = f
		}
		got := map[string]float64{}
		for _, job := range []string{"sweep", "expire-transfers"} {
			l := map[string]string{"job": job}
			if r := find(mfs, "ccwallet_job_runs_total", l); r != nil {
				got[job+" runs"] = r.GetCounter().GetValue()
			}
			if f := find(mfs, "ccwallet_job_failures_total", l); f != nil {
				got[job+" failures"] = f.GetCounter().GetValue()
			}
			if d := find(mfs, "ccwallet_job_duration_seconds", l); d != nil {
				got[job+" durations"] = float64(d.GetHistogram().GetSampleCount())
				got[job+" seconds"] = d.GetHistogram().GetSampleSum()
			}
		}
		want := map[string]float64{"sweep runs": 2, "sweep failures": 1, "sweep durations": 2, "sweep seconds": 3,
			"expire-transfers runs": 1, "expire-transfers durations": 1, "expire-transfers seconds": 0.001}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("native=%v: job metrics (-want +got):\n%s", native, diff)
		}
	}
}

// TestServeJobsEndpoint: GET /v0/admin/jobs of a running server lists every
// configured job, one object each with its name, schedule, last and next
// run, duration and last error; it is for admins only.
func TestServeJobsEndpoint(t *testing.T) {
	cfg := writeFile(t, "v.yaml", "automation:\n  expiryInterval: 1s\n")
	s := startServe(t, append(sqliteArgs(t), "--config", cfg), nil)
	url := "http://" + s.addrs.App + "/v0/admin/jobs"
	tok := devToken(t, "admin")
	var jobsList []map[string]any
	deadline := time.Now().Add(20 * time.Second)
	for {
		jobsList = nil
		if code := call(t, plain, "GET", url, tok, "", &jobsList); code != http.StatusOK {
			t.Fatalf("GET /v0/admin/jobs = %d", code)
		}
		ran := false
		for _, j := range jobsList {
			ran = ran || j["name"] == "expire-transfers" && j["runs"].(float64) >= 1
		}
		if ran {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("expire-transfers never ran: %v", jobsList)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var names []string
	for _, j := range jobsList {
		names = append(names, j["name"].(string))
		for _, k := range []string{"name", "schedule", "last_run", "next_run", "last_duration_ms", "last_error", "runs", "failures"} {
			if _, ok := j[k]; !ok {
				t.Errorf("job %v lacks %q", j["name"], k)
			}
		}
		if j["next_run"] == nil {
			t.Errorf("job %v has no next run", j["name"])
		}
		if j["name"] == "expire-transfers" && (j["schedule"] != "every 1s" || j["last_run"] == nil || j["last_error"] != "") {
			t.Errorf("expire-transfers = %v", j)
		}
	}
	want := []string{"accept-preapproval-proposals", "collect-rewards", "expire-transfers", "merge-holdings", "renew-preapprovals", "round-clock", "subscriptions", "traffic-topup"} // top-up is on by default
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	if code := call(t, plain, "GET", url, devToken(t, "nobody"), "", nil); code != http.StatusForbidden {
		t.Errorf("GET /v0/admin/jobs by a non-admin = %d, want 403", code)
	}
}

// TestAdvanceRoundsCLI: `ccwallet advance-rounds` opens rounds on the
// configured database of a development network, refuses a bad count with
// the ledger's message, and refuses outside a development network.
func TestAdvanceRoundsCLI(t *testing.T) {
	db := sqliteArgs(t)
	cli := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(t.Context(), append(append([]string{"advance-rounds"}, db...), args...), nil, &out, &errOut)
		return out.String(), err
	}
	out, err := cli("--rounds", "3")
	if err != nil || !strings.Contains(out, "advanced from round 0 to round 3") {
		t.Fatalf("advance 3 = %q, %v", out, err)
	}
	out, err = cli("--rounds", "2")
	if err != nil || !strings.Contains(out, "advanced from round 3 to round 5; closed 2 rounds") {
		t.Errorf("advance 2 more = %q, %v", out, err)
	}
	if _, err := cli("--rounds", "0"); err == nil || !strings.Contains(err.Error(), "rounds") {
		t.Errorf("advance 0 = %v, want a refusal naming rounds", err)
	}
	// Rounds open at the wall clock: a day ahead is 144 ticks of 10
	// minutes, give or take the one rounding up.
	out, err = cli("--until", time.Now().Add(24*time.Hour).UTC().Format(time.RFC3339))
	if err != nil || !strings.Contains(out, "advanced from round 5 to round 149;") && !strings.Contains(out, "advanced from round 5 to round 150;") {
		t.Errorf("advance until tomorrow = %q, %v; want about 144 rounds", out, err)
	}
	if _, err := cli("--until", "soon"); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Errorf("advance until soon = %v, want a refusal naming the format", err)
	}
	if _, err := cli("--rounds", "2", "--until", "2099-01-01T00:00:00Z"); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("advance with both = %v, want a refusal", err)
	}
	prod := writeFile(t, "prod.yaml", "network: production\nauth:\n  jwksUrl: https://idp.example.com/.well-known/jwks.json\n")
	if _, err := cli("--config", prod, "--rounds", "1"); err == nil || !strings.Contains(err.Error(), "only available on a development network") {
		t.Errorf("advance on production = %v, want a refusal", err)
	}
}
