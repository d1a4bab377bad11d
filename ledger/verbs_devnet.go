package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// The core's verbs for a development network's tools (ledger/devnet):
// opening many rounds in one change, as a time jump does.

// AdvanceMany opens k rounds in one change, with the round clock's
// effects of k ticks (AdvanceRound each) on the rounds: from the latest
// round a it opens a+1..b, closes every round below b-OpenRoundsKept+1
// (issuing the validator rewards of the ones open before) and records a
// liveness coupon per new round. Then within runs in the same change, at
// round b with the update's offset drawn: the caller's work at those
// rounds (ledger/devnet's reward collection across them), which adds
// what it did to rep. After the commit the AfterRounds steps (dust
// expiry first) run once, at b: a holding that was dust at an earlier round still
// is (fees only grow), and nothing spends it meanwhile. Only a
// development network jumps time.
func (ro Rounds) AdvanceMany(ctx context.Context, k int, within func(ctx context.Context, x *Tx, rep *RoundReport) error) (RoundReport, error) {
	l := ro.l
	if !l.cfg.DevNet {
		return RoundReport{}, fmt.Errorf("%w: advancing rounds is only available on a development network", fault.ErrDisabled)
	}
	var rep RoundReport
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		rep = RoundReport{}
		latest, err := ro.lockRounds(ctx, c)
		if err != nil {
			return err
		}
		a, b, price := latest.Number, latest.Number+coin.Round(k), latest.Price
		rep.From, rep.To = a, b
		firstOpen := b - OpenRoundsKept + 1
		t := c.beginAt("advance-rounds", &store.Round{Number: b, Price: price})
		if err := t.ensureOffset(ctx); err != nil {
			return err
		}
		at := func(n coin.Round) *store.Round { return &store.Round{Number: n, Price: price} }

		// The rounds open before the jump close first, each with its
		// validator reward, at the round that closes it.
		if err := ro.closeRounds(ctx, t, firstOpen, &rep); err != nil {
			return err
		}
		// The new rounds, those the jump closes again already closed; they
		// carried no traffic (nothing could use them), so no validator
		// reward.
		rows := make([]store.Round, 0, k)
		for n := a + 1; n <= b; n++ {
			t.round = at(n)
			r := ro.roundContract(t, n, price, t.now)
			if n < firstOpen {
				r.ClosedAt = bun.NullTime{Time: t.now}
				t.archive(r.ContractID)
				rep.Closed = append(rep.Closed, n)
			}
			rows = append(rows, r)
			for _, op := range l.Validators().operators() {
				t.addRewardCoupon(RewardLiveness, op, l.rules.LivenessActivityReward, false)
			}
		}
		if err := store.InsertRounds(ctx, c.tx, rows); err != nil {
			return err
		}
		t.round = at(b)
		err = within(ctx, &Tx{c: c}, &rep)
		t.round = at(b)
		return err
	})
	if err != nil {
		return rep, err
	}
	return rep, ro.afterRounds(ctx, &rep)
}

// AtRound has the update's effects that follow (holdings, history,
// reward coupons) belong to round n, at the update's price: a coupon for
// the round it rewards, coin minted at the round a collection would have
// run.
func (x *Tx) AtRound(n coin.Round) {
	t := x.t()
	t.round = &store.Round{Number: n, Price: t.round.Price}
}

// NewRewardCoupons are the reward coupons the update has issued so far,
// written at its commit: a collection within the same update marks them
// collected in place (CollectedAt, CollectedOffset).
func (x *Tx) NewRewardCoupons() []*store.RewardCoupon {
	t := x.t()
	out := make([]*store.RewardCoupon, len(t.coupons))
	for i := range t.coupons {
		out[i] = &t.coupons[i]
	}
	return out
}
