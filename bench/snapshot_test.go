package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
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
		if _, err := dev.Snapshot(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
		snap := time.Since(start)
		var restores []time.Duration
		for range 5 {
			ledgertest.Mint(b, l, first, "1")
			start := time.Now()
			if err := dev.Restore(ctx, "bench"); err != nil {
				b.Fatal(err)
			}
			restores = append(restores, time.Since(start))
		}
		bal, err := l.Balance(ctx, first)
		if err != nil || bal.Count != 100 {
			b.Fatalf("after restore: %+v, %v; want the snapshot's 100 holdings", bal, err)
		}
		ledgertest.Conserved(b, l)
		sorted := slices.Clone(restores)
		slices.Sort(sorted)
		runs := make([]string, len(restores))
		for i, d := range restores {
			runs[i] = ms(d)
		}
		aim := "aim restore < 1 s"
		if e == store.Postgres {
			aim = "no aim set"
		}
		metric := fmt.Sprintf("Development snapshot / restore of a network with 10,000 holdings, %s (restore median of 5)", engineName(e))
		ours := ms(snap) + " / " + ms(sorted[len(sorted)/2])
		b.Logf("%s: %s; restores %s", metric, ours, strings.Join(runs, ", "))
		row(metric, ours, "", aim+"; restores "+strings.Join(runs, ", "))
	}
}

func engineName(e store.Dialect) string {
	if e == store.SQLite {
		return "SQLite"
	}
	return "Postgres"
}
