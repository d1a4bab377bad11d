package ledger_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// seedForJump builds a network with something for every per-round effect:
// traffic in each open round (validator rewards), app reward coupons,
// holdings that turn to dust within a few rounds or a few hundred (one
// locked behind an expired lock, one behind a live one), an offer, a
// transfer instruction with its lock, a preapproval and an external
// party's coupon that collection leaves alone.
func seedForJump(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
	ctx := context.Background()
	a, b, c := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
	ledgertest.Mint(t, l, a, "5000")
	ledgertest.Mint(t, l, b, "0.02") // dust after ~5 rounds
	ledgertest.Mint(t, l, c, "1.5")  // dust after ~400 rounds
	for i := range 3 {
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: a, Receiver: b, Amount: coin.MustParse(fmt.Sprint(10 + i)), Description: "rent"}); err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			if _, err := l.Rounds().AdvanceRound(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := l.MintLocked(ctx, c, coin.MustParse("0.01"), clock.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.MintLocked(ctx, c, coin.MustParse("0.01"), clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: a, Receiver: c, Amount: coin.MustParse("3"), ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "o-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: a, Receiver: c, Amount: coin.MustParse("4"), ExecuteBefore: clock.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Preapprovals().Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	// An external party without a minting delegation: its coupons wait.
	ext, _ := ledgertest.ExternalParty(t, l, "ext")
	if err := ledgertest.Dev(t, l).SeedRewardCoupons(ctx, ledger.RewardApp, []coin.PartyID{a, b, ext}, coin.MustParse("0.7")); err != nil {
		t.Fatal(err)
	}
}

// TestAdvanceRoundsInBulkIsRoundByRound: a jump of n rounds leaves the
// network exactly as n single rounds do (AdvanceRound each, the round
// clock's tick): holdings live and spent, contracts, reward coupons,
// history, rounds and the update log's totals, for jumps within one piece
// and across pieces, on both engines.
func TestAdvanceRoundsInBulkIsRoundByRound(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		seedForJump(t, l, clock)
		restore := ledgertest.Snapshot(t, l)
		for _, n := range []int{1, 2, 7, 100, 1000} {
			restore(t)
			for range n {
				if _, err := l.Rounds().AdvanceRound(ctx); err != nil {
					t.Fatal(err)
				}
			}
			stepped := ledgertest.Conserved(t, l)
			want := networkState(t, l)
			restore(t)
			rep, err := l.Rounds().AdvanceRounds(ctx, n)
			if err != nil {
				t.Fatalf("advance %d: %v", n, err)
			}
			if rep.To-rep.From != coin.Round(n) {
				t.Errorf("advance %d: report %d to %d", n, rep.From, rep.To)
			}
			jumped := ledgertest.Conserved(t, l)
			if !jumped.Live.Equal(stepped.Live) || !jumped.Minted.Equal(stepped.Minted) || !jumped.Burned.Equal(stepped.Burned) {
				t.Errorf("advance %d: supply %+v, round by round %+v", n, jumped, stepped)
			}
			if got := networkState(t, l); !slices.Equal(got, want) {
				t.Errorf("advance %d: the jump differs from round by round:\n%s", n, lineDiff(got, want))
			}
		}
	})
}

var idPattern = regexp.MustCompile(`[0-9a-f]{40,}`)

// networkState lists what a jump must reproduce, one line per row, sorted,
// with contract and update IDs (fresh on every run) blanked out. Dust
// expiry's history rows leave their round out: a jump expires dust once,
// at its last round.
func networkState(t *testing.T, l *ledger.Ledger) []string {
	t.Helper()
	ctx := context.Background()
	db := ledger.StoreOf(l)
	var out []string
	add := func(format string, args ...any) {
		out = append(out, idPattern.ReplaceAllString(fmt.Sprintf(format, args...), "#"))
	}
	var hs []store.Holding
	var spent []store.SpentHolding
	var cs []store.Contract
	var coupons []store.RewardCoupon
	var history []store.HistoryEntry
	var rounds []store.Round
	var updates []store.Update
	for _, m := range []any{&hs, &spent, &cs, &coupons, &history, &rounds, &updates} {
		if err := db.NewSelect().Model(m).Scan(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range hs {
		add("holding %s %s r%d %s lock=%s %v %s %v", h.Owner, h.Amount, h.CreatedRound, h.Rate, h.LockHolder, h.LockExpiresAt.Time.UTC(), h.LockContext, h.CreatedAt.UTC())
	}
	for _, h := range spent {
		add("spent %s %s r%d %s", h.Owner, h.Amount, h.CreatedRound, h.Rate)
	}
	for _, c := range cs {
		add("contract %s %s %s archived=%v %v", c.TemplateID, c.Payload, c.Stakeholders, c.ArchivedOffset != nil, c.CreatedAt.UTC())
	}
	for _, c := range coupons {
		add("coupon %s %s %s r%d featured=%v collected=%v", c.Kind, c.Beneficiary, c.Amount, c.Round, c.Featured, !c.CollectedAt.IsZero())
	}
	for _, h := range history {
		round := fmt.Sprint(h.Round)
		if strings.HasSuffix(h.Subtype, "AmuletExpired") {
			round = "-"
		}
		add("history %s %s %s %s %s %s %q r%s %s", h.Party, h.Kind, h.Subtype, h.Counterparty, h.Amount, h.Fees, h.Description, round, h.Details)
	}
	for _, r := range rounds {
		add("round %d %s %v %v closed=%v", r.Number, r.Price, r.OpensAt.UTC(), r.TargetClosesAt.UTC(), !r.ClosedAt.IsZero())
	}
	var minted, burned coin.Amount
	var traffic int64
	for _, u := range updates {
		minted, burned, traffic = minted.Add(u.Minted), burned.Add(u.Burned), traffic+u.TrafficBytes
	}
	add("updates minted %s burned %s traffic %d", minted, burned, traffic)
	slices.Sort(out)
	return out
}

// lineDiff shows the first lines only one of two sorted lists has.
func lineDiff(got, want []string) string {
	var b strings.Builder
	shown := 0
	i, j := 0, 0
	for (i < len(got) || j < len(want)) && shown < 12 {
		switch {
		case j >= len(want) || (i < len(got) && got[i] < want[j]):
			fmt.Fprintf(&b, "  jump only:  %s\n", got[i])
			i++
			shown++
		case i >= len(got) || want[j] < got[i]:
			fmt.Fprintf(&b, "  steps only: %s\n", want[j])
			j++
			shown++
		default:
			i++
			j++
		}
	}
	fmt.Fprintf(&b, "  (%d lines against %d)", len(got), len(want))
	return b.String()
}

// TestAdvanceRoundsLetsOthersThrough: a long jump (2,000 rounds, four
// pieces) holds no lock between its pieces: paused after its first piece,
// it waits for another user's send, which completes in a round the jump
// goes on to close. A jump holding its transaction or a lock across the
// pause leaves the send waiting (SQLite) or running at the round before
// the jump (Postgres): checked so, both fail it; the send's deadline fails
// the test instead of hanging.
func TestAdvanceRoundsLetsOthersThrough(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "100")
		began, sent := make(chan coin.Round, 1), make(chan struct{})
		paused := false
		l.SetAdvanceHook(func(r coin.Round) {
			if !paused {
				paused = true
				began <- r
				<-sent
			}
		})
		defer l.SetAdvanceHook(nil)
		type result struct {
			rep ledger.RoundReport
			err error
		}
		done := make(chan result, 1)
		go func() {
			rep, err := l.Rounds().AdvanceRounds(ctx, 2_000)
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
