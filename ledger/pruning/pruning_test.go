package pruning_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/pruning"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

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
			ti, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: p, Receiver: q, Amount: coin.MustParse("50"), ExecuteBefore: clock.Now().Add(time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Instructions().Withdraw(ctx, p, ti.InstructionCID); err != nil {
				t.Fatal(err)
			}
			o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: p, Receiver: q, Amount: coin.MustParse("5"), ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "o1"})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Offers().Reject(ctx, q, o.ContractID); err != nil {
				t.Fatal(err)
			}
			ledgertest.CloseRounds(t, l)
			// Into a fresh base-rate window, then updates on both sides of
			// the cutoff within it, the first in a closed round.
			window := rules.BaseRateBurstWindow
			clock.Advance(window - time.Duration(clock.Now().UnixNano()%int64(window)) + time.Second)
			send("1")
			ledgertest.CloseRounds(t, l)
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
					hs, _, err := holdingsview.New(l).List(ctx, party)
					if err != nil {
						t.Fatal(err)
					}
					h, err := history.New(l).List(ctx, party, history.Query{PageSize: 100})
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
			rep, err := pruning.New(l).Prune(ctx, retention, 0)
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

// TestPruneKeepsOpenRounds: the updates of a round still open are not
// pruned, however old, because closing the round weighs the operator's
// validator reward by the traffic they spent (a node that was down for
// longer than the retention prunes before its round clock catches up).
// Before, they were pruned and the round closed with no reward.
func TestPruneKeepsOpenRounds(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
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
		if _, err := pruning.New(l).Prune(ctx, retention, 0); err != nil {
			t.Fatal(err)
		}
		ledgertest.CloseRounds(t, l)
		var rewards []store.RewardCoupon
		err = l.DB().NewSelect().Model(&rewards).Where("kind = ?", ledger.RewardValidator).Where("round = ?", round).Scan(ctx)
		want := l.Rules().TrafficCost(st.Consumed, price)
		if err != nil || len(rewards) != 1 || !rewards[0].Amount.Equal(want) {
			t.Errorf("validator reward of round %d = %+v, %v; want one of %s for its %d bytes", round, rewards, err, want, st.Consumed)
		}
	})
}

func TestPruneKeepsConservationAndHistory(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			ctx := context.Background()
			a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
			ledgertest.Mint(t, l, a, "10")
			if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("3")}); err != nil {
				t.Fatal(err)
			}
			if _, err := devnet.New(l).AdvanceRounds(ctx, 4); err != nil {
				t.Fatal(err)
			}
			clock.Advance(31 * 24 * time.Hour)
			ledgertest.Mint(t, l, b, "2")
			historyBefore := ledgertest.HistorySubtypes(t, l, a)
			balBefore, _ := l.Balance(ctx, b)
			supplyBefore := ledgertest.Conserved(t, l)
			spentRecords := func() int {
				n, err := l.DB().NewSelect().Table("spent_holdings").Count(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return int(n)
			}
			if n := spentRecords(); n != 1 {
				t.Fatalf("%d spent holdings recorded before pruning, want the transfer's input", n)
			}

			if _, err := pruning.New(l).Prune(ctx, 0, 0); !fault.IsValidation(err) {
				t.Errorf("retention 0 = %v, want a validation error", err)
			}
			rep, err := pruning.New(l).Prune(ctx, 30*24*time.Hour, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Updates == 0 || rep.Contracts == 0 || !rep.Complete {
				t.Errorf("report %+v: want old updates and archived contracts removed", rep)
			}
			if n := spentRecords(); n != 0 {
				t.Errorf("%d old spent holdings left after pruning, want none", n)
			}
			supplyAfter := ledgertest.Conserved(t, l)
			if diff := cmp.Diff(supplyBefore, supplyAfter, cmp.Comparer(func(x, y coin.Amount) bool { return x.Equal(y) })); diff != "" {
				t.Errorf("supply changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(historyBefore, ledgertest.HistorySubtypes(t, l, a)); diff != "" {
				t.Errorf("history changed (-before +after):\n%s", diff)
			}
			balAfter, _ := l.Balance(ctx, b)
			if !balAfter.EffectiveUnlocked.Equal(balBefore.EffectiveUnlocked) || balAfter.Count != balBefore.Count {
				t.Errorf("balance %+v -> %+v", balBefore, balAfter)
			}
			// Holdings still resolve to their (live) contracts.
			hs, _, err := holdingsview.New(l).List(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hs {
				if h.Contract.ContractID == "" {
					t.Errorf("live holding lost its contract")
				}
			}
			// Nothing older is left: a second run removes nothing.
			if rep, err := pruning.New(l).Prune(ctx, 30*24*time.Hour, 0); err != nil || rep.Updates != 0 {
				t.Errorf("second prune = %+v, %v; want nothing removed", rep, err)
			}
			// The ledger keeps working after pruning.
			if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: b, Receiver: a, Amount: coin.MustParse("1")}); err != nil {
				t.Fatal(err)
			}
			if n := spentRecords(); n != 1 {
				t.Errorf("%d spent holdings recorded after a new transfer, want 1", n)
			}
		})
	}
}

