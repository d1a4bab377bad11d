package traffic

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// TopupConfig is the operator's traffic top-up (Splice's buyExtraTraffic):
// keep TargetThroughput bytes per second of extra traffic, buying at most
// once per MinInterval, checked every PollInterval.
type TopupConfig struct {
	TargetThroughput int64
	MinInterval      time.Duration
	PollInterval     time.Duration
}

// Active reports whether top-ups run at all: a zero throughput turns them
// off, as in Splice.
func (c TopupConfig) Active() bool { return c.TargetThroughput > 0 }

// Plan returns the top-up interval and amount as Splice's
// ExtraTrafficTopupParameters computes them: interval =
// ceil(MinInterval/PollInterval)·PollInterval, amount =
// ceil(TargetThroughput × interval in seconds); an amount below the rules'
// minTopupAmount stretches the interval to minTopupAmount/TargetThroughput
// (again rounded up to poll multiples) and is recomputed.
func (c TopupConfig) Plan(r ledger.Rules) (time.Duration, int64) {
	poll := c.PollInterval
	if poll <= 0 {
		poll = time.Second
	}
	roundUp := func(d time.Duration) time.Duration {
		n := (d + poll - 1) / poll
		return max(n, 1) * poll
	}
	amountFor := func(d time.Duration) int64 {
		// ceil(throughput × d / 1 s), exactly.
		p := new(big.Int).Mul(big.NewInt(c.TargetThroughput), big.NewInt(int64(d)))
		q, m := new(big.Int).QuoRem(p, big.NewInt(int64(time.Second)), new(big.Int))
		if m.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		return q.Int64()
	}
	interval := roundUp(c.MinInterval)
	if c.TargetThroughput <= 0 {
		return interval, 0
	}
	amount := amountFor(interval)
	if amount < r.MinTopupAmountBytes {
		// Seconds needed to reach the minimum, rounded up.
		secs := (r.MinTopupAmountBytes + c.TargetThroughput - 1) / c.TargetThroughput
		interval = roundUp(time.Duration(secs) * time.Second)
		amount = amountFor(interval)
	}
	return interval, amount
}

// TopupResult says what one top-up run did: Bytes is zero when nothing was
// bought, and Reason then says why.
type TopupResult struct {
	Bytes  int64
	Cost   coin.Amount
	Tapped coin.Amount
	Reason string
}

// Topup buys extra traffic for the operator's own member with the
// operator's coin when its remaining extra traffic is below the planned
// amount and the last purchase is at least the interval ago (the real
// TopupMemberTrafficTrigger). On a development network it taps the missing
// coin first; elsewhere a wallet that cannot pay fails with
// ErrInsufficientFunds. Two runs at once buy once: the tracking id is
// derived from the member's purchase count, and BuyTraffic takes an id
// only once.
func (s *Service) Topup(ctx context.Context, c TopupConfig) (TopupResult, error) {
	res := TopupResult{Cost: coin.Zero, Tapped: coin.Zero}
	if !c.Active() {
		res.Reason = "top-ups are off"
		return res, nil
	}
	l := s.l
	interval, amount := c.Plan(l.Rules())
	member, err := s.memberOf(ctx, l.Operator())
	if err != nil {
		return res, err
	}
	now := l.Now()
	var purchases int64
	mt, err := store.MemberTrafficOf(ctx, l.DB(), member, l.SynchronizerID())
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return res, err
	default:
		purchases = mt.NumPurchases
		// The member traffic contract is recreated on every purchase, so
		// its creation time is the last purchase's.
		last, err := store.ContractByID(ctx, l.DB(), mt.ContractID)
		if err != nil {
			return res, err
		}
		if now.Before(last.CreatedAt.Add(interval)) {
			res.Reason = fmt.Sprintf("last top-up at %s; next not before %s", ledger.FormatTime(last.CreatedAt), ledger.FormatTime(last.CreatedAt.Add(interval)))
			return res, nil
		}
	}
	st, err := StatusOf(ctx, l, member)
	if err != nil {
		return res, err
	}
	if st.Remaining >= amount {
		res.Reason = fmt.Sprintf("%d bytes of extra traffic remain, at least the top-up amount %d", st.Remaining, amount)
		return res, nil
	}
	tracking := fmt.Sprintf("topup-%d", purchases+1)
	b, err := l.Balance(ctx, l.Operator())
	if err != nil {
		return res, err
	}
	cost := l.Rules().TrafficCost(amount, b.Price)
	if short := cost.Sub(b.EffectiveUnlocked); short.IsPositive() {
		if !l.DevNet() {
			return res, fmt.Errorf("%w: traffic top-up of %d bytes costs %s coin, the operator has %s unlocked", fault.ErrInsufficientFunds, amount, cost, b.EffectiveUnlocked)
		}
		// Tap twice the shortfall (in USD at the same price), so holding
		// fees and rounding cannot leave it short.
		tap, err := devnet.Tap(ctx, l, l.Operator(), ledger.CoinToUSD(short.Add(short), b.Price), tracking)
		if errors.Is(err, fault.ErrInFlight) {
			res.Reason = "another run is buying this top-up"
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("tap for the traffic top-up: %w", err)
		}
		res.Tapped = tap.Amount
	}
	bought, err := s.BuyTraffic(ctx, BuyTrafficRequest{
		Payer: l.Operator(), Member: l.Operator(), SynchronizerID: l.SynchronizerID(), Bytes: amount,
		ExpiresAt: now.Add(time.Hour), TrackingID: tracking,
	})
	switch {
	case errors.Is(err, fault.ErrDuplicate), errors.Is(err, fault.ErrInFlight):
		res.Reason = "another run bought this top-up"
		return res, nil
	case err != nil:
		return res, fmt.Errorf("traffic top-up: %w", err)
	}
	res.Bytes, res.Cost = amount, bought.Cost
	return res, nil
}
