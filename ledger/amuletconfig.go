package ledger

import (
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/damljson"
)

// The AmuletRules contract's payload and an open round's configs, filled
// from the ledger's Rules in the shape of Splice's Daml templates
// (ledger/damljson has the shapes). The ledger itself reads its Rules
// from the meta table (metaRules), not from here.

// Issuance values the ledger does not model, Splice's defaults
// (SpliceUtil.defaultIssuanceCurve's initial value), for wire fidelity.
var (
	issuanceAmuletPerYear        = coin.MustParse("40000000000")
	issuanceValidatorRewardShare = coin.MustParse("0.05")
	issuanceAppRewardShare       = coin.MustParse("0.15")
	issuanceUnfeaturedAppCap     = coin.MustParse("0.6")
)

// maxNumLockHolders is Splice's default; ours locks hold one holder.
const maxNumLockHolders = 50

// RelTime is Daml's RelTime (damljson.RelTime).
type RelTime = damljson.RelTime

// RelTimeOf is d as Daml's RelTime.
func RelTimeOf(d time.Duration) RelTime { return damljson.RelTimeOf(d) }

// rateRef is Splice's RatePerRound (damljson.Rate).
type rateRef = damljson.Rate

// transferConfigOf is r's TransferConfig USD.
func transferConfigOf(r Rules) damljson.TransferConfig {
	return damljson.TransferConfig{
		CreateFee: damljson.FixedFee{Fee: r.CreateFeeUSD}, HoldingFee: rateRef{Rate: r.HoldingFeeUSD},
		TransferFee: damljson.SteppedRate{InitialRate: r.TransferFeeRate, Steps: []struct{}{}}, LockHolderFee: damljson.FixedFee{Fee: r.LockHolderFeeUSD},
		ExtraFeaturedAppRewardAmount: r.ExtraFeaturedAppRewardUSD, MaxNumInputs: damljson.Int(r.MaxNumInputs),
		MaxNumOutputs: damljson.Int(r.MaxNumOutputs), MaxNumLockHolders: damljson.Int(maxNumLockHolders),
	}
}

// issuanceConfigOf is r's IssuanceConfig.
func issuanceConfigOf(r Rules) damljson.IssuanceConfig {
	return damljson.IssuanceConfig{
		AmuletToIssuePerYear: issuanceAmuletPerYear, ValidatorRewardPercentage: issuanceValidatorRewardShare,
		AppRewardPercentage: issuanceAppRewardShare, ValidatorRewardCap: r.ValidatorRewardPerCouponCap,
		FeaturedAppRewardCap: r.FeaturedAppRewardCap, UnfeaturedAppRewardCap: issuanceUnfeaturedAppCap,
		OptValidatorFaucetCap: r.LivenessActivityReward,
	}
}

// newAmuletRulesPayload builds the AmuletRules payload for rules on the
// synchronizer syncID.
func newAmuletRulesPayload(dso coin.PartyID, r Rules, devNet bool, syncID string) damljson.AmuletRules {
	preapprovalFee := r.TransferPreapprovalFeeUSDPerDay
	cfg := damljson.AmuletConfig{
		TransferConfig: transferConfigOf(r),
		IssuanceCurve:  damljson.ScheduleOf(issuanceConfigOf(r)),
		DecentralizedSynchronizer: damljson.SynchronizerConfig{
			RequiredSynchronizers: damljson.SetOf(syncID),
			ActiveSynchronizer:    syncID,
			Fees: damljson.SynchronizerFees{
				BaseRateTrafficLimits:    damljson.BaseRateTrafficLimits{BurstAmount: damljson.Int(r.BaseRateBurstAmountBytes), BurstWindow: RelTimeOf(r.BaseRateBurstWindow)},
				ExtraTrafficPrice:        r.ExtraTrafficPriceUSDPerMB,
				ReadVsWriteScalingFactor: damljson.Int(r.ReadVsWriteScalingFactor),
				MinTopupAmount:           damljson.Int(r.MinTopupAmountBytes),
			},
		},
		TickDuration:           RelTimeOf(r.TickDuration),
		PackageConfig:          damljson.PackageConfigOf(damljson.DamlPackageVersion),
		TransferPreapprovalFee: &preapprovalFee,
	}
	return damljson.AmuletRules{DSO: dso, ConfigSchedule: damljson.ScheduleOf(cfg), IsDevNet: devNet}
}
