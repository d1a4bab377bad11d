package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// BenchmarkAdvanceRounds: how long a development network's jump of 1,000
// rounds takes (Ledger.AdvanceRounds, in bulk), on each engine, median of
// 3, on a network of 100 parties with 10 holdings and an app reward coupon
// each; beside 1,000 single rounds (AdvanceRound, the round clock's tick
// and the jump before it was made in bulk) in the same run.
func BenchmarkAdvanceRounds(b *testing.B) {
	for _, e := range []store.Dialect{store.SQLite, store.Postgres} {
		ctx := context.Background()
		l := ledgertest.Open(b, ledgertest.DBURL(b, e), ledgertest.Options{})
		dev := ledgertest.Dev(b, l)
		as := make([]coin.Amount, 10)
		for i := range as {
			as[i] = coin.MustParse(fmt.Sprintf("%d.25", 1+i))
		}
		var parties []coin.PartyID
		for range 100 {
			p := ledgertest.Party(b, l)
			parties = append(parties, p)
			if err := dev.MintBulk(ctx, p, as); err != nil {
				b.Fatal(err)
			}
		}
		if err := dev.SeedRewardCoupons(ctx, ledger.RewardApp, parties, coin.MustParse("0.5")); err != nil {
			b.Fatal(err)
		}
		var runs, cpus []time.Duration
		for range 3 {
			start, cpu0 := time.Now(), processCPU()
			rep, err := devnet.New(l).AdvanceRounds(ctx, 1000)
			if err != nil {
				b.Fatal(err)
			}
			runs, cpus = append(runs, time.Since(start)), append(cpus, processCPU()-cpu0)
			if rep.To-rep.From != 1000 {
				b.Fatalf("advanced %d to %d", rep.From, rep.To)
			}
		}
		start := time.Now()
		for range 1000 {
			if _, err := l.Rounds().AdvanceRound(ctx); err != nil {
				b.Fatal(err)
			}
		}
		single := time.Since(start)
		ledgertest.Conserved(b, l)
		texts := make([]string, len(runs))
		for i, d := range runs {
			texts[i] = ms(d)
		}
		metric := fmt.Sprintf("Development time jump of 1,000 rounds, %s (median of 3)", engineName(e))
		ours, ref := ms(medianDuration(runs)), ms(single)+" (1,000 single rounds)"
		b.Logf("%s: %s; reference %s; runs %s; CPU %s", metric, ours, ref, strings.Join(texts, ", "), ms(medianDuration(cpus)))
		// On SQLite the whole jump runs in this process: its CPU time is
		// steadier than the wall time on a busy host.
		aim := "aim < 1 s; CPU of a jump (median) " + ms(medianDuration(cpus))
		if e == store.Postgres {
			aim = "aim < 1 s"
		}
		row(metric, ours, ref, aim+"; runs "+strings.Join(texts, ", "))
	}
}
