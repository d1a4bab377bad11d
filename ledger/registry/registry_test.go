package registry_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/reassign"
	"github.com/ccwallet/ccwallet/ledger/registry"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

func contextKeys(cc registry.ChoiceContext) []string {
	var ks []string
	for _, k := range []string{registry.ContextAmuletRules, registry.ContextOpenRound, registry.ContextExpireLock, registry.ContextTransferPreapprove, registry.ContextFeaturedAppRight} {
		if _, ok := cc.Values[k]; ok {
			ks = append(ks, k)
		}
	}
	return ks
}

// TestTransferFactoryKinds: self, offer, and direct once the receiver has
// a preapproval (with its provider's featured-app right disclosed).
func TestTransferFactoryKinds(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		reg := registry.New(l)
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		for _, c := range []struct {
			sender, receiver coin.PartyID
			kind             ledger.TransferKind
		}{{a, a, ledger.TransferSelf}, {a, b, ledger.TransferOffer}} {
			f, err := reg.TransferFactoryFor(ctx, c.sender, c.receiver)
			if err != nil || f.Kind != c.kind || len(f.Context.Disclosed) != 3 {
				t.Errorf("%s -> %s = %+v, %v; want %s", c.sender, c.receiver, f, err, c.kind)
			}
		}
		pre, _, err := l.Preapprovals().Create(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		f, err := reg.TransferFactoryFor(ctx, a, b)
		if err != nil || f.Kind != ledger.TransferDirect {
			t.Fatalf("with a preapproval = %+v, %v; want direct", f, err)
		}
		if diff := cmp.Diff([]string{registry.ContextAmuletRules, registry.ContextOpenRound, registry.ContextTransferPreapprove, registry.ContextFeaturedAppRight}, contextKeys(f.Context)); diff != "" {
			t.Errorf("context keys (-want +got):\n%s", diff)
		}
		if f.Context.Values[registry.ContextTransferPreapprove].Value != string(pre) || len(f.Context.Disclosed) != 5 {
			t.Errorf("context = %+v", f.Context)
		}
		// The preapproval names its receiver: the provider itself gets none.
		if f, err := reg.TransferFactoryFor(ctx, a, l.Operator()); err != nil || f.Kind != ledger.TransferOffer {
			t.Errorf("to the provider = %+v, %v; want offer", f.Kind, err)
		}
	})
}

// TestWalletAndRegistryAgreeOnTheRound: the wallet (balance, a transfer's
// round) and the registry (transfer factory, choice context) use the same
// round at every moment, the newest that has opened by the ledger's clock,
// even when the newest open round lies ahead of the clock (a replica whose
// clock lags); with none opened both refuse alike (issue 22.2).
func TestWalletAndRegistryAgreeOnTheRound(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		reg := registry.New(l)
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "100")
		for i := 0; i < 3; i++ {
			clock.Advance(time.Minute)
			if _, err := devnet.New(l).AdvanceRounds(ctx, 1); err != nil {
				t.Fatal(err)
			}
		}
		ti, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.MustParse("1"), ExecuteBefore: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(-30 * time.Second) // round 3 opened 30 s "ahead"
		rs, err := l.Rounds().OpenRounds(ctx)
		if err != nil || len(rs) != 3 || rs[1].Number != 2 {
			t.Fatalf("open rounds = %+v, %v", rs, err)
		}
		want := string(rs[1].ContractID)
		if n, _, err := l.CurrentRound(ctx); err != nil || n != 2 {
			t.Errorf("wallet's round = %d, %v; want 2", n, err)
		}
		if bal, err := l.Balance(ctx, a); err != nil || bal.Round != 2 {
			t.Errorf("balance at round %d, %v; want 2", bal.Round, err)
		}
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("1")}); err != nil {
			t.Fatal(err)
		}
		if h, err := history.New(l).List(ctx, a, history.Query{PageSize: 1}); err != nil || len(h) != 1 || h[0].Round != 2 {
			t.Errorf("the transfer's round = %+v, %v; want 2", h, err)
		}
		f, err := reg.TransferFactoryFor(ctx, a, b)
		if err != nil || f.Context.Values[registry.ContextOpenRound].Value != want {
			t.Errorf("factory = %+v, %v; want round 2 (%s)", f.Context.Values, err, want)
		}
		cc, err := reg.InstructionChoiceContext(ctx, ti.InstructionCID, ledger.MoveWithdraw)
		if err != nil || cc.Values[registry.ContextOpenRound].Value != want {
			t.Errorf("choice context = %+v, %v; want round 2 (%s)", cc.Values, err, want)
		}
		clock.Advance(-3 * time.Minute) // before any open round opened
		if _, _, err := l.CurrentRound(ctx); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("wallet's round with none opened: %v; want not found", err)
		}
		if _, err := reg.TransferFactoryFor(ctx, a, b); !errors.Is(err, fault.ErrNotFound) || err.Error() != "No open usable OpenMiningRound found." {
			t.Errorf("factory with none opened: %v; want scan's not found", err)
		}
	})
}

