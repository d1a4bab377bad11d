package main

import (
	"context"
	"database/sql"
	"log/slog"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/ccwallet/ccwallet/web"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics is the process's Prometheus registry and the collectors the
// composition root feeds. It implements ledger.Observer.
type metrics struct {
	reg    *prometheus.Registry
	native bool

	ledgerOps      *prometheus.CounterVec
	ledgerDuration *prometheus.HistogramVec
	jobRuns        *prometheus.CounterVec
	jobFailures    *prometheus.CounterVec
	jobDuration    *prometheus.HistogramVec
	jobLastFailed  *prometheus.GaugeVec
	jobLastFailure *prometheus.GaugeVec

	// ledgerSeries are ledgerOps' and ledgerDuration's series by kind and
	// outcome, looked up once (three times per one-step send); kinds are
	// the ledger's own names.
	ledgerSeries web.Series[ledgerKey]
}

// ledgerKey is a key of metrics.ledgerSeries.
type ledgerKey struct{ kind, outcome string }

func newMetrics(native bool) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), native: native}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.ledgerOps = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ccwallet_ledger_operations_total",
		Help: "Ledger transactions that reached commit, by kind and outcome (ok or error).",
	}, []string{"kind", "outcome"})
	m.ledgerDuration = prometheus.NewHistogramVec(web.HistogramOpts(prometheus.HistogramOpts{
		Name: "ccwallet_ledger_operation_duration_seconds",
		Help: "Time from the start of a ledger transaction to its commit, by kind.",
	}, native), []string{"kind"})
	m.jobRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ccwallet_job_runs_total",
		Help: "Automation job runs, by job.",
	}, []string{"job"})
	m.jobFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ccwallet_job_failures_total",
		Help: "Automation job runs that failed, by job.",
	}, []string{"job"})
	m.jobDuration = prometheus.NewHistogramVec(web.HistogramOpts(prometheus.HistogramOpts{
		Name: "ccwallet_job_duration_seconds",
		Help: "Duration of automation job runs, by job.",
	}, native), []string{"job"})
	// The last run's outcome and the last failure's time: a dashboard's
	// "last error" (the error's text, unbounded, is in GET /v0/admin/jobs
	// and the log, never in a label).
	m.jobLastFailed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ccwallet_job_last_run_failed",
		Help: "1 when the job's last run failed, 0 when it succeeded; the error is in GET /v0/admin/jobs.",
	}, []string{"job"})
	m.jobLastFailure = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ccwallet_job_last_failure_timestamp_seconds",
		Help: "Unix time of the job's last failed run.",
	}, []string{"job"})
	m.reg.MustRegister(m.ledgerOps, m.ledgerDuration, m.jobRuns, m.jobFailures, m.jobDuration, m.jobLastFailed, m.jobLastFailure)
	return m
}

// LedgerOp implements ledger.Observer.
func (m *metrics) LedgerOp(kind string, d time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.ledgerSeries.Of(ledgerKey{kind, outcome}, func() (prometheus.Counter, prometheus.Observer) {
		return m.ledgerOps.WithLabelValues(kind, outcome), m.ledgerDuration.WithLabelValues(kind)
	}).Record(d)
}

// JobRun records one automation run. The jobs package takes it as a plain
// func(name, duration, err) hook, so it needs no Prometheus import:
// jobs.Config{OnRun: m.JobRun}.
func (m *metrics) JobRun(job string, d time.Duration, err error) {
	m.jobRuns.WithLabelValues(job).Inc()
	failed := 0.0
	if err != nil {
		failed = 1
		m.jobFailures.WithLabelValues(job).Inc()
		m.jobLastFailure.WithLabelValues(job).SetToCurrentTime()
	}
	m.jobLastFailed.WithLabelValues(job).Set(failed)
	m.jobDuration.WithLabelValues(job).Observe(d.Seconds())
}

