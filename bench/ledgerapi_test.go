package bench

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledgerapi"
	"github.com/ccwallet/ccwallet/web"
)

// BenchmarkLedgerAPITransfers: token-standard transfers per second
// through the JSON Ledger API, as an app written for Canton makes them to
// a receiver with a transfer preapproval: the registry's transfer factory
// with its choice context (POST
// /registry/transfer-instruction/v1/transfer-factory, excludeDebugFields),
// then submit-and-wait of TransferFactory_Transfer through the
// TransferFactory interface with the disclosed contracts, which completes
// the transfer in one step (transferKind "direct"). The coin's own
// TransferPreapproval_Send would be cheaper, but an app that speaks the
// token standard does not know it. 8 closed-loop clients on Postgres,
// beside pgbench TPC-B with 8 clients in the same run; real JWTs,
// loopback HTTP, both servers' full routers.
func BenchmarkLedgerAPITransfers(b *testing.B) {
	const clients = 8
	c := ledgertest.Cluster(b)
	_, pgbench := pgbenchOn(b, c)

	e := newHTTPEnv(b)
	g := newSendLoad(b, e, apiParties)
	v, err := web.NewVerifier(web.AuthConfig{Audience: benchAudience, Issuer: "bench", StaticKeys: map[string]crypto.PublicKey{"k1": e.key.Public()}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	api := ledgerapi.New(e.l, ledgerapi.Config{Auth: v}, nil)
	srv := httptest.NewServer(api.Handler())
	b.Cleanup(srv.Close)
	if _, err := e.db.ExecContext(context.Background(), "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	t := &tokenTransfers{g: g, api: srv.URL, dso: string(e.l.DSO())}
	b.ResetTimer()
	for b.Loop() {
		t.closedLoop(clients, 2*time.Second) // warm up
		var ours, pg []float64
		for range apiRuns {
			pg = append(pg, pgbench(clients))
			ours = append(ours, t.closedLoop(clients, apiRun))
		}
		o, p := median(ours), median(pg)
		b.ReportMetric(o, "ledger-api-transfers/s-8c")
		b.ReportMetric(p, "pgbench-tps-8c")
		row(fmt.Sprintf("Token-standard transfers via the JSON Ledger API (registry transfer factory + submit-and-wait of TransferFactory_Transfer, direct to a preapproved receiver), Postgres, %d clients (transfers/s, median of %d × %s)", clients, apiRuns, apiRun),
			fmt.Sprintf("%.0f", o), fmt.Sprintf("pgbench TPC-B %d clients: %.0f tps", clients, p),
			fmt.Sprintf("ratio %.2f; runs %s; each transfer is two HTTP calls, as an app makes it", o/p, fmtRates(ours)))
	}
	if n := t.failed.Load(); n > 0 {
		b.Errorf("%d transfers failed; first: %s", n, t.firstErr())
	}
}

// tokenTransfers is the Ledger API's load generator, over sendLoad's
// senders (with their tokens) and preapproved receivers.
type tokenTransfers struct {
	g      *sendLoad
	api    string
	dso    string
	seq    atomic.Int64
	failed atomic.Int64

	mu    sync.Mutex
	first string
}

func (t *tokenTransfers) firstErr() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.first
}

const factoryInterface = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory"

// post posts body as JSON to url with token (none when empty) and decodes
// a 200 answer into out.
func (t *tokenTransfers) post(url, token string, body, out any) error {
	bs, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(bs))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	status, resp, err := t.g.e.do(req)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("%s: %d %s", url, status, resp)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(resp, out)
}

// transfer makes one transfer of 1.5 from sender s to receiver r.
func (t *tokenTransfers) transfer(s, r int) error {
	now := t.g.e.l.Now()
	transfer := map[string]any{
		"sender": t.g.senders[s], "receiver": t.g.receivers[r], "amount": "1.5",
		"instrumentId": map[string]any{"admin": t.dso, "id": "Amulet"},
		"requestedAt":  now.Add(-time.Second).Format(time.RFC3339Nano), "executeBefore": now.Add(time.Hour).Format(time.RFC3339Nano),
		"inputHoldingCids": []string{}, "meta": map[string]any{"values": map[string]any{}},
	}
	var factory struct {
		FactoryID     string `json:"factoryId"`
		ChoiceContext struct {
			ChoiceContextData  json.RawMessage `json:"choiceContextData"`
			DisclosedContracts json.RawMessage `json:"disclosedContracts"`
		} `json:"choiceContext"`
	}
	empty := map[string]any{"values": map[string]any{}}
	err := t.post(t.g.e.srv.URL+"/registry/transfer-instruction/v1/transfer-factory", "", map[string]any{
		"choiceArguments":    map[string]any{"expectedAdmin": t.dso, "transfer": transfer, "extraArgs": map[string]any{"context": empty, "meta": empty}},
		"excludeDebugFields": true,
	}, &factory)
	if err != nil {
		return err
	}
	return t.post(t.api+"/v2/commands/submit-and-wait", t.g.tokens[s], map[string]any{
		"commands": []any{map[string]any{"ExerciseCommand": map[string]any{
			"templateId": factoryInterface, "contractId": factory.FactoryID, "choice": "TransferFactory_Transfer",
			"choiceArgument": map[string]any{"expectedAdmin": t.dso, "transfer": transfer,
				"extraArgs": map[string]any{"context": factory.ChoiceContext.ChoiceContextData, "meta": empty}},
		}}},
		"commandId": fmt.Sprintf("bench-%d", t.seq.Add(1)), "actAs": []any{t.g.senders[s]},
		"disclosedContracts": factory.ChoiceContext.DisclosedContracts,
	}, nil)
}

// closedLoop runs clients that each transfer as fast as answers come
// back for d, from their own senders to any receiver, and returns
// completed transfers per second.
func (t *tokenTransfers) closedLoop(clients int, d time.Duration) float64 {
	n := len(t.g.senders)
	return closedLoop(clients, d, func(c int) (func(i int) bool, func()) {
		return func(i int) bool {
			s := c + clients*(i%(n/clients))
			err := t.transfer(s, (s+i)%n)
			if err != nil {
				t.failed.Add(1)
				t.mu.Lock()
				if t.first == "" {
					t.first = err.Error()
				}
				t.mu.Unlock()
			}
			return err == nil
		}, func() {}
	})
}
