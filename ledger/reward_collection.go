package ledger

import "github.com/ccwallet/ccwallet/coin"

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
