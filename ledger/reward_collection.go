package ledger

import (
	"context"

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

// undelegatedExternalParties lists the external parties without an active,
// unexpired minting delegation to this validator: minting their coupons
// needs their own signature, so reward collection leaves them alone.
func (l *Ledger) undelegatedExternalParties(ctx context.Context, db bun.IDB) ([]coin.PartyID, error) {
	ext, err := store.PartyIDsOfKind(ctx, db, PartyKindExternal)
	if err != nil || len(ext) == 0 {
		return nil, err
	}
	now := l.now()
	ds, err := MintingDelegationsIn(ctx, l, db, TemplateMintingDelegation, "", func(d MintingDelegation) bool {
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
