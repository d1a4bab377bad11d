package devnet_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/google/go-cmp/cmp"
)

// TestAdvanceUntil: a jump until a time opens one round per tick from the
// latest round's opening, rounded up, and refuses a time not after it,
// too far ahead or not RFC 3339, and a request with both or neither.
func TestAdvanceUntil(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		opened := clock.Now()
		tick := l.Rules().TickDuration
		for _, tt := range []struct {
			after time.Duration
			to    coin.Round
		}{{25 * time.Minute, 3}, {3 * tick, 3}, {3*tick + time.Second, 4}} {
			// The clock stands still: every round opens at the same time.
			from := ledgertest.OpenRoundNumbers(t, l)
			rep, err := devnet.New(l).Advance(ctx, devnet.AdvanceRequest{Until: opened.Add(tt.after).Format(time.RFC3339)})
			if err != nil {
				t.Fatalf("until +%s: %v", tt.after, err)
			}
			if got := rep.To - rep.From; got != tt.to || rep.From != from[len(from)-1] {
				t.Errorf("until +%s: %d to %d, want %d rounds", tt.after, rep.From, rep.To, tt.to)
			}
		}
		for _, req := range []devnet.AdvanceRequest{
			{}, {Rounds: 1, Until: opened.Add(time.Hour).Format(time.RFC3339)},
			{Until: "tomorrow"}, {Until: opened.Format(time.RFC3339)}, {Until: opened.Add(-time.Hour).Format(time.RFC3339)},
			{Until: opened.Add(time.Duration(devnet.MaxAdvanceRounds+1) * tick).Format(time.RFC3339)},
		} {
			if _, err := devnet.New(l).Advance(ctx, req); !fault.IsValidation(err) {
				t.Errorf("Advance(%+v) = %v, want a validation error", req, err)
			}
		}
	})
}

func TestAdvanceRoundsKeepsThreeOpenAndCarriesPrice(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		rs, _ := l.Rounds().OpenRounds(ctx)
		price, opens := rs[0].Price, rs[0].OpensAt
		rep, err := devnet.New(l).AdvanceRounds(ctx, 5)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ledger.RoundReport{From: 0, To: 5, Closed: []coin.Round{0, 1, 2}, Collected: rep.Collected}, rep); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]coin.Round{3, 4, 5}, ledgertest.OpenRoundNumbers(t, l)); diff != "" {
			t.Errorf("open rounds (-want +got):\n%s", diff)
		}
		rs, _ = l.Rounds().OpenRounds(ctx)
		for _, r := range rs {
			if !r.Price.Equal(price) {
				t.Errorf("round %d price %s, want %s carried over", r.Number, r.Price, price)
			}
		}
		// The jump's rounds open at once: the newest is the one in use.
		if rs[2].OpensAt.Before(opens) {
			t.Errorf("round 5 opens %s, before round 0 at %s", rs[2].OpensAt, opens)
		}
		if n, _, err := l.CurrentRound(ctx); err != nil || n != 5 {
			t.Errorf("current round = %d, %v; want 5", n, err)
		}
		// Liveness records of rounds 1 and 2 (closed) were minted for the
		// operator, at the liveness issuance.
		b, err := l.Balance(ctx, l.Operator())
		if err != nil {
			t.Fatal(err)
		}
		// Initial amounts: the holding fee of the rounds since is not ours.
		if got, want := b.EffectiveUnlocked.Add(b.HoldingFees), l.Rules().LivenessActivityReward.MulInt(2); !got.Equal(want) {
			t.Errorf("operator holdings = %s, want %s from two liveness records", got, want)
		}
	})
}

func TestAdvanceRoundsRefusesBadInput(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		for _, n := range []int{0, -1, devnet.MaxAdvanceRounds + 1} {
			if _, err := devnet.New(l).AdvanceRounds(ctx, n); !fault.IsValidation(err) {
				t.Errorf("AdvanceRounds(%d) = %v, want a validation error", n, err)
			}
		}
		if diff := cmp.Diff([]coin.Round{0}, ledgertest.OpenRoundNumbers(t, l)); diff != "" {
			t.Errorf("open rounds changed (-want +got):\n%s", diff)
		}
	})
}

func TestAdvanceRoundsOutsideDevNet(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, e), ledger.Config{AdminUsers: []string{"admin"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := devnet.New(l).AdvanceRounds(context.Background(), 1); !errors.Is(err, fault.ErrDisabled) {
				t.Errorf("AdvanceRounds on production = %v, want ErrDisabled", err)
			}
		})
	}
}

// TestAdvanceManyRoundsExpiresSmallHoldings: 300 developer rounds make a
// 1 CC holding dust (it pays about 0.0038 CC per round) while a large one
// only pays its fee; the operator collects its liveness rewards.
func TestAdvanceManyRoundsExpiresSmallHoldings(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, p, "1")
		ledgertest.Mint(t, l, p, "1000")
		rep, err := devnet.New(l).AdvanceRounds(ctx, 300)
		if err != nil {
			t.Fatal(err)
		}
		if rep.To != 300 || rep.Expired < 1 || rep.Collected < 290 {
			t.Errorf("report: to %d, expired %d, collected %d", rep.To, rep.Expired, rep.Collected)
		}
		b, _ := l.Balance(ctx, p)
		if b.Count != 1 {
			t.Errorf("%d holdings left, want only the large one", b.Count)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestAdvanceRoundsLetsOthersThrough: a long jump (2,000 rounds, four
// pieces) holds no lock between its pieces: paused after its first piece,
// it waits for another user's send, which completes in a round the jump
// goes on to close. A jump holding its transaction or a lock across the
// pause leaves the send waiting (SQLite) or running at the round before
// the jump (Postgres): checked so, both fail it; the send's deadline fails
// the test instead of hanging.
func TestAdvanceRoundsLetsOthersThrough(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "100")
		began, sent := make(chan coin.Round, 1), make(chan struct{})
		paused := false
		s := devnet.New(l)
		devnet.SetAdvanceHook(s, func(r coin.Round) {
			if !paused {
				paused = true
				began <- r
				<-sent
			}
		})
		type result struct {
			rep ledger.RoundReport
			err error
		}
		done := make(chan result, 1)
		go func() {
			rep, err := s.AdvanceRounds(ctx, 2_000)
			done <- result{rep, err}
		}()
		var mid coin.Round
		select {
		case mid = <-began:
		case r := <-done:
			t.Fatalf("the jump finished (%v) without a pause between pieces", r.err)
		}
		sendCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := l.Transfer(sendCtx, ledger.TransferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("1")})
		cancel()
		var open []ledger.RoundInfo
		if err == nil {
			open, err = l.Rounds().OpenRounds(ctx)
		}
		close(sent)
		r := <-done
		if err != nil {
			t.Fatalf("a send during the jump: %v", err)
		}
		if r.err != nil {
			t.Fatal(r.err)
		}
		if now := open[len(open)-1].Number; now != mid || !(r.rep.From < now && now < r.rep.To) {
			t.Errorf("the send ran at round %d; want mid-jump, at %d, between %d and %d", now, mid, r.rep.From, r.rep.To)
		}
	})
}
