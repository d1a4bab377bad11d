package ledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestMaxSendIsWhatOneTransferCanSend: MaxSend is the available balance
// less the transfer's fees; sending it works and leaves nothing to spend,
// one unit more is refused (issue 37 point 6).
func TestMaxSendIsWhatOneTransferCanSend(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		ledgertest.Mint(t, l, sender, "23.4567")
		if _, _, err := l.Preapprovals().Create(ctx, receiver); err != nil {
			t.Fatal(err)
		}
		max, err := l.MaxSend(ctx, sender)
		// The network's fees today are 0 (DefaultRules): the max is the
		// balance; TestMaxOutputLeavesTheFee checks the fees' part.
		if err != nil || !max.Equal(coin.MustParse("123.4567")) {
			t.Fatalf("MaxSend = %s, %v; want the balance 123.4567", max, err)
		}
		more := max.Add(coin.MustParse("0.0000000001"))
		_, err = l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: sender, Receiver: receiver, Amount: more, DeduplicationID: "over"})
		if !errors.Is(err, ledger.ErrInsufficientFunds) {
			t.Errorf("sending MaxSend + 1e-10 = %v, want insufficient funds", err)
		}
		if _, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: sender, Receiver: receiver, Amount: max, DeduplicationID: "max"}); err != nil {
			t.Fatalf("sending MaxSend %s: %v", max, err)
		}
		if left, err := l.MaxSend(ctx, sender); err != nil || !left.IsZero() {
			t.Errorf("MaxSend after sending the max = %s, %v; want 0", left, err)
		}
	})
}

// TestMaxOutputLeavesTheFee: with a fixed fee and a rate, the max plus
// its fee fits the funds exactly to the 10th digit, and one unit more
// does not.
func TestMaxOutputLeavesTheFee(t *testing.T) {
	r := ledger.DefaultRules()
	r.CreateFeeUSD, r.TransferFeeRate = coin.MustParse("0.03"), coin.MustParse("0.001")
	price := coin.MustParse("0.0053")
	for _, f := range []string{"100", "123.4567891234", "6", "5.6603773585"} {
		funds := coin.MustParse(f)
		a := r.MaxOutput(funds, price)
		if a.Add(r.OutputFee(a, price, false)).Cmp(funds) > 0 {
			t.Errorf("MaxOutput(%s) = %s needs more than the funds", f, a)
		}
		if b := a.Add(coin.MustParse("0.0000000001")); a.IsPositive() && b.Add(r.OutputFee(b, price, false)).Cmp(funds) <= 0 {
			t.Errorf("MaxOutput(%s) = %s, but %s fits too", f, a, b)
		}
	}
	if got := r.MaxOutput(coin.MustParse("1"), price); !got.IsZero() {
		t.Errorf("MaxOutput(1 CC, fixed fee 5.66 CC) = %s, want 0", got)
	}
}
