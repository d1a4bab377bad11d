package traffic_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/google/go-cmp/cmp"
)

func TestTopupPlan(t *testing.T) {
	r := ledger.DefaultRules() // minTopupAmount 200000
	tests := []struct {
		cfg          traffic.TopupConfig
		wantInterval time.Duration
		wantAmount   int64
	}{
		{traffic.TopupConfig{TargetThroughput: 20000, MinInterval: time.Minute, PollInterval: 30 * time.Second}, time.Minute, 1_200_000},
		// 45 s rounds up to two polls.
		{traffic.TopupConfig{TargetThroughput: 20000, MinInterval: 45 * time.Second, PollInterval: 30 * time.Second}, time.Minute, 1_200_000},
		// 60000 bytes is below the minimum: stretched to 200 s, rounded up to 210 s.
		{traffic.TopupConfig{TargetThroughput: 1000, MinInterval: time.Minute, PollInterval: 30 * time.Second}, 210 * time.Second, 210_000},
		// ceil of a fractional amount.
		{traffic.TopupConfig{TargetThroughput: 3, MinInterval: 70 * time.Hour, PollInterval: 7 * time.Second}, 252_000 * time.Second, 756_000},
		{traffic.TopupConfig{TargetThroughput: 0, MinInterval: time.Minute, PollInterval: 30 * time.Second}, time.Minute, 0},
	}
	for _, tt := range tests {
		i, a := tt.cfg.Plan(r)
		if i != tt.wantInterval || a != tt.wantAmount {
			t.Errorf("Plan(%+v) = %s, %d; want %s, %d", tt.cfg, i, a, tt.wantInterval, tt.wantAmount)
		}
	}
}

// TestTopup: the first run taps (devnet) and buys; a run inside the interval
// buys nothing even when short; after the interval a short member buys
// again; a member with enough extra traffic buys nothing; throughput 0 is
// off.
func TestTopup(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		op := l.Operator()
		cfg := traffic.TopupConfig{TargetThroughput: 20000, MinInterval: time.Minute, PollInterval: 30 * time.Second}
		status := func() traffic.TrafficStatus {
			t.Helper()
			s, err := traffic.New(l).TrafficStatus(ctx, op)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		if res, err := traffic.New(l).Topup(ctx, traffic.TopupConfig{MinInterval: time.Minute, PollInterval: time.Second}); err != nil || res.Bytes != 0 || res.Reason == "" {
			t.Errorf("throughput 0 = %+v, %v; want off", res, err)
		}
		if s := status(); s.NumPurchases != 0 {
			t.Fatalf("bought with throughput 0: %+v", s)
		}
		res, err := traffic.New(l).Topup(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Bytes != 1_200_000 || !res.Cost.IsPositive() || !res.Tapped.IsPositive() {
			t.Errorf("first top-up = %+v", res)
		}
		if s := status(); s.NumPurchases != 1 || s.Purchased != 1_200_000 {
			t.Errorf("after the first top-up: %+v", s)
		}
		// Twice the throughput wants 2.4 MB, more than remains, but the
		// interval has not passed.
		double := cfg
		double.TargetThroughput = 40000
		clock.Advance(59 * time.Second)
		if res, err := traffic.New(l).Topup(ctx, double); err != nil || res.Bytes != 0 || !strings.Contains(res.Reason, "next not before") {
			t.Errorf("inside the interval = %+v, %v", res, err)
		}
		clock.Advance(time.Second)
		if res, err := traffic.New(l).Topup(ctx, cfg); err != nil || res.Bytes != 0 || !strings.Contains(res.Reason, "remain") {
			t.Errorf("enough remaining = %+v, %v", res, err)
		}
		if res, err := traffic.New(l).Topup(ctx, double); err != nil || res.Bytes != 2_400_000 {
			t.Errorf("after the interval = %+v, %v", res, err)
		}
		if s := status(); s.NumPurchases != 2 || s.Purchased != 3_600_000 {
			t.Errorf("after the second top-up: %+v", s)
		}
		if res, err := traffic.New(l).Topup(ctx, double); err != nil || res.Bytes != 0 {
			t.Errorf("right after = %+v, %v", res, err)
		}
	})
}

// TestTopupWithoutFunds: off a development network an operator that cannot
// pay gets a clear error and buys nothing.
func TestTopupWithoutFunds(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			ctx := context.Background()
			l, err := ledgertest.OpenLedger(ctx, ledgertest.DB(t, e), ledger.Config{AdminUsers: []string{"admin"}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = traffic.New(l).Topup(ctx, traffic.TopupConfig{TargetThroughput: 20000, MinInterval: time.Minute, PollInterval: time.Second})
			if !errors.Is(err, fault.ErrInsufficientFunds) || !strings.Contains(err.Error(), "traffic top-up") {
				t.Errorf("err = %v, want ErrInsufficientFunds", err)
			}
			if s, err := traffic.New(l).TrafficStatus(ctx, l.Operator()); err != nil || s.NumPurchases != 0 {
				t.Errorf("traffic = %+v, %v; want nothing bought", s, err)
			}
		})
	}
}

// TestWalletAutomationsConcurrent: two replicas running the sweeps and the
// top-up at the same moment (no lease) create one sweep offer, send one
// preapproved sweep and buy traffic once.
func TestWalletAutomationsConcurrent(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "1000")
		sweep := autotransfer.SweepConfig{Sender: sender, Receiver: receiver, MaxBalanceUSD: coin.MustParse("4"), MinBalanceUSD: coin.MustParse("1")}
		// A second sender sweeps through the receiver's preapproval.
		sender2 := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender2, "1000")
		if _, _, err := l.Preapprovals().Create(ctx, receiver); err != nil {
			t.Fatal(err)
		}
		sweep2 := sweep
		sweep2.Sender, sweep2.UsePreapproval = sender2, true
		topup := traffic.TopupConfig{TargetThroughput: 20000, MinInterval: time.Minute, PollInterval: time.Second}
		var wg sync.WaitGroup
		errs := make(chan error, 6)
		for range 2 {
			wg.Go(func() {
				_, err := autotransfer.New(l).Sweep(ctx, sweep)
				errs <- err
			})
			wg.Go(func() {
				_, err := traffic.New(l).Topup(ctx, topup)
				errs <- err
			})
			wg.Go(func() {
				_, err := autotransfer.New(l).Sweep(ctx, sweep2)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		offers, err := pending.New(l).Offers(ctx, receiver)
		if err != nil || len(offers) != 1 {
			t.Errorf("%d sweep offers, %v; want 1", len(offers), err)
		}
		if diff := cmp.Diff([]string{"unlocked=200.0000000000 locked=0.0000000000"}, balances(t, l, sender2)); diff != "" {
			t.Errorf("preapproval sweeper (-want +got):\n%s", diff)
		}
		if s, err := traffic.New(l).TrafficStatus(ctx, l.Operator()); err != nil || s.NumPurchases != 1 {
			t.Errorf("traffic %+v, %v; want one purchase", s, err)
		}
	})
}
