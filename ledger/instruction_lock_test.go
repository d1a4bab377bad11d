package ledger_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
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
)

// TestInstructionAcceptDeliversExactly is a property test of issue 38's
// "transfer of nothing": after any sequence of time jumps (rounds advanced
// by a development network's jump, which leaves the clock, and the clock
// moved on), every transfer instruction accepted delivered exactly its
// amount to its receiver, in the result and in both histories; an accept
// of a lock the holding fees ate is refused with words and changes
// nothing. Before the fix, a jump that ate a lock's whole value made an
// accept answer success and record a completed transfer of 0. On both
// engines; the seed is logged.
func TestInstructionAcceptDeliversExactly(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			r := rand.New(rand.NewPCG(seed, 38))
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			ctx := context.Background()
			sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
			ledgertest.Mint(t, l, sender, "1000")
			jumps := []int{1, 6, 50, 400, 2000}
			accepted, refused := 0, 0
			for step := range 40 {
				switch r.IntN(4) {
				case 0, 1:
					amount := coin.FromInt(int64(1 + r.IntN(9)))
					_, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{
						Sender: sender, Receiver: receiver, Amount: amount, Description: "rent",
						ExecuteBefore: clock.Now().Add(time.Duration(10+r.IntN(48*60)) * time.Minute),
					})
					if err != nil && !errors.Is(err, fault.ErrInsufficientFunds) {
						t.Fatalf("step %d: create: %v", step, err)
					}
				case 2:
					if _, err := devnet.New(l).AdvanceRounds(ctx, jumps[r.IntN(len(jumps))]); err != nil {
						t.Fatalf("step %d: advance: %v", step, err)
					}
					if r.IntN(2) == 0 {
						clock.Advance(time.Duration(r.IntN(180)) * time.Minute)
					}
				case 3:
					tis, err := pending.New(l).TransferInstructions(ctx, receiver)
					if err != nil {
						t.Fatal(err)
					}
					if len(tis) == 0 {
						continue
					}
					ti := tis[r.IntN(len(tis))]
					if acceptExactly(t, l, receiver, ti) {
						accepted++
					} else {
						refused++
					}
				}
				ledgertest.Conserved(t, l)
			}
			t.Logf("%d accepted, %d refused", accepted, refused)
			// Every completed transfer in both histories carries its full
			// amount.
			for _, p := range []coin.PartyID{sender, receiver} {
				items, err := history.New(l).List(ctx, p, history.Query{PageSize: 1000})
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range items {
					if it.Subtype != "TransferInstruction_Accept" {
						continue
					}
					ti, err := pending.New(l).TransferInstructionByID(ctx, p, it.Details.ContractID)
					if err != nil {
						t.Fatal(err)
					}
					var got coin.Amount
					for _, rc := range it.Receivers {
						if rc.Party == receiver {
							got = rc.Amount
						}
					}
					if !got.Equal(ti.Amount) {
						t.Errorf("%s's history: completed transfer %s delivered %s, instructed %s", p, ti.ContractID, got, ti.Amount)
					}
				}
			}
		})
	}
}

// acceptExactly accepts ti as receiver: it reports whether the accept went
// through, and checks that it delivered exactly ti's amount, or that a
// refusal says why in words and left the instruction pending.
func acceptExactly(t *testing.T, l *ledger.Ledger, receiver coin.PartyID, ti ledger.TransferInstruction) bool {
	t.Helper()
	ctx := context.Background()
	before := balances(t, l, ti.Sender, receiver)
	res, err := l.Instructions().Accept(ctx, receiver, ti.ContractID)
	if err != nil {
		if !errors.Is(err, fault.ErrInsufficientFunds) && !errors.Is(err, fault.ErrExpired) {
			t.Fatalf("accept %s: %v", ti.ContractID, err)
		}
		if errors.Is(err, fault.ErrInsufficientFunds) && !strings.Contains(err.Error(), "less than the") {
			t.Errorf("refusal without words: %v", err)
		}
		after, err2 := pending.New(l).TransferInstructionByID(ctx, receiver, ti.ContractID)
		if err2 != nil || after.Status != ledger.InstructionPending {
			t.Errorf("a refused accept left %s %s, %v; want pending", ti.ContractID, after.Status, err2)
		}
		if got := balances(t, l, ti.Sender, receiver); strings.Join(got, ",") != strings.Join(before, ",") {
			t.Errorf("a refused accept changed balances %v -> %v", before, got)
		}
		return false
	}
	if len(res.ReceiverHoldingCIDs) != 1 {
		t.Fatalf("accept %s: receiver holdings %v, want one", ti.ContractID, res.ReceiverHoldingCIDs)
	}
	hs, _, err := holdingsview.New(l).List(ctx, receiver)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if h.Contract.ContractID == res.ReceiverHoldingCIDs[0] && !h.Initial.Equal(ti.Amount) {
			t.Errorf("accept %s delivered %s, instructed %s", ti.ContractID, h.Initial, ti.Amount)
		}
	}
	return true
}
