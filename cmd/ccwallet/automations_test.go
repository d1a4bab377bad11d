package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/google/go-cmp/cmp"
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
		Sweeps     []ledger.SweepConfig
		AutoAccept []jobs.AutoAcceptRule
		Topup      ledger.TopupConfig
	}{
		[]ledger.SweepConfig{{Sender: alice, Receiver: bob, MaxBalanceUSD: coin.MustParse("100.5"), MinBalanceUSD: coin.MustParse("10"), UsePreapproval: true}},
		[]jobs.AutoAcceptRule{{Receiver: bob, From: []coin.PartyID{alice}}},
		ledger.TopupConfig{TargetThroughput: 20000, MinInterval: time.Minute},
	}
	got := struct {
		Sweeps     []ledger.SweepConfig
		AutoAccept []jobs.AutoAcceptRule
		Topup      ledger.TopupConfig
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
