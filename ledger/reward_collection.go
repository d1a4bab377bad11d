package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// collectPage bounds the coupons one collection transaction mints.
const collectPage = 2000

// CouponIssuance is what one reward coupon mints at the issuance rates:
// validator and app rewards mint their weight up to their per-coupon cap
// (the rules have one app cap, FeaturedAppRewardCap, for both kinds of app
// reward), a liveness record mints the per-record issuance (or its own
// weight, if smaller and set).
func (r Rules) CouponIssuance(kind string, weight coin.Amount) coin.Amount {
	switch kind {
	case RewardValidator:
		return coin.Min(weight, r.ValidatorRewardPerCouponCap)
	case RewardApp:
		return coin.Min(weight, r.FeaturedAppRewardCap)
	case RewardLiveness:
		if weight.IsPositive() {
			return coin.Min(weight, r.LivenessActivityReward)
		}
		return r.LivenessActivityReward
	}
	return coin.Zero
}

// CollectRewards mints every uncollected reward coupon of a closed round
// (one older than the oldest open round, so its issuance is final) into a
// holding of its beneficiary, for all local parties but another
// validator's (HostedElsewhere) and for the external
// parties with an active minting delegation to this validator (an
// external party's own coupons otherwise wait for the party itself). Each beneficiary gets one
// holding per page and a history row; each coupon is archived and marked
// collected in the same transaction, guarded, so a second run (another
// replica) mints nothing twice. It returns the number of coupons collected.
func (l *Ledger) CollectRewards(ctx context.Context) (int, error) {
	total := 0
	for {
		n := 0
		err := l.change(ctx, func(ctx context.Context, ch *change) error {
			tx := ch.tx
			n = 0
			open, err := store.OpenRounds(ctx, tx)
			if err != nil {
				return err
			}
			if len(open) == 0 {
				return nil
			}
			held, err := l.undelegatedExternalParties(ctx, tx)
			if err != nil {
				return err
			}
			cs, err := store.DueRewardCouponsOutside(ctx, tx, open[0].Number, collectPage, held, l.otherNamespaces())
			if err != nil || len(cs) == 0 {
				return err
			}
			r, err := l.usable(ctx, tx, &open[len(open)-1])
			if err != nil {
				return err
			}
			t := ch.beginAt("collect-rewards", r)
			type sum struct {
				amount  coin.Amount
				coupons int
			}
			sums := map[coin.PartyID]*sum{}
			var order []coin.PartyID
			ids := make([]coin.ContractID, 0, len(cs))
			for _, c := range cs {
				ids = append(ids, c.ContractID)
				s := sums[c.Beneficiary]
				if s == nil {
					s = &sum{}
					sums[c.Beneficiary] = s
					order = append(order, c.Beneficiary)
				}
				s.amount = s.amount.Add(l.rules.CouponIssuance(c.Kind, c.Amount))
				s.coupons++
			}
			if err := t.ensureOffset(ctx); err != nil {
				return err
			}
			if err := store.MarkCouponsCollected(ctx, tx, ids, t.now, t.offset); err != nil {
				return err
			}
			for _, p := range order {
				s := sums[p]
				if !s.amount.IsPositive() {
					continue
				}
				cid := t.mint(p, s.amount)
				t.record(p, HistoryBalanceChange, "CollectRewards", l.dso, s.amount, coin.Zero,
					fmt.Sprintf("minted %d reward coupons", s.coupons),
					HistoryDetails{ContractID: cid})
			}
			n = len(cs)
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("collect rewards: %w", err)
		}
		total += n
		if n < collectPage {
			return total, nil
		}
	}
}

// SeedRewardCoupons creates one coupon of kind with weight amount for each
// beneficiary in one transaction, at the latest open round: seeding for
// demos, benchmarks and tests (real coupons come from traffic, transfers
// and liveness).
func (d Dev) SeedRewardCoupons(ctx context.Context, kind string, beneficiaries []coin.PartyID, amount coin.Amount) error {
	l := d.l
	if _, ok := rewardTemplates[kind]; !ok {
		return invalid("kind", "unknown reward kind %q", kind)
	}
	return l.change(ctx, func(ctx context.Context, c *change) error {
		t, err := c.begin(ctx, "seed-rewards")
		if err != nil {
			return err
		}
		for _, b := range beneficiaries {
			t.addRewardCoupon(kind, b, amount, kind == RewardApp)
		}
		return nil
	})
}

// undelegatedExternalParties lists the external parties without an active,
// unexpired minting delegation to this validator: minting their coupons
// needs their own signature, so reward collection leaves them alone.
func (l *Ledger) undelegatedExternalParties(ctx context.Context, db bun.IDB) ([]coin.PartyID, error) {
	ext, err := store.PartyIDsOfKind(ctx, db, PartyKindExternal)
	if err != nil || len(ext) == 0 {
		return nil, err
	}
	now := l.now()
	ds, err := l.MintingDelegationsIn(ctx, db, TemplateMintingDelegation, "", func(d MintingDelegation) bool {
		return d.Delegate == l.operator && d.ExpiresAt.After(now)
	})
	if err != nil {
		return nil, err
	}
	delegated := map[coin.PartyID]bool{}
	for _, d := range ds {
		delegated[d.Beneficiary] = true
	}
	var held []coin.PartyID
	for _, p := range ext {
		if !delegated[p] {
			held = append(held, p)
		}
	}
	return held, nil
}
