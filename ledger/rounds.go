package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// OpenRoundsKept is how many mining rounds stay open at once, as on the
// real network: opening round n+1 closes round n-2.
const OpenRoundsKept = 3

// RoundReport says what advancing the round clock did.
type RoundReport struct {
	// From and To are the latest open round before and after.
	From coin.Round `json:"from"`
	To   coin.Round `json:"to"`
	// Closed lists the rounds closed on the way.
	Closed []coin.Round `json:"closed"`
	// Expired counts holdings archived as dust; Collected counts reward
	// coupons minted.
	Expired   int `json:"expired"`
	Collected int `json:"collected"`
}

// Rounds is the core's round clock of one validator's ledger: it opens
// and closes the mining rounds (TickRounds, AdvanceRound, a development
// network's AdvanceMany) with their per-round work (validator and
// liveness rewards, the workflows' AfterRounds steps: dust expiry,
// reward collection), and
// holds the one rule for which open round is in use (usable).
type Rounds struct{ l *Ledger }

// Rounds returns l's round clock.
func (l *Ledger) Rounds() Rounds { return Rounds{l} }

// roundsLockKey serialises round changes across replicas.
const roundsLockKey = "ccwallet:rounds"

// TickRounds is the round clock's job: it opens the next round when the
// latest one has been open for interval (the real network's tick), and then
// runs the per-round work. Run twice in the same tick it does nothing the
// second time, so replicas racing each other are harmless.
func (ro Rounds) TickRounds(ctx context.Context, interval time.Duration) (RoundReport, error) {
	l := ro.l
	if interval <= 0 {
		return RoundReport{}, fault.Invalid("interval", "must be positive, not %s", interval)
	}
	var rep RoundReport
	opened := false
	err := l.change(ctx, func(ctx context.Context, ch *change) error {
		rep, opened = RoundReport{}, false
		latest, err := ro.lockRounds(ctx, ch)
		if err != nil {
			return err
		}
		rep.From, rep.To = latest.Number, latest.Number
		// Due by the time the latest round was really created: after a
		// developer's jump its opensAt lies ahead of the wall clock.
		c, err := store.ContractByID(ctx, ch.tx, latest.ContractID)
		if err != nil {
			return err
		}
		if l.Now().Before(c.CreatedAt.Add(interval)) {
			return nil
		}
		opened = true
		return ro.advance(ctx, ch, latest, &rep)
	})
	if err != nil || !opened {
		return rep, err
	}
	return rep, ro.afterRounds(ctx, &rep)
}

// AdvanceRound opens round n+1 now, whatever the interval, carrying the
// price over, closes the rounds that fall out of the open window and runs
// the per-round work: validator rewards for the closed rounds' traffic, a
// liveness record for the new round, dust expiry and reward collection.
func (ro Rounds) AdvanceRound(ctx context.Context) (RoundReport, error) {
	l := ro.l
	var rep RoundReport
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		rep = RoundReport{}
		latest, err := ro.lockRounds(ctx, c)
		if err != nil {
			return err
		}
		return ro.advance(ctx, c, latest, &rep)
	})
	if err != nil {
		return rep, fmt.Errorf("advance round: %w", err)
	}
	return rep, ro.afterRounds(ctx, &rep)
}

// lockRounds takes the rounds lock in c and reads the latest open round.
func (ro Rounds) lockRounds(ctx context.Context, c *change) (*store.Round, error) {
	l := ro.l
	if err := l.db.LockKey(ctx, c.tx, roundsLockKey); err != nil {
		return nil, err
	}
	return store.LatestRound(ctx, c.tx)
}

// advance opens the round after latest and closes the old ones. The new
// round opens the moment it is created, by the ledger's clock, whether the
// tick or a developer's jump opened it: a round whose opensAt lay ahead
// would be open for the wallet but not yet usable for the registry (see
// usable), and after a jump of n rounds it would stay so for n ticks of
// wall time.
func (ro Rounds) advance(ctx context.Context, c *change, latest *store.Round, rep *RoundReport) error {
	l := ro.l
	next := latest.Number + 1
	rep.From, rep.To = latest.Number, next
	t := c.beginAt("advance-round", &store.Round{Number: next, Price: latest.Price})
	if err := ro.openRound(ctx, t, next, latest.Price, t.now); err != nil {
		return err
	}
	if err := ro.closeRounds(ctx, t, next-OpenRoundsKept+1, rep); err != nil {
		return err
	}
	// ReceiveFaucetCouponTrigger: each validator of the network records
	// its liveness once per open round.
	for _, op := range l.Validators().operators() {
		t.addRewardCoupon(RewardLiveness, op, l.rules.LivenessActivityReward, false)
	}
	return nil
}

// closeRounds closes, in t, the open rounds numbered below before, each
// with its validator reward, and adds them to rep.Closed.
func (ro Rounds) closeRounds(ctx context.Context, t *txn, before coin.Round, rep *RoundReport) error {
	closed, err := store.CloseRoundsBefore(ctx, t.tx, before, t.now)
	if err != nil {
		return err
	}
	for _, r := range closed {
		t.reference = true
		rep.Closed = append(rep.Closed, r.Number)
		t.archive(r.ContractID)
		if err := ro.issueValidatorReward(ctx, t, r); err != nil {
			return err
		}
	}
	return nil
}

