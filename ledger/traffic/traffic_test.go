package traffic_test

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
	"github.com/ccwallet/ccwallet/ledger/traffic"
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
		before, err := traffic.StatusOf(ctx, l, op)
		if err != nil {
			t.Fatal(err)
		}
		if before.Consumed == 0 || before.Purchased != 0 {
			t.Errorf("before = %+v; the transfer consumed traffic, nothing purchased", before)
		}
		req := traffic.BuyTrafficRequest{Payer: p, Member: p, SynchronizerID: l.SynchronizerID(), Bytes: 400_000, ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "x"}
		res, err := traffic.New(l).BuyTraffic(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		// 0.4 MB x 16.67 USD / 0.005 USD per coin.
		if !res.Cost.Equal(coin.MustParse("1333.6")) {
			t.Errorf("cost = %s", res.Cost)
		}
		if _, err := traffic.New(l).BuyTraffic(ctx, req); !errors.Is(err, fault.ErrDuplicate) {
			t.Errorf("replay = %v, want ErrDuplicate", err)
		}
		req.TrackingID = "y"
		if _, err := traffic.New(l).BuyTraffic(ctx, req); !errors.Is(err, fault.ErrInsufficientFunds) {
			t.Errorf("second purchase = %v, want ErrInsufficientFunds", err)
		}
		s, err := traffic.New(l).TrafficStatus(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if s.Purchased != 400_000 || s.Consumed <= before.Consumed || s.Remaining != s.Purchased-s.ExtraConsumed || s.BaseRateRemaining > l.Rules().BaseRateBurstAmountBytes {
			t.Errorf("status = %+v", s)
		}
		st, err := traffic.New(l).BuyTrafficStatusOf(ctx, p, "x")
		if err != nil || st.Status != "completed" || st.TransactionID != res.TransactionID {
			t.Errorf("status by tracking id = %+v, %v", st, err)
		}
		// A new window restores the free base rate.
		clock.Advance(l.Rules().BaseRateBurstWindow)
		if s, _ := traffic.New(l).TrafficStatus(ctx, p); s.BaseRateRemaining != l.Rules().BaseRateBurstAmountBytes {
			t.Errorf("base rate in a fresh window = %d", s.BaseRateRemaining)
		}
		supply := ledgertest.Conserved(t, l)
		if !supply.Burned.Equal(coin.MustParse("1333.6")) {
			t.Errorf("burned = %s, want the traffic cost", supply.Burned)
		}
	})
}

// TestTrafficQuote: the price of a purchase and its minimum are the
// ledger's, for the web form and the API alike, and the minimum is said in
// bytes and in coin so the buyer knows what to enter.
func TestTrafficQuote(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		q, err := traffic.New(l).QuoteTraffic(ctx, 400_000)
		if err != nil {
			t.Fatal(err)
		}
		// 0.4 MB x 16.67 USD / 0.005 USD per coin, as BuyTraffic burns.
		if q.Bytes != 400_000 || !q.Cost.Equal(coin.MustParse("1333.6")) || !q.CostUSD.Equal(coin.MustParse("6.668")) {
			t.Errorf("quote = %+v", q)
		}
		// The most bytes 1333.6 CC buys is the same 400,000.
		if q2, err := traffic.New(l).QuoteTrafficForCoin(ctx, coin.MustParse("1333.6")); err != nil || q2.Bytes != 400_000 || !q2.Cost.Equal(q.Cost) {
			t.Errorf("quote for 1333.6 CC = %+v, %v", q2, err)
		}
		if q3, err := traffic.New(l).QuoteTrafficForCoin(ctx, coin.MustParse("1333.5999999999")); err != nil || q3.Bytes != 399_999 || q3.Cost.Cmp(coin.MustParse("1333.5999999999")) > 0 {
			t.Errorf("quote for just under 1333.6 CC = %+v, %v", q3, err)
		}
		const want = "the minimum traffic purchase is 200,000 bytes (about 667 CC)"
		if _, err := traffic.New(l).QuoteTraffic(ctx, 199_999); !fault.IsValidation(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("quote under the minimum = %v, want %q", err, want)
		}
		p := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, p, "2000")
		_, err = traffic.New(l).BuyTraffic(ctx, traffic.BuyTrafficRequest{Payer: p, Member: p, SynchronizerID: l.SynchronizerID(), Bytes: 299, ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "small"})
		if !fault.IsValidation(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("purchase under the minimum = %v, want %q", err, want)
		}
	})
}