// TestReassignmentRefusedEverywhere: while a contract is being reassigned
// every path that would use it refuses it alike with ErrReassigning: the
// registry's choice contexts and factory, the wallet's moves on
// instructions and offers, and external parties' submissions; nothing
// changes, and once the reassignment completes the moves go through
// (issue 22.8: a wallet withdraw went through while the registry said 409).
func TestReassignmentRefusedEverywhere(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		reg := registry.New(l)
		ctx := context.Background()
		const target = "global-domain::1220feedfeed"
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "100")
		ext, key := ledgertest.ExternalParty(t, l, "ext")
		ledgertest.Mint(t, l, ext, "100")
		ti, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.MustParse("10"), ExecuteBefore: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		offer := func(tracking string) coin.ContractID {
			o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("1"), ExpiresAt: clock.Now().Add(time.Hour), TrackingID: tracking})
			if err != nil {
				t.Fatal(err)
			}
			return o.ContractID
		}
		o1, o2 := offer("o1"), offer("o2")
		// c pre-approves direct transfers.
		c := ledgertest.Party(t, l)
		pre, _, err := l.Preapprovals().Create(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		refused := func(what string, err error) {
			t.Helper()
			if !errors.Is(err, ledger.ErrReassigning) || !strings.Contains(err.Error(), "retry when the reassignment completes") {
				t.Errorf("%s during the reassignment: %v; want ErrReassigning", what, err)
			}
		}
		reassign := func(cid coin.ContractID, during func()) {
			t.Helper()
			if err := reassign.New(l).Begin(ctx, cid, target); err != nil {
				t.Fatal(err)
			}
			during()
			if err := reassign.New(l).Complete(ctx, cid); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := l.Balance(ctx, a)
		reassign(l.RulesContractID(), func() {
			for _, m := range []ledger.InstructionMove{ledger.MoveAccept, ledger.MoveReject, ledger.MoveWithdraw} {
				_, err := reg.InstructionChoiceContext(ctx, ti.InstructionCID, m)
				refused("registry "+string(m)+" context", err)
			}
			_, err := reg.TransferFactoryFor(ctx, a, b)
			refused("transfer factory", err)
			_, err = l.Instructions().Withdraw(ctx, a, ti.InstructionCID)
			refused("wallet withdraw", err)
			_, err = l.Instructions().Accept(ctx, b, ti.InstructionCID)
			refused("wallet accept", err)
			_, err = l.Instructions().Reject(ctx, b, ti.InstructionCID)
			refused("wallet reject", err)
			_, err = l.Offers().Accept(ctx, b, o1)
			refused("offer accept", err)
			p, err := external.New(l).PrepareExternalTransfer(ctx, ext, b, coin.MustParse("5"), "")
			if err != nil {
				t.Fatal(err)
			}
			_, err = external.New(l).Submit(ctx, ledgertest.Sign(t, ext, key, p))
			refused("external transfer", err)
			_, err = l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.MustParse("1"), ExecuteBefore: clock.Now().Add(time.Hour)})
			refused("instruction creation", err)
			_, err = l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: a, Receiver: c, Amount: coin.MustParse("1"), DeduplicationID: "during-rules"})
			refused("one-step send", err)
		})
		// The receiver's own preapproval being reassigned stops a one-step
		// send to it (and a token-standard transfer, which goes direct).
		reassign(pre, func() {
			_, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: a, Receiver: c, Amount: coin.MustParse("1"), DeduplicationID: "during-preapproval"})
			refused("one-step send through the preapproval", err)
			_, err = l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: a, Receiver: c, Amount: coin.MustParse("1"), ExecuteBefore: clock.Now().Add(time.Hour)})
			refused("direct token-standard transfer", err)
		})
		reassign(ti.InstructionCID, func() {
			_, err := reg.InstructionChoiceContext(ctx, ti.InstructionCID, ledger.MoveWithdraw)
			refused("registry context of the instruction itself", err)
			_, err = l.Instructions().Withdraw(ctx, a, ti.InstructionCID)
			refused("wallet withdraw of the instruction itself", err)
		})
		reassign(o2, func() {
			refused("offer reject", l.Offers().Reject(ctx, b, o2))
			refused("offer withdraw", l.Offers().Withdraw(ctx, a, o2))
		})
		if after, _ := l.Balance(ctx, a); !after.EffectiveUnlocked.Equal(before.EffectiveUnlocked) || !after.EffectiveLocked.Equal(before.EffectiveLocked) {
			t.Errorf("a's balance moved during the reassignments: %+v -> %+v", before, after)
		}
		if cur, err := pending.New(l).TransferInstructionByID(ctx, a, ti.InstructionCID); err != nil || cur.Status != ledger.InstructionPending {
			t.Errorf("instruction = %s, %v; want still pending", cur.Status, err)
		}
		// Completed: everything goes through again.
		if _, err := l.Instructions().Withdraw(ctx, a, ti.InstructionCID); err != nil {
			t.Errorf("withdraw after the reassignment: %v", err)
		}
		if _, err := l.Offers().Accept(ctx, b, o1); err != nil {
			t.Errorf("offer accept after the reassignment: %v", err)
		}
		if err := l.Offers().Withdraw(ctx, a, o2); err != nil {
			t.Errorf("offer withdraw after the reassignment: %v", err)
		}
		if _, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: a, Receiver: c, Amount: coin.MustParse("1"), DeduplicationID: "after"}); err != nil {
			t.Errorf("one-step send after the reassignments: %v", err)
		}
	})
}