// TestPruneRetentionBoundary: an update exactly retention old is kept; one
// a microsecond older is pruned.
func TestPruneRetentionBoundary(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			ctx := context.Background()
			p := ledgertest.Party(t, l)
			ledgertest.Mint(t, l, p, "5")
			ledgertest.CloseRounds(t, l) // only closed rounds' updates are pruned
			before, _ := l.Balance(ctx, p)
			const retention = 30 * 24 * time.Hour
			clock.Advance(retention)
			if rep, err := pruning.New(l).Prune(ctx, retention, 0); err != nil || rep.Updates != 0 {
				t.Fatalf("exactly at the retention: %+v, %v; want nothing pruned", rep, err)
			}
			clock.Advance(time.Microsecond)
			rep, err := pruning.New(l).Prune(ctx, retention, 0)
			if err != nil || rep.Updates == 0 {
				t.Fatalf("past the retention: %+v, %v; want the old updates pruned", rep, err)
			}
			if b, _ := l.Balance(ctx, p); !b.EffectiveUnlocked.Equal(before.EffectiveUnlocked) {
				t.Errorf("balance after pruning = %s, want %s", b.EffectiveUnlocked, before.EffectiveUnlocked)
			}
			ledgertest.Conserved(t, l)
		})
	}
}

// TestPruneStopsAtMaxDuration: a run whose wall-clock budget is spent
// before its first page removes nothing and reports itself incomplete; a
// budget that lasts removes the old updates. The wall clock is replaced by
// one that moves a minute per reading, so no test waits.
func TestPruneStopsAtMaxDuration(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			ctx := context.Background()
			p := ledgertest.Party(t, l)
			ledgertest.Mint(t, l, p, "5")
			ledgertest.CloseRounds(t, l) // only closed rounds' updates are pruned
			before, _ := l.Balance(ctx, p)
			const retention = 30 * 24 * time.Hour
			clock.Advance(retention + time.Hour)
			wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			pr := pruning.New(l)
			pruning.SetWallClock(pr, func() time.Time { wall = wall.Add(time.Minute); return wall })
			rep, err := pr.Prune(ctx, retention, 30*time.Second)
			if err != nil || rep.Complete || rep.Updates != 0 {
				t.Fatalf("budget spent at once: %+v, %v; want an incomplete run that removed nothing", rep, err)
			}
			rep, err = pr.Prune(ctx, retention, 90*time.Second)
			if err != nil || !rep.Complete || rep.Updates == 0 {
				t.Fatalf("budget for one page: %+v, %v; want the old updates removed", rep, err)
			}
			if b, _ := l.Balance(ctx, p); !b.EffectiveUnlocked.Equal(before.EffectiveUnlocked) {
				t.Errorf("balance after pruning = %s, want %s", b.EffectiveUnlocked, before.EffectiveUnlocked)
			}
			ledgertest.Conserved(t, l)
		})
	}
}
