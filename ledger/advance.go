package ledger

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// MaxAdvanceRounds bounds one developer time jump.
const MaxAdvanceRounds = 100_000

// advanceChunk bounds the rounds one transaction of a jump opens, so a
// jump holds the rounds lock (and, on SQLite, the database's one writer)
// only for short pieces, and other requests run between them.
const advanceChunk = 500

// advanceCollectMax bounds the uncollected coupons one piece of a jump
// reads; the reward collection job keeps far fewer waiting.
const advanceCollectMax = 1_000_000

// AdvanceRounds is the development network's time control: it opens n
// rounds, with the effects of the round clock's n ticks (AdvanceRound
// each) exactly: every round's row and contract, the rounds closed on the
// way with their validator rewards, a liveness record per round, reward
// collection at the round each coupon's would have run, dust expiry.
// Holding fees need nothing: they are a function of the rounds elapsed.
// Deadlines (offers, instructions, locks, preapprovals) are on the
// ledger's clock, which a jump does not move.
//
// It runs in pieces of advanceChunk rounds, each one ledger change (one
// update) computing its rounds' work in bulk, so a jump of 1,000 rounds
// takes a few database round trips instead of thousands, and other
// requests run between the pieces. The workflows' automations, which
// would have run in the time jumped over, are not the core's: the
// development network's time control (ledger/devnet's Advance and
// AdvanceRounds) runs them after the jump.
func (ro Rounds) AdvanceRounds(ctx context.Context, n int) (RoundReport, error) {
	l := ro.l
	if !l.cfg.DevNet {
		return RoundReport{}, fmt.Errorf("%w: advancing rounds is only available on a development network", ErrDisabled)
	}
	if n < 1 || n > MaxAdvanceRounds {
		return RoundReport{}, invalid("rounds", "must be between 1 and %d, not %d", MaxAdvanceRounds, n)
	}
	total := RoundReport{Closed: []coin.Round{}}
	for done := 0; done < n; {
		k := min(n-done, advanceChunk)
		rep, err := ro.advanceMany(ctx, k)
		if err != nil {
			return total, fmt.Errorf("advance rounds: %w", err)
		}
		if done == 0 {
			total.From = rep.From
		}
		total.To = rep.To
		total.Closed = append(total.Closed, rep.Closed...)
		total.Expired += rep.Expired
		total.Collected += rep.Collected
		done += k
		if l.advanceHook != nil {
			l.advanceHook(rep.To)
		}
	}
	return total, nil
}

// advanceMany opens k rounds in one change, as k AdvanceRound calls would:
// from the latest round a it opens a+1..b, closes every round below
// b-OpenRoundsKept+1 (issuing the validator rewards of the ones open
// before), records a liveness coupon per new round and collects, at each
// new round s, the coupons AdvanceRound's collection would have collected
// there: the due ones (rounds below s-2), one holding per beneficiary per
// page of collectPage. Then dust expiry runs once, at b: a holding that
// was dust at an earlier round still is (fees only grow), and nothing
// spends it meanwhile.
func (ro Rounds) advanceMany(ctx context.Context, k int) (RoundReport, error) {
	l := ro.l
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
		n, err := ro.collectAcross(ctx, t, a, firstOpen)
		rep.Collected = n
		t.round = at(b)
		return err
	})
	if err != nil {
		return rep, err
	}
	return rep, ro.afterRounds(ctx, &rep)
}

// collectAcross mints, within t, the coupons due before round firstOpen
// (the stored uncollected ones and those t created), each at the round
// after a whose collection would have taken it: the first new round
// where its round is below the oldest open one, that is round+3, or a+1
// for one already due. Within a round it works as CollectRewards does:
// oldest first by beneficiary, round and contract, in pages of
// collectPage, one holding and history row per beneficiary per page.
func (ro Rounds) collectAcross(ctx context.Context, t *txn, a, firstOpen coin.Round) (int, error) {
	l := ro.l
	held, err := l.undelegatedExternalParties(ctx, t.tx)
	if err != nil {
		return 0, err
	}
	stored, err := store.DueRewardCoupons(ctx, t.tx, firstOpen, advanceCollectMax, held...)
	if err != nil {
		return 0, err
	}
	if len(stored) == advanceCollectMax {
		return 0, fmt.Errorf("more than %d reward coupons wait for collection; let the collection job run first", advanceCollectMax)
	}
	type due struct {
		c     *store.RewardCoupon
		step  coin.Round
		fresh bool // created by t: marked collected in its own row
	}
	var ds []due
	stepOf := func(r coin.Round) coin.Round { return max(a+1, r+OpenRoundsKept) }
	for i := range stored {
		ds = append(ds, due{c: &stored[i], step: stepOf(stored[i].Round)})
	}
	for i := range t.coupons {
		if c := &t.coupons[i]; c.Round < firstOpen && !slices.Contains(held, c.Beneficiary) {
			ds = append(ds, due{c: c, step: stepOf(c.Round), fresh: true})
		}
	}
	slices.SortFunc(ds, func(x, y due) int {
		if x.step != y.step {
			return int(x.step - y.step)
		}
		if x.c.Beneficiary != y.c.Beneficiary {
			return strings.Compare(string(x.c.Beneficiary), string(y.c.Beneficiary))
		}
		if x.c.Round != y.c.Round {
			return int(x.c.Round - y.c.Round)
		}
		return strings.Compare(string(x.c.ContractID), string(y.c.ContractID))
	})
	var ids []coin.ContractID
	for i := 0; i < len(ds); {
		// One page: up to collectPage coupons of one step.
		j := i
		for j < len(ds) && j-i < collectPage && ds[j].step == ds[i].step {
			j++
		}
		t.round = &store.Round{Number: ds[i].step, Price: t.round.Price}
		var order []coin.PartyID
		sums := map[coin.PartyID]coin.Amount{}
		counts := map[coin.PartyID]int{}
		for _, d := range ds[i:j] {
			p := d.c.Beneficiary
			if _, ok := sums[p]; !ok {
				order = append(order, p)
			}
			sums[p] = sums[p].Add(l.rules.CouponIssuance(d.c.Kind, d.c.Amount))
			counts[p]++
			if d.fresh {
				d.c.CollectedAt = bun.NullTime{Time: t.now}
				off := t.offset
				d.c.CollectedOffset = &off
			} else {
				ids = append(ids, d.c.ContractID)
			}
		}
		for _, p := range order {
			if !sums[p].IsPositive() {
				continue
			}
			cid := t.mint(p, sums[p])
			t.record(p, HistoryBalanceChange, "CollectRewards", l.dso, sums[p], coin.Zero,
				fmt.Sprintf("minted %d reward coupons", counts[p]), HistoryDetails{ContractID: cid})
		}
		i = j
	}
	if err := store.MarkCouponsCollected(ctx, t.tx, ids, t.now, t.offset); err != nil {
		return 0, err
	}
	return len(ds), nil
}
