package ledger_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/ccwallet/ccwallet/store"
)

// TestPruneChangesNothingVisible: a pruning run removes old update-log
// rows and nothing a user or an automation sees changes: the member's
// traffic (use, extra use, remaining, the free base rate left in a window
// that the cutoff cuts in two), balances, holdings, history, a finished
// instruction and offer, and the top-up automation's decision. Before
// pruned_traffic, the pruned rows' traffic came back as remaining traffic
// and the top-up did not buy.
func TestPruneChangesNothingVisible(t *testing.T) {
	rules := ledger.DefaultRules()
	rules.BaseRateBurstAmountBytes = 3_000 // every transfer draws on extra traffic
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock, Rules: &rules})
			ctx := context.Background()
			p, q := ledgertest.Party(t, l), ledgertest.Party(t, l)
			ledgertest.Mint(t, l, p, "5000")
			if _, err := traffic.New(l).BuyTraffic(ctx, traffic.BuyTrafficRequest{Payer: p, Member: p, SynchronizerID: l.SynchronizerID(),
				Bytes: 400_000, ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "t1"}); err != nil {
				t.Fatal(err)
			}
			send := func(amount string) {
				t.Helper()
				if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: p, Receiver: q, Amount: coin.MustParse(amount)}); err != nil {
					t.Fatal(err)
				}
			}
			send("10")
			send("20")
			ti, err := l.CreateTransferInstruction(ctx, ledger.TransferInstructionRequest{Sender: p, Receiver: q, Amount: coin.MustParse("50"), ExecuteBefore: clock.Now().Add(time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.WithdrawTransferInstruction(ctx, p, ti.InstructionCID); err != nil {
				t.Fatal(err)
			}
			o, _, err := l.CreateOffer(ctx, ledger.OfferRequest{Sender: p, Receiver: q, Amount: coin.MustParse("5"), ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "o1"})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.RejectOffer(ctx, q, o.ContractID); err != nil {
				t.Fatal(err)
			}
			closeRounds(t, l)
			// Into a fresh base-rate window, then updates on both sides of
			// the cutoff within it, the first in a closed round.
			window := rules.BaseRateBurstWindow
			clock.Advance(window - time.Duration(clock.Now().UnixNano()%int64(window)) + time.Second)
			send("1")
			closeRounds(t, l)
			clock.Advance(time.Minute)
			cutoff := clock.Now()
			clock.Advance(time.Minute)
			send("2")
			retention := clock.Now().Sub(cutoff)

			snapshot := func() string {
				t.Helper()
				st, err := traffic.New(l).TrafficStatus(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				out := fmt.Sprintf("traffic %+v\n", st)
				for _, party := range []coin.PartyID{p, q, l.Operator()} {
					b, err := l.Balance(ctx, party)
					if err != nil {
						t.Fatal(err)
					}
					hs, _, err := l.Holdings(ctx, party)
					if err != nil {
						t.Fatal(err)
					}
					h, err := history.New(l).List(ctx, party, ledger.HistoryQuery{PageSize: 100})
					if err != nil {
						t.Fatal(err)
					}
					out += fmt.Sprintf("%s: balance %+v\n", party.Hint(), b)
					for _, v := range hs {
						out += fmt.Sprintf("  holding %s %s %s %v\n", v.Contract.ContractID, v.Initial, v.Effective, v.Locked)
					}
					for _, it := range h {
						out += fmt.Sprintf("  history %d %s %s %s %s %s\n", it.ID, it.Kind, it.Subtype, it.Amount, it.Fees, it.Details.Notification)
					}
				}
				v, err := pending.New(l).TransferInstructionByID(ctx, p, ti.InstructionCID)
				out += fmt.Sprintf("instruction %s %v %v\n", v.Status, v.ResultCIDs, err)
				ov, err := pending.New(l).OfferStatus(ctx, p, "o1")
				out += fmt.Sprintf("offer %s %s %v\n", ov.Status, ov.FailureKind, err)
				return out
			}
			before := snapshot()
			st, _ := traffic.New(l).TrafficStatus(ctx, p)
			if st.ExtraConsumed == 0 || st.BaseRateRemaining == rules.BaseRateBurstAmountBytes {
				t.Fatalf("traffic %+v: want extra use and a window in use", st)
			}
			rep, err := l.Prune(ctx, retention, 0)
			if err != nil || rep.Updates == 0 {
				t.Fatalf("prune: %+v, %v; want old updates pruned", rep, err)
			}
			if after := snapshot(); after != before {
				t.Errorf("pruning changed what users see:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			// The top-up automation buys when less than its amount remains:
			// one byte more than remained before pruning.
			res, err := traffic.New(l).Topup(ctx, traffic.TopupConfig{TargetThroughput: st.Remaining + 1, MinInterval: time.Second, PollInterval: time.Second})
			if err != nil || res.Bytes != st.Remaining+1 {
				t.Errorf("top-up after pruning = %+v, %v; want %d bytes bought, as before pruning", res, err, st.Remaining+1)
			}
		})
	}
}

// closeRounds advances rounds until every round open now is closed.
func closeRounds(t *testing.T, l *ledger.Ledger) {
	t.Helper()
	if _, err := l.AdvanceRounds(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
}

// TestPruneKeepsOpenRounds: the updates of a round still open are not
// pruned, however old, because closing the round weighs the operator's
// validator reward by the traffic they spent (a node that was down for
// longer than the retention prunes before its round clock catches up).
// Before, they were pruned and the round closed with no reward.
func TestPruneKeepsOpenRounds(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		p, q := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, p, "100")
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: p, Receiver: q, Amount: coin.MustParse("1")}); err != nil {
			t.Fatal(err)
		}
		st, err := traffic.New(l).TrafficStatus(ctx, p)
		if err != nil || st.Consumed == 0 {
			t.Fatalf("traffic %+v, %v; want the transfer's", st, err)
		}
		round, price, err := l.CurrentRound(ctx)
		if err != nil {
			t.Fatal(err)
		}
		const retention = 30 * 24 * time.Hour
		clock.Advance(retention + time.Hour)
		if _, err := l.Prune(ctx, retention, 0); err != nil {
			t.Fatal(err)
		}
		closeRounds(t, l)
		var rewards []store.RewardCoupon
		err = ledger.StoreOf(l).NewSelect().Model(&rewards).Where("kind = ?", ledger.RewardValidator).Where("round = ?", round).Scan(ctx)
		want := l.Rules().TrafficCost(st.Consumed, price)
		if err != nil || len(rewards) != 1 || !rewards[0].Amount.Equal(want) {
			t.Errorf("validator reward of round %d = %+v, %v; want one of %s for its %d bytes", round, rewards, err, want, st.Consumed)
		}
	})
}