// issueValidatorReward creates the operator's validator reward coupon for
// a closed round, weighted by the traffic its submissions spent in that
// round (priced in coin), once per round.
func (ro Rounds) issueValidatorReward(ctx context.Context, t *txn, r store.Round) error {
	l := ro.l
	bytes, err := store.TrafficInRound(ctx, t.tx, r.Number)
	if err != nil || bytes == 0 {
		return err
	}
	n, err := store.CountRewardCoupons(ctx, t.tx, RewardValidator, l.operator, r.Number)
	if err != nil || n > 0 {
		return err
	}
	weight := l.rules.TrafficCost(bytes, r.Price)
	if !weight.IsPositive() {
		return nil
	}
	// The coupon belongs to the round it rewards, not to the round open now.
	saved := t.round
	t.round = &store.Round{Number: r.Number, Price: r.Price}
	t.addRewardCoupon(RewardValidator, l.operator, weight, false)
	t.round = saved
	return nil
}

// afterRounds runs the work every new round triggers: the workflows'
// steps (AfterRounds: dust expiry, then reward collection).
func (ro Rounds) afterRounds(ctx context.Context, rep *RoundReport) error {
	l := ro.l
	if rep.Closed == nil {
		rep.Closed = []coin.Round{}
	}
	if steps := l.roundSteps.Load(); steps != nil {
		for _, step := range *steps {
			if err := step(ctx, rep); err != nil {
				return err
			}
		}
	}
	return nil
}

// RoundInfo is one open or recent mining round.
type RoundInfo struct {
	Number         coin.Round
	Price          coin.Amount
	OpensAt        time.Time
	TargetClosesAt time.Time
	ContractID     coin.ContractID
}

// usableRound is the round a ledger transaction or a registry answer uses
// now: see usable.
func (ro Rounds) usableRound(ctx context.Context, db bun.IDB) (*store.Round, error) {
	r, err := store.LatestRound(ctx, db)
	if err != nil {
		return nil, err
	}
	return ro.usable(ctx, db, r)
}

// usable is the one rule for which open round is in use, shared by the
// wallet (every transaction, balance and holding view) and the registry
// (choice contexts, transfer factory), so they always name the same round:
// the newest open round that has already opened by the ledger's clock, as
// the real scan's latest usable OpenMiningRound. latest is the newest open
// round; it is the answer unless its opensAt lies ahead of the clock (a
// replica whose clock lags the one that opened it, say).
func (ro Rounds) usable(ctx context.Context, db bun.IDB, latest *store.Round) (*store.Round, error) {
	l := ro.l
	now := l.Now()
	if !latest.OpensAt.After(now) {
		return latest, nil
	}
	rs, err := store.OpenRounds(ctx, db)
	if err != nil {
		return nil, err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		if !rs[i].OpensAt.After(now) {
			return &rs[i], nil
		}
	}
	return nil, fault.NotFoundf("No open usable OpenMiningRound found.")
}

// OpenRounds lists the open rounds, oldest first.
func (ro Rounds) OpenRounds(ctx context.Context) ([]RoundInfo, error) {
	l := ro.l
	rs, err := store.OpenRounds(ctx, l.db)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, errors.New("no open round")
	}
	out := make([]RoundInfo, len(rs))
	for i, r := range rs {
		out[i] = RoundInfo{Number: r.Number, Price: r.Price, OpensAt: r.OpensAt, TargetClosesAt: r.TargetClosesAt, ContractID: r.ContractID}
	}
	return out, nil
}

// openRound creates round n's contract and row inside t.
func (ro Rounds) openRound(ctx context.Context, t *txn, n coin.Round, price coin.Amount, opensAt time.Time) error {
	r := ro.roundContract(t, n, price, opensAt)
	return store.InsertRound(ctx, t.tx, &r)
}

// roundContract creates round n's OpenMiningRound contract in t and
// returns the round's row, for the caller to insert.
func (ro Rounds) roundContract(t *txn, n coin.Round, price coin.Amount, opensAt time.Time) store.Round {
	l := ro.l
	closes := opensAt.Add(2 * l.rules.TickDuration)
	cid := t.create(TemplateOpenMiningRound, roundPayload{
		DSO: l.dso, Round: RoundRefOf(n), AmuletPrice: price, OpensAt: FormatTime(opensAt),
		TargetClosesAt: FormatTime(closes), IssuingFor: RelTimeOf(time.Duration(n) * l.rules.TickDuration),
		TransferConfigUSD: transferConfigOf(l.rules), IssuanceConfig: issuanceConfigOf(l.rules), TickDuration: RelTimeOf(l.rules.TickDuration),
	}, l.dso)
	return store.Round{Number: n, ContractID: cid, Price: price, OpensAt: opensAt, TargetClosesAt: closes}
}

// ReferenceVersion moves (after the commit) with every change of this
// process that archives a contract (an unlocked holding spent is not a
// contract archived), opens a round, or creates a featured-app right or a
// transfer preapproval; with a reassignment begun or completed; and with a
// restore. So what a transfer's route and the contracts a factory answer
// discloses depend on cannot change here without moving it. A reader that
// remembers them (the registry's factory answers) keeps what it read
// while the version it read at holds, and for at most a second, as
// another replica's changes do not move it: an answer then stale is the
// race every answer runs with the submission that uses it.
func (l *Ledger) ReferenceVersion() uint64 { return l.referenceVersion.Load() }
