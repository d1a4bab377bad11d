package bench

import (
	"context"
	"crypto"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledgerapi"
	"github.com/ccwallet/ccwallet/web"
)

// BenchmarkLedgerAPIAsync: asynchronous submissions applied per second
// through the JSON Ledger API, with durable asynchronous submissions
// (ledgerApiDurableAsync: each kept in a commit of its own before the
// answer, forgotten in batches after) and without, in alternated runs
// on one Postgres (issue 38 keeps durability on by default only if it
// costs under 10%). 8 closed-loop clients each post
// /v2/commands/async/submit of TransferPreapproval_Send (1.5 CC to a
// preapproved receiver) as fast as answers come for a run; the rate is
// the answered submissions over the time until every one's completion
// is stored.
func BenchmarkLedgerAPIAsync(b *testing.B) {
	const clients = 8
	ledgertest.Cluster(b)
	e := newHTTPEnv(b)
	g := newSendLoad(b, e, apiParties)
	v, err := web.NewVerifier(web.AuthConfig{Audience: benchAudience, Issuer: "bench", StaticKeys: map[string]crypto.PublicKey{"k1": e.key.Public()}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	servers := map[bool]string{}
	for _, durable := range []bool{false, true} {
		api := ledgerapi.New(e.l, ledgerapi.Config{Auth: v, DurableAsync: durable}, nil)
		srv := httptest.NewServer(api.Handler())
		b.Cleanup(api.Wait)
		b.Cleanup(srv.Close)
		servers[durable] = srv.URL
	}
	pre := make([]string, len(g.receivers))
	for i, r := range g.receivers {
		if err := e.db.NewSelect().Table("transfer_preapprovals").Column("contract_id").Where("receiver = ?", r).Scan(context.Background(), &pre[i]); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := e.db.ExecContext(context.Background(), "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	t := &tokenTransfers{g: g}
	var run atomic.Int64
	// one run of d on the server url; returns applied submissions/s.
	measure := func(url string, d time.Duration) float64 {
		prefix := fmt.Sprintf("async-%d-", run.Add(1))
		var seq, answered atomic.Int64
		var start int64
		if err := e.db.NewSelect().Table("completions").ColumnExpr("COALESCE(MAX(offset_id), 0)").Scan(context.Background(), &start); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		n := len(g.senders)
		closedLoop(clients, d, func(c int) (func(i int) bool, func()) {
			return func(i int) bool {
				s := c + clients*(i%(n/clients))
				r := (s + i) % n
				err := t.post(url+"/v2/commands/async/submit", g.tokens[s], map[string]any{
					"commands": []any{map[string]any{"ExerciseCommand": map[string]any{
						"templateId": "#splice-amulet:Splice.AmuletRules:TransferPreapproval", "contractId": pre[r], "choice": "TransferPreapproval_Send",
						"choiceArgument": map[string]any{"context": map[string]any{}, "inputs": []any{}, "amount": "1.5", "sender": g.senders[s], "description": "async"},
					}}},
					"commandId": fmt.Sprintf("%s%d", prefix, seq.Add(1)), "actAs": []any{g.senders[s]},
				}, nil)
				if err != nil {
					if !strings.Contains(err.Error(), "BACKPRESSURE") {
						t.failed.Add(1)
						t.mu.Lock()
						if t.first == "" {
							t.first = err.Error()
						}
						t.mu.Unlock()
					}
					time.Sleep(time.Millisecond)
					return false
				}
				answered.Add(1)
				return true
			}, func() {}
		})
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			done, err := e.db.NewSelect().Table("completions").Where("offset_id > ?", start).Count(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if int64(done) >= answered.Load() {
				break
			}
		}
		return float64(answered.Load()) / time.Since(t0).Seconds()
	}
	b.ResetTimer()
	for b.Loop() {
		measure(servers[false], 2*time.Second) // warm up
		measure(servers[true], 2*time.Second)
		var plain, durable []float64
		for range 2 * apiRuns {
			plain = append(plain, measure(servers[false], apiRun))
			durable = append(durable, measure(servers[true], apiRun))
		}
		p, d := median(plain), median(durable)
		b.Logf("async/s durable %s, not durable %s", fmtRates(durable), fmtRates(plain))
		b.ReportMetric(p, "async/s-plain")
		b.ReportMetric(d, "async/s-durable")
		row(fmt.Sprintf("Asynchronous submissions via the JSON Ledger API (async/submit of TransferPreapproval_Send, applied per second), Postgres, %d clients, durable (ledgerApiDurableAsync) vs not, alternated (median of %d × %s each)", clients, 2*apiRuns, apiRun),
			fmt.Sprintf("%.0f durable", d), fmt.Sprintf("%.0f not durable", p),
			fmt.Sprintf("durable costs %.1f%%; runs durable %s, not %s", 100*(1-d/p), fmtRates(durable), fmtRates(plain)))
	}
	if n := t.failed.Load(); n > 0 {
		b.Errorf("%d submissions failed; first: %s", n, t.firstErr())
	}
}
