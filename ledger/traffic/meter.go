package traffic

import (
	"context"
	"errors"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// TrafficStatus is a member's traffic balance (StatusOf).
type TrafficStatus struct {
	Member string
	// Purchased is all extra traffic bought; Consumed all traffic used.
	Purchased int64
	Consumed  int64
	// ExtraConsumed is the part of Consumed the free base rate did not
	// cover; Remaining = Purchased - ExtraConsumed (negative: overdrawn).
	ExtraConsumed int64
	Remaining     int64
	// BaseRateRemaining is the free traffic left in the current window.
	BaseRateRemaining int64
	NumPurchases      int64
	CoinSpent         coin.Amount
	USDSpent          coin.Amount
}

// trafficMeter folds a member's traffic use, update by update in log
// order, into consumed and extra-consumed bytes: the free base rate covers
// up to BaseRateBurstAmountBytes per BaseRateBurstWindow (windows aligned
// to the Unix epoch), and use beyond it draws on the purchased extra
// traffic. Its state is store.PrunedTraffic: pruning folds the updates it
// removes into the carried meter (Fold), and StatusOf goes on from there
// over the rest of the log, so a pruning run changes no number.
type trafficMeter struct {
	window time.Duration
	burst  int64
	m      store.PrunedTraffic
}

func newTrafficMeter(l *ledger.Ledger, carried store.PrunedTraffic) *trafficMeter {
	r := l.Rules()
	return &trafficMeter{window: r.BaseRateBurstWindow, burst: r.BaseRateBurstAmountBytes, m: carried}
}

// Fold folds one update's traffic (bytes at at) into a member's carried
// traffic meter under l's rules (pruning carries what it removes).
func Fold(l *ledger.Ledger, carried store.PrunedTraffic, at time.Time, bytes int64) store.PrunedTraffic {
	tm := newTrafficMeter(l, carried)
	tm.add(at, bytes)
	return tm.m
}

func (tm *trafficMeter) windowOf(at time.Time) int64 {
	if tm.window <= 0 {
		return 0
	}
	return at.UnixNano() / int64(tm.window)
}

// add folds one update's traffic in.
func (tm *trafficMeter) add(at time.Time, bytes int64) {
	tm.m.Consumed += bytes
	if w := tm.windowOf(at); w != tm.m.WindowIndex {
		tm.m.ExtraConsumed += tm.overBurst()
		tm.m.WindowIndex, tm.m.WindowUsed = w, 0
	}
	tm.m.WindowUsed += bytes
}

// overBurst is the extra traffic the open window has drawn so far.
func (tm *trafficMeter) overBurst() int64 {
	if tm.m.WindowIndex >= 0 && tm.m.WindowUsed > tm.burst {
		return tm.m.WindowUsed - tm.burst
	}
	return 0
}

// StatusOf computes member's traffic balance on l: its purchases, and
// its use from the traffic meter carried over pruning and the update log.
func StatusOf(ctx context.Context, l *ledger.Ledger, member string) (TrafficStatus, error) {
	s := TrafficStatus{Member: member, CoinSpent: coin.Zero, USDSpent: coin.Zero}
	mt, err := store.MemberTrafficOf(ctx, l.DB(), member, l.SynchronizerID())
	switch {
	case err == nil:
		s.Purchased, s.NumPurchases, s.CoinSpent, s.USDSpent = mt.TotalPurchased, mt.NumPurchases, mt.CoinSpent, mt.USDSpent
	case !errors.Is(err, store.ErrNotFound):
		return s, err
	}
	carried, err := store.PrunedTrafficOf(ctx, l.DB(), member)
	if err != nil {
		return s, err
	}
	tm := newTrafficMeter(l, *carried)
	err = store.ScanTrafficOf(ctx, l.DB(), member, func(at time.Time, bytes int64) error {
		tm.add(at, bytes)
		return nil
	})
	if err != nil {
		return s, err
	}
	s.Consumed, s.ExtraConsumed = tm.m.Consumed, tm.m.ExtraConsumed+tm.overBurst()
	s.BaseRateRemaining = tm.burst
	if tm.m.WindowIndex == tm.windowOf(l.Now()) {
		s.BaseRateRemaining = max(0, tm.burst-tm.m.WindowUsed)
	}
	s.Remaining = s.Purchased - s.ExtraConsumed
	return s, nil
}
