package bench

import (
	"fmt"
	"testing"
	"time"
)

// sdkRow measures the wallet SDK's transfer for an external party, as
// an exchange's code runs it (its prepareSignExecuteAndWaitFor), driven
// by bench/loadgen's sdk mode from a process of its own: the registry's
// transfer factory, prepare of TransferFactory_Transfer on the JSON
// Ledger API, an Ed25519 signature by the party's key, the ledger end,
// execute, and the command's completion, waited for by POST as the SDK
// 0.20.0 does (loadgen's -completions sdk); 8 clients, each for its own external parties,
// to preapproved receivers; alternated with pgbench TPC-B of 8 clients.
func sdkRow(b *testing.B, fsync bool, label string, run time.Duration, pgbench func(int) (float64, pgbenchCPU), load func(time.Duration) loadResult) {
	load(2 * time.Second) // warm up
	var rates, pg, p50, p99 []float64
	var splits []cpuSplit
	var pgCPU []pgbenchCPU
	steps := map[string][]float64{}
	for range shippedRuns {
		tps, cpu := pgbench(8)
		pg, pgCPU = append(pg, tps), append(pgCPU, cpu)
		r := load(run)
		rates, p50, p99, splits = append(rates, r.Rate), append(p50, r.P50ms), append(p99, r.P99ms), append(splits, r.split)
		steps["factory"] = append(steps["factory"], r.FactoryMs)
		for k, v := range r.StepsMs {
			steps[k] = append(steps[k], v)
		}
	}
	o, p := median(rates), median(pg)
	ratio, pairs := pairRatios(rates, pg)
	b.ReportMetric(ratio, fmt.Sprintf("ratio-sdk-fsync-%v", fsync))
	if fsync {
		setAim(func() { aims.sdk = ratio })
	}
	row(fmt.Sprintf("Shipped binary: the wallet SDK's transfer of an external party from bench/loadgen (transfer factory, prepare, sign, ledger end, execute, completion), 8 clients, %s (transfers/s, median of %d × %s)", label, shippedRuns, run),
		fmt.Sprintf("%.0f", o), fmt.Sprintf("pgbench TPC-B 8 clients: %.0f tps (runs %s)", p, fmtRates(pg)),
		fmt.Sprintf("ratio %.2f (%s; aim ≥ 0.25); p50 / p99 %.2f / %.2f ms; mean steps: factory %.2f, prepare and sign %.2f, execute %.2f, completion %.2f ms; CPU per transfer %s; %s; runs %s",
			ratio, pairs, median(p50), median(p99), median(steps["factory"]), median(steps["prepare"]), median(steps["execute"]), median(steps["completion"]),
			medianSplit(splits), cpuAgainst(splits, pgCPU, "transfer"), fmtRates(rates)))
}
