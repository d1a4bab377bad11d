package ledger_test

// The registry's choice context once a lock is gone: it needs the core's
// test-only DropLockedHolding (export_test.go), so it stays beside it.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/registry"
)

// TestChoiceContextMissingLock: when the lock is gone, accept is not found
// with scan's message, and reject/withdraw get expire-lock=false only.
func TestChoiceContextMissingLock(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		reg := registry.New(l)
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "10")
		res, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.MustParse("4"), ExecuteBefore: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		ti, err := pending.New(l).TransferInstructionByID(ctx, a, res.InstructionCID)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.DropLockedHolding(ctx, ti.LockedHoldingCID); err != nil {
			t.Fatal(err)
		}
		_, err = reg.InstructionChoiceContext(ctx, ti.ContractID, ledger.MoveAccept)
		want := "LockedAmulet '" + string(ti.LockedHoldingCID) + "' not found for AmuletTransferInstruction '" + string(ti.ContractID) + "', which expires on " + ledger.FormatTime(ti.ExecuteBefore)
		if !errors.Is(err, fault.ErrNotFound) || err.Error() != want {
			t.Errorf("accept context = %v, want %q", err, want)
		}
		for _, m := range []ledger.InstructionMove{ledger.MoveReject, ledger.MoveWithdraw} {
			cc, err := reg.InstructionChoiceContext(ctx, ti.ContractID, m)
			if err != nil || len(cc.Disclosed) != 0 || cc.Values[registry.ContextExpireLock].Value != false || len(cc.Values) != 1 {
				t.Errorf("%s context = %+v, %v; want only expire-lock=false", m, cc, err)
			}
		}
		if _, err := l.Instructions().Accept(ctx, b, ti.ContractID); !errors.Is(err, fault.ErrNotFound) || !strings.Contains(err.Error(), "LockedAmulet") {
			t.Errorf("accept without lock = %v", err)
		}
		r, err := l.Instructions().Withdraw(ctx, a, ti.ContractID)
		if err != nil || len(r.SenderChangeCIDs) != 0 {
			t.Errorf("withdraw without lock = %+v, %v; want no coin back", r, err)
		}
	})
}
