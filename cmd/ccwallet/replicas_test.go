package main

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/go-cmp/cmp"
)

// TestReplicas runs two `ccwallet serve` on one Postgres, started at the
// same time (both migrate and bootstrap), and checks every write works
// through either with one consistent state.
func TestReplicas(t *testing.T) {
	url := ledgertest.DBURL(t, store.Postgres)
	env := []string{"WALLET_DATABASE_URL=" + url}
	servers := make([]*testServer, 2)
	// Replica 0 also takes pool settings from its values file.
	pool := writeFile(t, "v.yaml", "persistence:\n  maxOpenConns: 7\n  maxIdleConns: 3\n  connMaxLifetime: 10m\n")
	args := [][]string{{"--config", pool}, nil}
	var wg sync.WaitGroup
	for i := range servers {
		wg.Go(func() {
			// Not startServe: t.Fatal must not run off the test goroutine.
			s, err := tryServe(t, args[i], env)
			if err != nil {
				t.Errorf("replica %d: %v\n%s", i, err, s.logs.String())
			}
			servers[i] = s
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if m := find(scrape(t, servers[0].addrs.Metrics), "go_sql_max_open_connections", nil); m == nil || m.GetGauge().GetValue() != 7 {
		t.Errorf("pool max open connections = %v, want 7 from persistence.maxOpenConns", m)
	}
	a, b := "http://"+servers[0].addrs.App, "http://"+servers[1].addrs.App
	if servers[0].addrs.Operator != servers[1].addrs.Operator {
		t.Fatalf("replicas disagree on the operator party: %s vs %s", servers[0].addrs.Operator, servers[1].addrs.Operator)
	}

	admin, alice := devToken(t, "admin"), devToken(t, "alice")
	var onboarded struct {
		PartyID string `json:"party_id"`
	}
	if code := call(t, plain, "POST", a+"/v0/admin/users", admin, `{"name":"alice"}`, &onboarded); code != 200 {
		t.Fatalf("onboard via A = %d", code)
	}
	// Taps through both replicas at once, and one through B alone.
	var taps sync.WaitGroup
	for i := range 10 {
		base := []string{a, b}[i%2]
		taps.Go(func() {
			if code := call(t, plain, "POST", base+"/v0/wallet/tap", alice, `{"amount":"10"}`, &struct{}{}); code != 200 {
				t.Errorf("tap %d = %d", i, code)
			}
		})
	}
	taps.Wait()
	type tapped struct {
		ContractID string `json:"contract_id"`
	}
	var first, again tapped
	if code := call(t, plain, "POST", b+"/v0/wallet/tap", alice, `{"amount":"5","command_id":"once"}`, &first); code != 200 {
		t.Fatalf("tap via B = %d", code)
	}
	// The same command through A is deduplicated in the database: it
	// answers the first tap's holding and mints nothing more.
	if code := call(t, plain, "POST", a+"/v0/wallet/tap", alice, `{"amount":"5","command_id":"once"}`, &again); code != 200 || again != first {
		t.Errorf("retried command via A = %d %v, want 200 %v", code, again, first)
	}

	type status struct {
		PartyID string `json:"party_id"`
	}
	type balance struct {
		Unlocked string `json:"effective_unlocked_qty"`
	}
	var sa, sb status
	var ba, bb balance
	call(t, plain, "GET", a+"/v0/wallet/user-status", alice, "", &sa)
	call(t, plain, "GET", b+"/v0/wallet/user-status", alice, "", &sb)
	call(t, plain, "GET", a+"/v0/wallet/balance", alice, "", &ba)
	call(t, plain, "GET", b+"/v0/wallet/balance", alice, "", &bb)
	if diff := cmp.Diff([]any{sa, ba}, []any{sb, bb}); diff != "" {
		t.Errorf("replicas disagree (-A +B):\n%s", diff)
	}
	if sa.PartyID != onboarded.PartyID {
		t.Errorf("user-status party %q, onboarded %q", sa.PartyID, onboarded.PartyID)
	}
	got, err := coin.ParseAmount(ba.Unlocked)
	if err != nil {
		t.Fatal(err)
	}
	// Taps are in USD and converted at the round's price; the balance must
	// be positive and equal on both sides, and the coin conserved.
	if !got.IsPositive() {
		t.Errorf("balance %s after 11 taps", got)
	}
	db, err := store.Open(t.Context(), store.Config{URL: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.NewRaw("SELECT count(*) FROM holdings WHERE owner = ?", onboarded.PartyID).Scan(t.Context(), &n); err != nil {
		t.Fatal(err)
	}
	if n != 11 {
		t.Errorf("alice has %d holdings, want 11 (one per tap)", n)
	}
	l, err := ledgertest.OpenLedger(t.Context(), db, ledger.Config{OperatorHint: "ccwallet-validator-1", AdminUsers: []string{"admin"}, DevNet: true})
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Conserved(t, l)
}

// TestReplicasRunEachJobOncePerPeriod: two `ccwallet serve` on one
// Postgres share the job leases. Each lists every job in GET
// /v0/admin/jobs; across both, a 1 s job runs at most once per lease (90%
// of the period, plus the first run and one early timer), and one replica
// skips the periods the other holds.
func TestReplicasRunEachJobOncePerPeriod(t *testing.T) {
	url := ledgertest.DBURL(t, store.Postgres)
	env := []string{"WALLET_DATABASE_URL=" + url}
	cfg := writeFile(t, "v.yaml", "automation:\n  expiryInterval: 1s\n")
	// Measured from before the first start: an upper bound on how long
	// either replica has been running jobs.
	start := time.Now()
	first := startServe(t, []string{"--config", cfg}, env) // migrates and bootstraps
	second := startServe(t, []string{"--config", cfg}, env)
	time.Sleep(5 * time.Second)
	admin := devToken(t, "admin")
	type job struct {
		Name    string `json:"name"`
		Runs    int64  `json:"runs"`
		Skipped int64  `json:"skipped"`
	}
	var runs, skipped int64
	for i, s := range []*testServer{first, second} {
		var js []job
		if code := call(t, plain, "GET", "http://"+s.addrs.App+"/v0/admin/jobs", admin, "", &js); code != http.StatusOK {
			t.Fatalf("replica %d: GET /v0/admin/jobs = %d", i, code)
		}
		found := false
		for _, j := range js {
			if j.Name == "expire-transfers" {
				found = true
				runs += j.Runs
				skipped += j.Skipped
			}
		}
		if !found {
			t.Errorf("replica %d lists no expire-transfers job: %+v", i, js)
		}
	}
	elapsed := time.Since(start)
	bound := int64(elapsed/(900*time.Millisecond)) + 2
	if runs < 1 || runs > bound || skipped == 0 {
		t.Errorf("expire-transfers ran %d times across two replicas in %s (want 1..%d) and was skipped %d times (want > 0)",
			runs, elapsed, bound, skipped)
	}
}
