package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// BenchmarkSnapshotRestore: how long a development network's snapshot and
// restore take with 10,000 holdings (100 parties of 100, each party
// seeded in its own transaction), on each engine; restore is the median
// of 5, each after a write so it has something to undo.
func BenchmarkSnapshotRestore(b *testing.B) {
	for _, e := range []store.Dialect{store.SQLite, store.Postgres} {
		ctx := context.Background()
		l := ledgertest.Open(b, ledgertest.DBURL(b, e), ledgertest.Options{})
		dev := ledgertest.Dev(b, l)
		as := make([]coin.Amount, 100)
		for i := range as {
			as[i] = coin.MustParse(fmt.Sprintf("%d.5", 1+i))
		}
		var first coin.PartyID
		for i := range 100 {
			p := ledgertest.Party(b, l)
			if i == 0 {
				first = p
			}
			if err := dev.MintBulk(ctx, p, as); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		if _, err := devnet.New(l).Snapshot(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
		snap := time.Since(start)
		var restores, cpus []time.Duration
		for range 5 {
			ledgertest.Mint(b, l, first, "1")
			start, cpu0 := time.Now(), processCPU()
			if err := devnet.New(l).Restore(ctx, "bench"); err != nil {
				b.Fatal(err)
			}
			restores, cpus = append(restores, time.Since(start)), append(cpus, processCPU()-cpu0)
		}
		bal, err := l.Balance(ctx, first)
		if err != nil || bal.Count != 100 {
			b.Fatalf("after restore: %+v, %v; want the snapshot's 100 holdings", bal, err)
		}
		ledgertest.Conserved(b, l)
		runs := make([]string, len(restores))
		for i, d := range restores {
			runs[i] = ms(d)
		}
		// On SQLite the whole restore runs in this process, so its CPU time
		// is the restore's, and steadier than the wall time on a busy host.
		aim := "aim restore < 1 s; CPU of a restore (median) " + ms(medianDuration(cpus))
		if e == store.Postgres {
			aim = "no aim set"
		}
		metric := fmt.Sprintf("Development snapshot / restore of a network with 10,000 holdings, %s (restore median of 5)", engineName(e))
		ours := ms(snap) + " / " + ms(medianDuration(restores))
		b.Logf("%s: %s; %s; restores %s", metric, ours, aim, strings.Join(runs, ", "))
		row(metric, ours, "", aim+"; restores "+strings.Join(runs, ", "))
	}
}

func medianDuration(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

func engineName(e store.Dialect) string {
	if e == store.SQLite {
		return "SQLite"
	}
	return "Postgres"
}
