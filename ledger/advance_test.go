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
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// The proof that a development network's time jump (ledger/devnet) is the
// core's round clock in bulk stays beside the clock: its seed needs the
// core's test seams (MintLocked).

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

// TestAdvanceRoundsInBulkIsRoundByRound: a jump of n rounds (ledger/devnet's
// AdvanceRounds, on the core's Rounds.AdvanceMany) leaves the network
// exactly as n single rounds do (AdvanceRound each, the round clock's
// tick): holdings live and spent, contracts, reward coupons,
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
			rep, err := devnet.New(l).AdvanceRounds(ctx, n)
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
