package ledger

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// Rules are the network's coin rules (the real network's AmuletRules). Fee
// values are in USD and converted to coin at the round's price. Defaults come
// from the public Splice code (SpliceUtil.scala defaultAmuletConfig,
// v0.4.15) unless a comment says otherwise.
type Rules struct {
	// HoldingFeeUSD is charged per holding per round: 1 USD per year at the
	// 10-minute tick, i.e. 1/52560 rounded to 10 digits.
	HoldingFeeUSD coin.Amount `json:"holdingFee"`
	// CreateFeeUSD is charged per transfer output to another party. Live
	// networks set it to 0 (CIP-0078 removed transfer fees); kept
	// configurable so the fee path stays exercised.
	CreateFeeUSD coin.Amount `json:"createFee"`
	// TransferFeeUSD is the stepped rate on the amount sent to another party;
	// zero on live networks since CIP-0078.
	TransferFeeRate coin.Amount `json:"transferFeeInitialRate"`
	// LockHolderFeeUSD is charged per lock holder; zero since CIP-0078.
	LockHolderFeeUSD coin.Amount `json:"lockHolderFee"`
	// MaxNumInputs bounds the inputs of one transfer (Splice: 100).
	MaxNumInputs int `json:"maxNumInputs"`
	// MaxNumOutputs bounds the outputs of one transfer (Splice: 100).
	MaxNumOutputs int `json:"maxNumOutputs"`
	// ExtraTrafficPriceUSDPerMB prices purchased traffic (Splice: 16.67).
	ExtraTrafficPriceUSDPerMB coin.Amount `json:"extraTrafficPrice"`
	// MinTopupAmountBytes is the smallest traffic purchase (Splice: 200000).
	MinTopupAmountBytes int64 `json:"minTopupAmount"`
	// BaseRateBurstAmountBytes and BaseRateBurstWindow are the free traffic
	// every member gets (Splice: 400000 bytes per 20 minutes).
	BaseRateBurstAmountBytes int64         `json:"baseRateBurstAmount"`
	BaseRateBurstWindow      time.Duration `json:"baseRateBurstWindow"`
	// ReadVsWriteScalingFactor is kept for wire fidelity (Splice: 4).
	ReadVsWriteScalingFactor int64 `json:"readVsWriteScalingFactor"`
	// TickDuration is the round length (Splice: 10 minutes).
	TickDuration time.Duration `json:"tickDuration"`
	// InitialPriceUSD is the coin price of the first round (Splice: 0.005).
	InitialPriceUSD coin.Amount `json:"initialAmuletPrice"`
	// TransferPreapprovalFeeUSDPerDay is the preapproval fee (Splice: 0.00274).
	TransferPreapprovalFeeUSDPerDay coin.Amount `json:"transferPreapprovalFee"`
	// TrafficBaseBytes and TrafficPerInputBytes model the sequencer traffic a
	// submission costs: a fixed part plus a part per input holding, which
	// is why many small inputs cost more. Our own estimate of Canton's
	// envelope sizes.
	TrafficBaseBytes     int64 `json:"trafficBaseBytes"`
	TrafficPerInputBytes int64 `json:"trafficPerInputBytes"`
	// Issuance per round (coin) for the reward kinds the wallet collects.
	ValidatorRewardPerCouponCap coin.Amount `json:"issuancePerValidatorRewardCoupon"`
	FeaturedAppRewardCap        coin.Amount `json:"issuancePerFeaturedAppRewardCoupon"`
	LivenessActivityReward      coin.Amount `json:"issuancePerValidatorFaucetCoupon"`
	// ExtraFeaturedAppRewardUSD is the reward a featured provider earns per
	// app activity (Splice: 1.0 USD).
	ExtraFeaturedAppRewardUSD coin.Amount `json:"extraFeaturedAppRewardAmount"`
}

