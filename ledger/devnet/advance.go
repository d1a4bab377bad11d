package devnet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/rewards"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Time control of a development network: a jump is asked for (so many
// rounds, or until a time), the core opens its rounds in pieces
// (ledger.Rounds.AdvanceMany, each one change) while the reward
// collection across them is here, and the workflows' automations given
// to New run once after it, as they would have in the time jumped over.

// MaxAdvanceRounds bounds one developer time jump.
const MaxAdvanceRounds = 100_000

// advanceChunk bounds the rounds one transaction of a jump opens, so a
// jump holds the rounds lock (and, on SQLite, the database's one writer)
// only for short pieces, and other requests run between them.
const advanceChunk = 500

// advanceCollectMax bounds the uncollected coupons one piece of a jump
// reads; the reward collection job keeps far fewer waiting.
const advanceCollectMax = 1_000_000

// AdvanceRequest is a development network time jump: Rounds rounds, or as
// many rounds as the round clock would open, one per tick of the rules'
// TickDuration, from the latest round's opening until Until (an RFC 3339
// time) has passed. Exactly one is given.
type AdvanceRequest struct {
	Rounds int
	Until  string
}

// Advance runs the jump req asks for (AdvanceRounds).
func (s *Service) Advance(ctx context.Context, req AdvanceRequest) (ledger.RoundReport, error) {
	l := s.l
	if !l.DevNet() {
		return ledger.RoundReport{}, fmt.Errorf("%w: advancing rounds is only available on a development network", fault.ErrDisabled)
	}
	if (req.Rounds != 0) == (req.Until != "") {
		return ledger.RoundReport{}, fault.Invalid("rounds", "give either rounds (1 to %d) or until (an RFC 3339 time), not both or neither", MaxAdvanceRounds)
	}
	if req.Until == "" {
		return s.AdvanceRounds(ctx, req.Rounds)
	}
	until, err := time.Parse(time.RFC3339, req.Until)
	if err != nil {
		return ledger.RoundReport{}, fault.Invalid("until", "must be an RFC 3339 time such as 2030-01-31T12:00:00Z, not %q", bounds.Clip(req.Until, 40))
	}
	latest, err := store.LatestRound(ctx, l.DB())
	if err != nil {
		return ledger.RoundReport{}, err
	}
	ahead := until.Sub(latest.OpensAt)
	if ahead <= 0 {
		return ledger.RoundReport{}, fault.Invalid("until", "must be after the latest round's opening (%s)", ledger.FormatTime(latest.OpensAt))
	}
	// Rounded up: the round open afterwards would have opened at or after until.
	// Integer ceiling, exact (no float in the ledger), and without the
	// overflow ahead+tick-1 could have for a time far ahead.
	tick := l.Rules().TickDuration
	ticks := ahead / tick
	if ahead%tick != 0 {
		ticks++
	}
	if ticks > MaxAdvanceRounds {
		return ledger.RoundReport{}, fault.Invalid("until", "is %d rounds ahead; at most %d rounds at once", int64(ticks), MaxAdvanceRounds)
	}
	return s.AdvanceRounds(ctx, int(ticks))
}

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
// update, ledger.Rounds.AdvanceMany) computing its rounds' work in bulk,
// so a jump of 1,000 rounds takes a few database round trips instead of
// thousands, and other requests run between the pieces. Then it runs the
// automations given to New once, in order: due subscription payments are
// paid and collected, as they would have been in the time jumped over.
func (s *Service) AdvanceRounds(ctx context.Context, n int) (ledger.RoundReport, error) {
	rep, err := s.advanceRounds(ctx, n)
	if err != nil {
		return rep, err
	}
	for _, step := range s.afterAdvance {
		if err := step(ctx); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// advanceRounds opens the n rounds, a piece at a time.
func (s *Service) advanceRounds(ctx context.Context, n int) (ledger.RoundReport, error) {
	l := s.l
	if !l.DevNet() {
		return ledger.RoundReport{}, fmt.Errorf("%w: advancing rounds is only available on a development network", fault.ErrDisabled)
	}
	if n < 1 || n > MaxAdvanceRounds {
		return ledger.RoundReport{}, fault.Invalid("rounds", "must be between 1 and %d, not %d", MaxAdvanceRounds, n)
	}
	total := ledger.RoundReport{Closed: []coin.Round{}}
	for done := 0; done < n; {
		k := min(n-done, advanceChunk)
		rep, err := l.Rounds().AdvanceMany(ctx, k, s.collectAcross)
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
		if s.advanceHook != nil {
			s.advanceHook(rep.To)
		}
	}
	return total, nil
}

// collectAcross mints, within x (one piece of a jump, from rep.From to
// rep.To), the coupons due before the oldest round left open (the stored
// uncollected ones and those x created), each at the round after
// rep.From whose collection would have taken it: the first new round
// where its round is below the oldest open one, that is round+3, or
// rep.From+1 for one already due. Within a round it works as the
// reward collection (ledger/rewards) does: oldest first by beneficiary,
// round and contract, in pages of rewards.CollectPage, one holding and
// history row per beneficiary per page.
func (s *Service) collectAcross(ctx context.Context, x *ledger.Tx, rep *ledger.RoundReport) error {
	l := s.l
	a, firstOpen := rep.From, rep.To-ledger.OpenRoundsKept+1
	held, err := delegations.UndelegatedExternalParties(ctx, l, x.DB())
	if err != nil {
		return err
	}
	stored, err := store.DueRewardCoupons(ctx, x.DB(), firstOpen, advanceCollectMax, held...)
	if err != nil {
		return err
	}
	if len(stored) == advanceCollectMax {
		return fmt.Errorf("more than %d reward coupons wait for collection; let the collection job run first", advanceCollectMax)
	}
	type due struct {
		c     *store.RewardCoupon
		step  coin.Round
		fresh bool // created by x: marked collected in its own row
	}
	var ds []due
	stepOf := func(r coin.Round) coin.Round { return max(a+1, r+ledger.OpenRoundsKept) }
	for i := range stored {
		ds = append(ds, due{c: &stored[i], step: stepOf(stored[i].Round)})
	}
	for _, c := range x.NewRewardCoupons() {
		if c.Round < firstOpen && !slices.Contains(held, c.Beneficiary) {
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
	rules := x.Rules()
	var ids []coin.ContractID
	for i := 0; i < len(ds); {
		// One page: up to rewards.CollectPage coupons of one step.
		j := i
		for j < len(ds) && j-i < rewards.CollectPage && ds[j].step == ds[i].step {
			j++
		}
		x.AtRound(ds[i].step)
		var order []coin.PartyID
		sums := map[coin.PartyID]coin.Amount{}
		counts := map[coin.PartyID]int{}
		for _, d := range ds[i:j] {
			p := d.c.Beneficiary
			if _, ok := sums[p]; !ok {
				order = append(order, p)
			}
			sums[p] = sums[p].Add(rules.CouponIssuance(d.c.Kind, d.c.Amount))
			counts[p]++
			if d.fresh {
				d.c.CollectedAt = bun.NullTime{Time: x.Now()}
				off := x.Offset()
				d.c.CollectedOffset = &off
			} else {
				ids = append(ids, d.c.ContractID)
			}
		}
		for _, p := range order {
			if !sums[p].IsPositive() {
				continue
			}
			cid := x.Mint(p, sums[p])
			x.Record(p, ledger.HistoryBalanceChange, "CollectRewards", l.DSO(), sums[p], coin.Zero,
				fmt.Sprintf("minted %d reward coupons", counts[p]), ledger.HistoryDetails{ContractID: cid})
		}
		i = j
	}
	if err := store.MarkCouponsCollected(ctx, x.DB(), ids, x.Now(), x.Offset()); err != nil {
		return err
	}
	rep.Collected = len(ds)
	return nil
}
