package holdingsview_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// TestMaxSendIsWhatOneTransferCanSend: MaxSend is the available balance
// less the transfer's fees; sending it works and leaves nothing to spend,
// one unit more is refused (issue 37 point 6).
func TestMaxSendIsWhatOneTransferCanSend(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		ledgertest.Mint(t, l, sender, "23.4567")
		if _, _, err := l.Preapprovals().Create(ctx, receiver); err != nil {
			t.Fatal(err)
		}
		max, err := holdingsview.New(l).MaxSend(ctx, sender)
		// The network's fees today are 0 (DefaultRules): the max is the
		// balance; TestMaxOutputLeavesTheFee checks the fees' part.
		if err != nil || !max.Equal(coin.MustParse("123.4567")) {
			t.Fatalf("MaxSend = %s, %v; want the balance 123.4567", max, err)
		}
		more := max.Add(coin.MustParse("0.0000000001"))
		_, err = l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: sender, Receiver: receiver, Amount: more, DeduplicationID: "over"})
		if !errors.Is(err, fault.ErrInsufficientFunds) {
			t.Errorf("sending MaxSend + 1e-10 = %v, want insufficient funds", err)
		}
		if _, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: sender, Receiver: receiver, Amount: max, DeduplicationID: "max"}); err != nil {
			t.Fatalf("sending MaxSend %s: %v", max, err)
		}
		if left, err := holdingsview.New(l).MaxSend(ctx, sender); err != nil || !left.IsZero() {
			t.Errorf("MaxSend after sending the max = %s, %v; want 0", left, err)
		}
	})
}
