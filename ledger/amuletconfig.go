package ledger

import (
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// The AmuletRules contract's payload in the shape of Splice's Daml
// template (Splice.AmuletRules:AmuletRules with Splice.AmuletConfig's
// AmuletConfig USD), so a client reads the rules where it reads them on
// the real network: the traffic parameters at
// configSchedule.initialValue.decentralizedSynchronizer.fees, the fees at
// configSchedule.initialValue.transferConfig. Daml-JSON encodes Int and
// Decimal as strings and RelTime as {"microseconds": "<n>"}. The ledger
// itself reads its Rules from the meta table (metaRules), not from here.

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

// damlPackageVersion fills packageConfig: a splice-amulet version of the
// 0.4 releases (one for every package, unchecked per package). This
// ledger runs no Daml packages, so nothing resolves it.
const damlPackageVersion = "0.1.14"

type damlRelTime struct {
	Microseconds string `json:"microseconds"`
}

func relTime(d time.Duration) damlRelTime {
	return damlRelTime{Microseconds: strconv.FormatInt(d.Microseconds(), 10)}
}

func damlInt[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// damlSchedule is Splice's Schedule with no future values (their
// [(time, value)] tuples never occur here).
type damlSchedule[T any] struct {
	InitialValue T          `json:"initialValue"`
	FutureValues []struct{} `json:"futureValues"`
}

type fixedFee struct {
	Fee coin.Amount `json:"fee"`
}

// steppedRate is Splice's SteppedRate; ours has no steps.
type steppedRate struct {
	InitialRate coin.Amount `json:"initialRate"`
	Steps       []struct{}  `json:"steps"`
}

type transferConfig struct {
	CreateFee                    fixedFee    `json:"createFee"`
	HoldingFee                   rateRef     `json:"holdingFee"`
	TransferFee                  steppedRate `json:"transferFee"`
	LockHolderFee                fixedFee    `json:"lockHolderFee"`
	ExtraFeaturedAppRewardAmount coin.Amount `json:"extraFeaturedAppRewardAmount"`
	MaxNumInputs                 string      `json:"maxNumInputs"`
	MaxNumOutputs                string      `json:"maxNumOutputs"`
	MaxNumLockHolders            string      `json:"maxNumLockHolders"`
}

type issuanceConfig struct {
	AmuletToIssuePerYear      coin.Amount `json:"amuletToIssuePerYear"`
	ValidatorRewardPercentage coin.Amount `json:"validatorRewardPercentage"`
	AppRewardPercentage       coin.Amount `json:"appRewardPercentage"`
	ValidatorRewardCap        coin.Amount `json:"validatorRewardCap"`
	FeaturedAppRewardCap      coin.Amount `json:"featuredAppRewardCap"`
	UnfeaturedAppRewardCap    coin.Amount `json:"unfeaturedAppRewardCap"`
	OptValidatorFaucetCap     coin.Amount `json:"optValidatorFaucetCap"`
}

// damlSet is DA.Set.Set Text: a map to unit, as [key, {}] pairs.
type damlSet struct {
	Map [][2]any `json:"map"`
}

type baseRateTrafficLimits struct {
	BurstAmount string      `json:"burstAmount"`
	BurstWindow damlRelTime `json:"burstWindow"`
}

type synchronizerFees struct {
	BaseRateTrafficLimits    baseRateTrafficLimits `json:"baseRateTrafficLimits"`
	ExtraTrafficPrice        coin.Amount           `json:"extraTrafficPrice"`
	ReadVsWriteScalingFactor string                `json:"readVsWriteScalingFactor"`
	MinTopupAmount           string                `json:"minTopupAmount"`
}

type synchronizerConfig struct {
	RequiredSynchronizers damlSet          `json:"requiredSynchronizers"`
	ActiveSynchronizer    string           `json:"activeSynchronizer"`
	Fees                  synchronizerFees `json:"fees"`
}

type packageConfig struct {
	Amulet             string `json:"amulet"`
	AmuletNameService  string `json:"amuletNameService"`
	DsoGovernance      string `json:"dsoGovernance"`
	ValidatorLifecycle string `json:"validatorLifecycle"`
	Wallet             string `json:"wallet"`
	WalletPayments     string `json:"walletPayments"`
}

type amuletConfig struct {
	TransferConfig                  transferConfig               `json:"transferConfig"`
	IssuanceCurve                   damlSchedule[issuanceConfig] `json:"issuanceCurve"`
	DecentralizedSynchronizer       synchronizerConfig           `json:"decentralizedSynchronizer"`
	TickDuration                    damlRelTime                  `json:"tickDuration"`
	PackageConfig                   packageConfig                `json:"packageConfig"`
	TransferPreapprovalFee          *coin.Amount                 `json:"transferPreapprovalFee"`
	FeaturedAppActivityMarkerAmount *coin.Amount                 `json:"featuredAppActivityMarkerAmount"`
}

// amuletRulesPayload is the AmuletRules contract's payload.
type amuletRulesPayload struct {
	DSO            coin.PartyID               `json:"dso"`
	ConfigSchedule damlSchedule[amuletConfig] `json:"configSchedule"`
	IsDevNet       bool                       `json:"isDevNet"`
}

// transferConfigOf is r's TransferConfig USD.
func transferConfigOf(r Rules) transferConfig {
	return transferConfig{
		CreateFee: fixedFee{Fee: r.CreateFeeUSD}, HoldingFee: rateRef{Rate: r.HoldingFeeUSD},
		TransferFee: steppedRate{InitialRate: r.TransferFeeRate, Steps: []struct{}{}}, LockHolderFee: fixedFee{Fee: r.LockHolderFeeUSD},
		ExtraFeaturedAppRewardAmount: r.ExtraFeaturedAppRewardUSD, MaxNumInputs: damlInt(r.MaxNumInputs),
		MaxNumOutputs: damlInt(r.MaxNumOutputs), MaxNumLockHolders: damlInt(maxNumLockHolders),
	}
}

// issuanceConfigOf is r's IssuanceConfig.
func issuanceConfigOf(r Rules) issuanceConfig {
	return issuanceConfig{
		AmuletToIssuePerYear: issuanceAmuletPerYear, ValidatorRewardPercentage: issuanceValidatorRewardShare,
		AppRewardPercentage: issuanceAppRewardShare, ValidatorRewardCap: r.ValidatorRewardPerCouponCap,
		FeaturedAppRewardCap: r.FeaturedAppRewardCap, UnfeaturedAppRewardCap: issuanceUnfeaturedAppCap,
		OptValidatorFaucetCap: r.LivenessActivityReward,
	}
}

// newAmuletRulesPayload builds the AmuletRules payload for rules on the
// synchronizer syncID.
func newAmuletRulesPayload(dso coin.PartyID, r Rules, devNet bool, syncID string) amuletRulesPayload {
	preapprovalFee := r.TransferPreapprovalFeeUSDPerDay
	pkg := damlPackageVersion
	cfg := amuletConfig{
		TransferConfig: transferConfigOf(r),
		IssuanceCurve:  damlSchedule[issuanceConfig]{InitialValue: issuanceConfigOf(r), FutureValues: []struct{}{}},
		DecentralizedSynchronizer: synchronizerConfig{
			RequiredSynchronizers: damlSet{Map: [][2]any{{syncID, struct{}{}}}},
			ActiveSynchronizer:    syncID,
			Fees: synchronizerFees{
				BaseRateTrafficLimits:    baseRateTrafficLimits{BurstAmount: damlInt(r.BaseRateBurstAmountBytes), BurstWindow: relTime(r.BaseRateBurstWindow)},
				ExtraTrafficPrice:        r.ExtraTrafficPriceUSDPerMB,
				ReadVsWriteScalingFactor: damlInt(r.ReadVsWriteScalingFactor),
				MinTopupAmount:           damlInt(r.MinTopupAmountBytes),
			},
		},
		TickDuration:           relTime(r.TickDuration),
		PackageConfig:          packageConfig{Amulet: pkg, AmuletNameService: pkg, DsoGovernance: pkg, ValidatorLifecycle: pkg, Wallet: pkg, WalletPayments: pkg},
		TransferPreapprovalFee: &preapprovalFee,
	}
	return amuletRulesPayload{DSO: dso, ConfigSchedule: damlSchedule[amuletConfig]{InitialValue: cfg, FutureValues: []struct{}{}}, IsDevNet: devNet}
}

// PackageVersion is the version this ledger answers for a Daml package
// name: 1.0.0 for the token standard's interface packages and the example
// trading app, the release's splice-amulet version for the coin's own.
func PackageVersion(name string) string {
	if strings.HasPrefix(name, "splice-api-token-") || name == "splice-token-test-trading-app" {
		return "1.0.0"
	}
	return damlPackageVersion
}
