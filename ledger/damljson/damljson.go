// Package damljson holds the Daml-JSON shapes of the network's contracts
// the core writes for clients to read where they read them on the real
// network: Daml's RelTime and Splice's Schedule, and the AmuletRules
// contract's payload (Splice.AmuletRules:AmuletRules with
// Splice.AmuletConfig's AmuletConfig USD): the traffic parameters at
// configSchedule.initialValue.decentralizedSynchronizer.fees, the fees at
// configSchedule.initialValue.transferConfig. Daml-JSON encodes Int and
// Decimal as strings and RelTime as {"microseconds": "<n>"}. Also the
// package versions the ledger answers for (PackageVersion). It imports
// nothing of the ledger: the core fills these from its Rules
// (ledger/amuletconfig.go) and reads its Rules from the meta table, not
// from here.
package damljson

import (
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// DamlPackageVersion fills PackageConfig: a splice-amulet version of the
// 0.4 releases (one for every package, unchecked per package). This
// ledger runs no Daml packages, so nothing resolves it.
const DamlPackageVersion = "0.1.14"

// PackageVersion is the version this ledger answers for a Daml package
// name: 1.0.0 for the token standard's interface packages and the example
// trading app, the release's splice-amulet version for the coin's own.
func PackageVersion(name string) string {
	if strings.HasPrefix(name, "splice-api-token-") || name == "splice-token-test-trading-app" {
		return "1.0.0"
	}
	return DamlPackageVersion
}

// RelTime is Daml's RelTime in Daml-JSON.
type RelTime struct {
	Microseconds string `json:"microseconds"`
}

// RelTimeOf is d as Daml's RelTime.
func RelTimeOf(d time.Duration) RelTime {
	return RelTime{Microseconds: strconv.FormatInt(d.Microseconds(), 10)}
}

// Duration is the RelTime as a Go duration (0 when malformed).
func (r RelTime) Duration() time.Duration {
	n, _ := strconv.ParseInt(r.Microseconds, 10, 64)
	return time.Duration(n) * time.Microsecond
}

// Int is a Daml Int64 in Daml-JSON (a string).
func Int[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// Schedule is Splice's Schedule with no future values (their
// [(time, value)] tuples never occur here).
type Schedule[T any] struct {
	InitialValue T          `json:"initialValue"`
	FutureValues []struct{} `json:"futureValues"`
}

// ScheduleOf is the Schedule of v alone.
func ScheduleOf[T any](v T) Schedule[T] {
	return Schedule[T]{InitialValue: v, FutureValues: []struct{}{}}
}

// Rate is Splice's RatePerRound.
type Rate struct {
	Rate coin.Amount `json:"rate"`
}

// FixedFee is Splice's Fee.
type FixedFee struct {
	Fee coin.Amount `json:"fee"`
}

// SteppedRate is Splice's SteppedRate; ours has no steps.
type SteppedRate struct {
	InitialRate coin.Amount `json:"initialRate"`
	Steps       []struct{}  `json:"steps"`
}

// TransferConfig is Splice's TransferConfig USD.
type TransferConfig struct {
	CreateFee                    FixedFee    `json:"createFee"`
	HoldingFee                   Rate        `json:"holdingFee"`
	TransferFee                  SteppedRate `json:"transferFee"`
	LockHolderFee                FixedFee    `json:"lockHolderFee"`
	ExtraFeaturedAppRewardAmount coin.Amount `json:"extraFeaturedAppRewardAmount"`
	MaxNumInputs                 string      `json:"maxNumInputs"`
	MaxNumOutputs                string      `json:"maxNumOutputs"`
	MaxNumLockHolders            string      `json:"maxNumLockHolders"`
}

// IssuanceConfig is Splice's IssuanceConfig.
type IssuanceConfig struct {
	AmuletToIssuePerYear      coin.Amount `json:"amuletToIssuePerYear"`
	ValidatorRewardPercentage coin.Amount `json:"validatorRewardPercentage"`
	AppRewardPercentage       coin.Amount `json:"appRewardPercentage"`
	ValidatorRewardCap        coin.Amount `json:"validatorRewardCap"`
	FeaturedAppRewardCap      coin.Amount `json:"featuredAppRewardCap"`
	UnfeaturedAppRewardCap    coin.Amount `json:"unfeaturedAppRewardCap"`
	OptValidatorFaucetCap     coin.Amount `json:"optValidatorFaucetCap"`
}

// Set is DA.Set.Set Text: a map to unit, as [key, {}] pairs.
type Set struct {
	Map [][2]any `json:"map"`
}

// SetOf is the Set of keys.
func SetOf(keys ...string) Set {
	s := Set{Map: make([][2]any, len(keys))}
	for i, k := range keys {
		s.Map[i] = [2]any{k, struct{}{}}
	}
	return s
}

// BaseRateTrafficLimits is Splice's BaseRateTrafficLimits.
type BaseRateTrafficLimits struct {
	BurstAmount string  `json:"burstAmount"`
	BurstWindow RelTime `json:"burstWindow"`
}

// SynchronizerFees is Splice's SynchronizerFeesConfig.
type SynchronizerFees struct {
	BaseRateTrafficLimits    BaseRateTrafficLimits `json:"baseRateTrafficLimits"`
	ExtraTrafficPrice        coin.Amount           `json:"extraTrafficPrice"`
	ReadVsWriteScalingFactor string                `json:"readVsWriteScalingFactor"`
	MinTopupAmount           string                `json:"minTopupAmount"`
}

// SynchronizerConfig is Splice's AmuletDecentralizedSynchronizerConfig.
type SynchronizerConfig struct {
	RequiredSynchronizers Set              `json:"requiredSynchronizers"`
	ActiveSynchronizer    string           `json:"activeSynchronizer"`
	Fees                  SynchronizerFees `json:"fees"`
}

// PackageConfig is Splice's PackageConfig.
type PackageConfig struct {
	Amulet             string `json:"amulet"`
	AmuletNameService  string `json:"amuletNameService"`
	DsoGovernance      string `json:"dsoGovernance"`
	ValidatorLifecycle string `json:"validatorLifecycle"`
	Wallet             string `json:"wallet"`
	WalletPayments     string `json:"walletPayments"`
}

// PackageConfigOf names version for every package.
func PackageConfigOf(version string) PackageConfig {
	return PackageConfig{Amulet: version, AmuletNameService: version, DsoGovernance: version, ValidatorLifecycle: version, Wallet: version, WalletPayments: version}
}

// AmuletConfig is Splice's AmuletConfig USD.
type AmuletConfig struct {
	TransferConfig                  TransferConfig           `json:"transferConfig"`
	IssuanceCurve                   Schedule[IssuanceConfig] `json:"issuanceCurve"`
	DecentralizedSynchronizer       SynchronizerConfig       `json:"decentralizedSynchronizer"`
	TickDuration                    RelTime                  `json:"tickDuration"`
	PackageConfig                   PackageConfig            `json:"packageConfig"`
	TransferPreapprovalFee          *coin.Amount             `json:"transferPreapprovalFee"`
	FeaturedAppActivityMarkerAmount *coin.Amount             `json:"featuredAppActivityMarkerAmount"`
}

// AmuletRules is the AmuletRules contract's payload.
type AmuletRules struct {
	DSO            coin.PartyID           `json:"dso"`
	ConfigSchedule Schedule[AmuletConfig] `json:"configSchedule"`
	IsDevNet       bool                   `json:"isDevNet"`
}