// dashboardKinds are the ledger kinds the dashboard (deploy/grafana)
// queries by name: their series exist, at 0, from the start.
var dashboardKinds = []string{"transfer", "create-transfer-offer", "create-transfer-instruction", "buy-traffic"}

// declare makes every labelled series the dashboard queries exist at
// start, at 0: a job's runs, failures, last outcome and last failure's
// time (0: never), and the ledger kinds' ok and error counts. Without
// them the failure panels showed "No data" until a first failure.
func (m *metrics) declare(jobNames []string) {
	for _, job := range jobNames {
		m.jobRuns.WithLabelValues(job)
		m.jobFailures.WithLabelValues(job)
		m.jobLastFailed.WithLabelValues(job)
		m.jobLastFailure.WithLabelValues(job)
	}
	for _, kind := range dashboardKinds {
		m.ledgerOps.WithLabelValues(kind, "ok")
		m.ledgerOps.WithLabelValues(kind, "error")
	}
}

// watchDB exports the connection pool's statistics.
func (m *metrics) watchDB(db *sql.DB, name string) {
	m.reg.MustRegister(collectors.NewDBStatsCollector(db, name))
}

// watchOperator exports the operator party's balance, read on each scrape
// (one indexed query over the operator's holdings) with a short timeout so
// a slow database cannot hang the scrape.
func (m *metrics) watchOperator(l *ledger.Ledger, log *slog.Logger) {
	m.reg.MustRegister(&operatorCollector{l: l, log: log})
}

var (
	descUnlocked = prometheus.NewDesc("ccwallet_operator_balance_unlocked",
		"Effective unlocked coin of the validator operator's party.", nil, nil)
	descLocked = prometheus.NewDesc("ccwallet_operator_balance_locked",
		"Effective locked coin of the validator operator's party.", nil, nil)
	descHoldings = prometheus.NewDesc("ccwallet_operator_holdings",
		"Unlocked holdings (UTXOs) of the validator operator's party.", nil, nil)
	descTrafficRemaining = prometheus.NewDesc("ccwallet_operator_traffic_remaining_bytes",
		"Extra traffic the validator's member has left (purchased less what the free base rate did not cover).", nil, nil)
	descTrafficPurchased = prometheus.NewDesc("ccwallet_operator_traffic_purchased_bytes",
		"Extra traffic the validator's member has bought in all.", nil, nil)
)

type operatorCollector struct {
	l   *ledger.Ledger
	log *slog.Logger
}

func (c *operatorCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descUnlocked
	ch <- descLocked
	ch <- descHoldings
	ch <- descTrafficRemaining
	ch <- descTrafficPurchased
}

func (c *operatorCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	b, err := c.l.Balance(ctx, c.l.Operator())
	if err != nil {
		c.log.Warn("metrics: read operator balance", "err", err)
		ch <- prometheus.NewInvalidMetric(descUnlocked, err)
		return
	}
	// A gauge is a float by nature: this is an observation for dashboards,
	// never used for money.
	ch <- prometheus.MustNewConstMetric(descUnlocked, prometheus.GaugeValue, approx(b.EffectiveUnlocked))
	ch <- prometheus.MustNewConstMetric(descLocked, prometheus.GaugeValue, approx(b.EffectiveLocked))
	ch <- prometheus.MustNewConstMetric(descHoldings, prometheus.GaugeValue, float64(b.Count))
	ts, err := traffic.StatusOf(ctx, c.l, string(c.l.Operator()))
	if err != nil {
		c.log.Warn("metrics: read operator traffic", "err", err)
		ch <- prometheus.NewInvalidMetric(descTrafficRemaining, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(descTrafficRemaining, prometheus.GaugeValue, float64(ts.Remaining))
	ch <- prometheus.MustNewConstMetric(descTrafficPurchased, prometheus.GaugeValue, float64(ts.Purchased))
}

func approx(a coin.Amount) float64 {
	f, _ := strconv.ParseFloat(a.String(), 64)
	return f
}