// DefaultRules returns the real network's default rules.
func DefaultRules() Rules {
	return Rules{
		HoldingFeeUSD:                   coin.MustParse("0.0000190259"),
		CreateFeeUSD:                    coin.Zero,
		TransferFeeRate:                 coin.Zero,
		LockHolderFeeUSD:                coin.Zero,
		MaxNumInputs:                    100,
		MaxNumOutputs:                   100,
		ExtraTrafficPriceUSDPerMB:       coin.MustParse("16.67"),
		MinTopupAmountBytes:             200_000,
		BaseRateBurstAmountBytes:        400_000,
		BaseRateBurstWindow:             20 * time.Minute,
		ReadVsWriteScalingFactor:        4,
		TickDuration:                    10 * time.Minute,
		InitialPriceUSD:                 coin.MustParse("0.005"),
		TransferPreapprovalFeeUSDPerDay: coin.MustParse("0.00274"),
		TrafficBaseBytes:                2_000,
		TrafficPerInputBytes:            500,
		ValidatorRewardPerCouponCap:     coin.MustParse("0.2"),
		FeaturedAppRewardCap:            coin.MustParse("100"),
		LivenessActivityReward:          coin.MustParse("2.85"),
		ExtraFeaturedAppRewardUSD:       coin.MustParse("1"),
	}
}

// USDToCoin converts a USD amount at price (USD per coin).
func USDToCoin(usd, price coin.Amount) coin.Amount { return usd.Div(price) }

// CoinToUSD converts a coin amount at price (USD per coin).
func CoinToUSD(cc, price coin.Amount) coin.Amount { return cc.Mul(price) }

// HoldingRate is the per-round holding fee, in coin, of a holding created
// at a round with this price. It is fixed at creation, as on the network.
func (r Rules) HoldingRate(price coin.Amount) coin.Amount { return USDToCoin(r.HoldingFeeUSD, price) }

// HoldingFee is the fee a holding has accrued at round at: rate per round
// since its creation round, never more than the holding itself.
func HoldingFee(initial, rate coin.Amount, created, at coin.Round) coin.Amount {
	if at <= created {
		return coin.Zero
	}
	return coin.Min(initial, rate.MulInt(int64(at-created)))
}

// EffectiveAmount is what a holding is worth at round at.
func EffectiveAmount(initial, rate coin.Amount, created, at coin.Round) coin.Amount {
	return initial.Sub(HoldingFee(initial, rate, created, at))
}

// IsDust reports whether a holding has expired at round at: its accrued fee
// exceeds its initial amount (the mission's dust rule).
func IsDust(initial, rate coin.Amount, created, at coin.Round) bool {
	if at <= created || rate.IsZero() {
		return false
	}
	return initial.Cmp(rate.MulInt(int64(at-created))) < 0
}

// ExpiresAt is the first round at which the holding is dust.
func ExpiresAt(initial, rate coin.Amount, created coin.Round) (coin.Round, bool) {
	if rate.IsZero() {
		return 0, false
	}
	// Smallest n with rate*n > initial: one more than the largest n with
	// rate*n <= initial. (Exact integer division: the home page values
	// every holding on each visit.)
	return created + coin.Round(initial.Quo(rate)+1), true
}

// OutputFee is the fee, in coin, for one output of amount to another party
// at price; a self-transfer pays none. Without fees (Splice's defaults
// since CIP-0078) it is zero without the arithmetic, which, rounded at
// each step, was 3% of the wallet's CPU per one-step send.
func (r Rules) OutputFee(amount, price coin.Amount, self bool) coin.Amount {
	if self {
		return coin.Zero
	}
	usd := r.CreateFeeUSD
	if !r.TransferFeeRate.IsZero() {
		usd = usd.Add(CoinToUSD(amount, price).Mul(r.TransferFeeRate))
	}
	if usd.IsZero() {
		return coin.Zero
	}
	return USDToCoin(usd, price)
}

// TrafficBytes is the traffic a submission with n input holdings costs.
func (r Rules) TrafficBytes(inputs int) int64 {
	return r.TrafficBaseBytes + int64(inputs)*r.TrafficPerInputBytes
}

// TrafficCost is the coin price of buying bytes of traffic at price.
func (r Rules) TrafficCost(bytes int64, price coin.Amount) coin.Amount {
	usd := r.ExtraTrafficPriceUSDPerMB.MulInt(bytes).Div(coin.FromInt(1_000_000))
	return USDToCoin(usd, price)
}

// usingRules is Reassignments().refuse for a transaction that moves coin: it
// uses ids, AmuletRules and its open round.
func (t *txn) usingRules(ctx context.Context, ids ...coin.ContractID) error {
	return t.l.Reassignments().refuse(ctx, t.tx, append(ids, t.l.rulesCID, t.round.ContractID)...)
}
