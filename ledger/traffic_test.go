package ledger_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestBuyTrafficAndStatus(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, p, "2100")
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: p, Receiver: ledgertest.Party(t, l), Amount: coin.MustParse("100")}); err != nil {
			t.Fatal(err)
		}
		op := string(l.Operator())
		before, err := l.TrafficStatusOf(ctx, op)
		if err != nil {
			t.Fatal(err)
		}
		if before.Consumed == 0 || before.Purchased != 0 {
			t.Errorf("before = %+v; the transfer consumed traffic, nothing purchased", before)
		}
		req := ledger.BuyTrafficRequest{Payer: p, Member: p, SynchronizerID: l.SynchronizerID(), Bytes: 400_000, ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "x"}
		res, err := l.BuyTraffic(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		// 0.4 MB x 16.67 USD / 0.005 USD per coin.
		if !res.Cost.Equal(coin.MustParse("1333.6")) {
			t.Errorf("cost = %s", res.Cost)
		}
		if _, err := l.BuyTraffic(ctx, req); !errors.Is(err, ledger.ErrDuplicate) {
			t.Errorf("replay = %v, want ErrDuplicate", err)
		}
		req.TrackingID = "y"
		if _, err := l.BuyTraffic(ctx, req); !errors.Is(err, ledger.ErrInsufficientFunds) {
			t.Errorf("second purchase = %v, want ErrInsufficientFunds", err)
		}
		s, err := l.TrafficStatus(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if s.Purchased != 400_000 || s.Consumed <= before.Consumed || s.Remaining != s.Purchased-s.ExtraConsumed || s.BaseRateRemaining > l.Rules().BaseRateBurstAmountBytes {
			t.Errorf("status = %+v", s)
		}
		st, err := l.BuyTrafficStatusOf(ctx, p, "x")
		if err != nil || st.Status != "completed" || st.TransactionID != res.TransactionID {
			t.Errorf("status by tracking id = %+v, %v", st, err)
		}
		// A new window restores the free base rate.
		clock.Advance(l.Rules().BaseRateBurstWindow)
		if s, _ := l.TrafficStatus(ctx, p); s.BaseRateRemaining != l.Rules().BaseRateBurstAmountBytes {
			t.Errorf("base rate in a fresh window = %d", s.BaseRateRemaining)
		}
		supply := ledgertest.Conserved(t, l)
		if !supply.Burned.Equal(coin.MustParse("1333.6")) {
			t.Errorf("burned = %s, want the traffic cost", supply.Burned)
		}
	})
}
