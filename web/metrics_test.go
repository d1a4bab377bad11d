package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestMetricsByRoutePattern(t *testing.T) {
	reg := prometheus.NewRegistry()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v0/things/{id}", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("POST /v0/things", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusConflict) })
	h := Chain(mux, RequestID, Metrics(reg, true))

	for _, req := range []*http.Request{
		httptest.NewRequest("GET", "/v0/things/1", nil),
		httptest.NewRequest("GET", "/v0/things/2", nil),
		httptest.NewRequest("POST", "/v0/things", nil),
		httptest.NewRequest("GET", "/nowhere/3", nil),
		httptest.NewRequest("FOOBAR1", "/v0/things", nil),
		httptest.NewRequest("FOOBAR2", "/v0/things", nil),
	} {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	type key struct{ method, route, code string }
	got := map[key]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "ccwallet_http_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			got[key{l["method"], l["route"], l["code"]}] = m.GetCounter().GetValue()
		}
	}
	want := map[key]float64{
		{"GET", "GET /v0/things/{id}", "200"}: 2,
		{"POST", "POST /v0/things", "409"}:    1,
		{"GET", "unmatched", "404"}:           1,
		// Methods a client made up share one label.
		{"other", "unmatched", "405"}: 2,
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(key{})); diff != "" {
		t.Errorf("request counts (-want +got):\n%s", diff)
	}
	if n := testutil.CollectAndCount(reg, "ccwallet_http_request_duration_seconds"); n != 4 {
		t.Errorf("%d duration series, want 4", n)
	}
}

func TestHistogramOpts(t *testing.T) {
	native := HistogramOpts(prometheus.HistogramOpts{Name: "x", Buckets: []float64{1}}, true)
	if native.Buckets != nil || native.NativeHistogramBucketFactor <= 1 {
		t.Errorf("native opts = %+v", native)
	}
	classic := HistogramOpts(prometheus.HistogramOpts{Name: "x"}, false)
	if len(classic.Buckets) == 0 || classic.NativeHistogramBucketFactor != 0 {
		t.Errorf("classic opts = %+v", classic)
	}
}
