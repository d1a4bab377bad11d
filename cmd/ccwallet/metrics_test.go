package main

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// scrape fetches /metrics in the protobuf format (the one that carries
// native histograms) and parses it with expfmt.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeProtoDelim)))
	resp, err := plain.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
	out := map[string]*dto.MetricFamily{}
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err != nil {
			break
		}
		out[mf.GetName()] = &mf
	}
	if len(out) == 0 {
		t.Fatalf("no metrics parsed from %s", addr)
	}
	return out
}

// find returns the metric of family name whose labels include want.
func find(mfs map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	mf := mfs[name]
	if mf == nil {
		return nil
	}
next:
	for _, m := range mf.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

func TestServeMetrics(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		native bool
	}{
		{"native histograms by default", nil, true},
		{"classic histograms on request", []string{"ADDITIONAL_CONFIG_DISABLE_NATIVE_HISTOGRAMS=canton.monitoring.metrics.histograms=[]"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServe(t, sqliteArgs(t), tt.env)
			app := "http://" + s.addrs.App
			admin := devToken(t, "admin")
			// The admin user is bound to the operator party: tap into it.
			if code := call(t, plain, "POST", app+"/v0/wallet/tap", admin, `{"amount":"25"}`, &struct{}{}); code != 200 {
				t.Fatalf("tap = %d", code)
			}
			call(t, plain, "GET", app+"/v0/wallet/balance", "", "", nil) // 401
			call(t, plain, "GET", app+"/no/such/path", "", "", nil)

			mfs := scrape(t, s.addrs.Metrics)
			checks := []struct {
				name   string
				labels map[string]string
			}{
				{"ccwallet_http_requests_total", map[string]string{"route": "POST /v0/wallet/tap", "code": "200", "method": "POST"}},
				{"ccwallet_http_requests_total", map[string]string{"route": "GET /v0/wallet/balance", "code": "401"}},
				{"ccwallet_http_requests_total", map[string]string{"route": "unmatched", "code": "404"}},
				{"ccwallet_http_request_duration_seconds", map[string]string{"route": "POST /v0/wallet/tap"}},
				{"ccwallet_ledger_operations_total", map[string]string{"kind": "tap", "outcome": "ok"}},
				{"ccwallet_ledger_operation_duration_seconds", map[string]string{"kind": "tap"}},
				{"ccwallet_operator_balance_unlocked", nil},
				{"ccwallet_operator_holdings", nil},
				{"go_sql_open_connections", map[string]string{"db_name": "ccwallet"}},
			}
			for _, c := range checks {
				if find(mfs, c.name, c.labels) == nil {
					t.Errorf("no %s%v in the scrape", c.name, c.labels)
				}
			}
			if m := find(mfs, "ccwallet_operator_holdings", nil); m != nil && m.GetGauge().GetValue() < 1 {
				t.Errorf("operator holdings = %v after a tap, want >= 1", m.GetGauge().GetValue())
			}
			if m := find(mfs, "ccwallet_operator_balance_unlocked", nil); m != nil && m.GetGauge().GetValue() <= 0 {
				t.Errorf("operator balance = %v after a tap, want > 0", m.GetGauge().GetValue())
			}
			h := find(mfs, "ccwallet_http_request_duration_seconds", map[string]string{"route": "POST /v0/wallet/tap"})
			if h == nil {
				return
			}
			isNative := h.GetHistogram().Schema != nil
			classic := len(h.GetHistogram().GetBucket()) > 0
			if isNative != tt.native || classic == tt.native {
				t.Errorf("histogram native=%v classic buckets=%v, want native=%v", isNative, classic, tt.native)
			}
		})
	}
}

// TestLedgerOpSeries: LedgerOp counts each kind and outcome in its own
// series, looked up once and kept (metrics.ledgerSeries), and times every
// operation of a kind in one histogram.
func TestLedgerOpSeries(t *testing.T) {
	m := newMetrics(false)
	fail := errors.New("refused")
	for _, op := range []struct {
		kind string
		err  error
	}{{"transfer", nil}, {"transfer", nil}, {"transfer", fail}, {"tap", nil}} {
		m.LedgerOp(op.kind, time.Millisecond, op.err)
	}
	for _, c := range []struct {
		kind, outcome string
		want          float64
	}{{"transfer", "ok", 2}, {"transfer", "error", 1}, {"tap", "ok", 1}} {
		if got := testutil.ToFloat64(m.ledgerOps.WithLabelValues(c.kind, c.outcome)); got != c.want {
			t.Errorf("%s %s: %v operations, want %v", c.kind, c.outcome, got, c.want)
		}
	}
	if n := testutil.CollectAndCount(m.ledgerDuration); n != 2 {
		t.Errorf("%d duration series, want 2 (transfer, tap)", n)
	}
	var dm dto.Metric
	if err := m.ledgerDuration.WithLabelValues("transfer").(prometheus.Histogram).Write(&dm); err != nil || dm.GetHistogram().GetSampleCount() != 3 {
		t.Errorf("transfer's duration: %v samples, %v; want 3", dm.GetHistogram().GetSampleCount(), err)
	}
}
