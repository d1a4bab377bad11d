package web

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// nativeBucketFactor is the growth factor of native histogram buckets:
// 1.1 gives about 7 buckets per doubling (schema 3), Prometheus' usual
// choice.
const nativeBucketFactor = 1.1

// HistogramOpts completes opts for native histograms (the default, as the
// real network's apps use them) or, with native false, classic ones with
// opts.Buckets (prometheus.DefBuckets when empty) for servers that cannot
// ingest native histograms.
func HistogramOpts(opts prometheus.HistogramOpts, native bool) prometheus.HistogramOpts {
	if native {
		opts.Buckets = nil
		opts.NativeHistogramBucketFactor = nativeBucketFactor
		opts.NativeHistogramMaxBucketNumber = 160
		opts.NativeHistogramMinResetDuration = time.Hour
		return opts
	}
	if len(opts.Buckets) == 0 {
		opts.Buckets = prometheus.DefBuckets
	}
	opts.NativeHistogramBucketFactor = 0
	return opts
}

// Metrics counts and times HTTP requests by method, route pattern and
// status. The label is the ServeMux pattern (r.Pattern), never the raw
// path, so that IDs in paths cannot blow up the number of series; requests
// no route matched are labelled "unmatched". Likewise a method outside
// HTTP's own (methodLabel) is "other": net/http serves any token as a
// method, and each one a client made up was a counter and a histogram
// kept for the life of the process. Like Logger, it must sit
// inside RequestID and with no request-copying middleware between it and
// the mux.
func Metrics(reg prometheus.Registerer, native bool) Middleware {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ccwallet_http_requests_total",
		Help: "HTTP requests served, by method, route pattern and status code.",
	}, []string{"method", "route", "code"})
	duration := prometheus.NewHistogramVec(HistogramOpts(prometheus.HistogramOpts{
		Name: "ccwallet_http_request_duration_seconds",
		Help: "Time to serve HTTP requests, by method and route pattern.",
	}, native), []string{"method", "route"})
	reg.MustRegister(requests, duration)
	// Bounded as the labels are: methods, the mux's patterns, status codes.
	var series Series[requestKey]
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := newStatusRecorder(w)
			next.ServeHTTP(rec, r)
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			k := requestKey{methodLabel(r.Method), route, rec.Status()}
			series.Of(k, func() (prometheus.Counter, prometheus.Observer) {
				return requests.WithLabelValues(k.method, route, strconv.Itoa(k.code)), duration.WithLabelValues(k.method, route)
			}).Record(time.Since(start))
		})
	}
}

// requestKey is Metrics' labels.
type requestKey struct {
	method, route string
	code          int
}

// Series are the counter and duration series of a pair of vectors by
// their labels (K), each looked up once: WithLabelValues hashes the
// labels and takes the vector's lock on every call, which per request
// and per ledger operation was 2-3% of the wallet's CPU per one-step
// send. The labels must be bounded, as every series is kept anyway.
type Series[K comparable] struct{ m sync.Map }

// SeriesPair is one label set's counter and duration.
type SeriesPair struct {
	Count    prometheus.Counter
	Duration prometheus.Observer
}

// Record counts one event that took d.
func (p SeriesPair) Record(d time.Duration) {
	p.Count.Inc()
	p.Duration.Observe(d.Seconds())
}

// Of is k's pair, made by lookup (the vectors' WithLabelValues) the first
// time.
func (s *Series[K]) Of(k K, lookup func() (prometheus.Counter, prometheus.Observer)) SeriesPair {
	if v, ok := s.m.Load(k); ok {
		return v.(SeriesPair)
	}
	c, o := lookup()
	v, _ := s.m.LoadOrStore(k, SeriesPair{Count: c, Duration: o})
	return v.(SeriesPair)
}

// methodLabel is method when it is one of HTTP's (RFC 9110 and PATCH),
// else "other".
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "other"
}

// MetricsHandler serves the registry's metrics at /metrics, in the text
// format or, when the scraper asks for it, the protobuf format that carries
// native histograms.
func MetricsHandler(g prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	return mux
}
