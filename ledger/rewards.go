package ledger

import (
	"context"
	"encoding/json"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Reward kinds, with the real network's template of each.
const (
	RewardApp       = "app"
	RewardValidator = "validator"
	RewardLiveness  = "liveness"
	// Kinds the embedded network never issues, so their lists are always
	// empty: validators record liveness (RewardLiveness) instead of
	// receiving faucet coupons, and there are no super validators.
	RewardValidatorFaucet = "validator-faucet"
	RewardSV              = "sv"
)

var rewardTemplates = map[string]string{
	RewardApp:       "#splice-amulet:Splice.Amulet:AppRewardCoupon",
	RewardValidator: "#splice-amulet:Splice.Amulet:ValidatorRewardCoupon",
	RewardLiveness:  "#splice-validator-lifecycle:Splice.ValidatorLicense:ValidatorLivenessActivityRecord",
}

// addRewardCoupon creates a reward coupon for beneficiary in t, to be
// minted by reward collection after its round closes. amount is the
// coupon's weight in coin (for liveness records: the issuance per record).
// The coupon's contract is its row (ledger/rewards shows it as one).
func (t *changes) addRewardCoupon(kind string, beneficiary coin.PartyID, amount coin.Amount, featured bool) {
	// The coupon row rides commit's batch.
	t.coupons = append(t.coupons, store.RewardCoupon{
		ContractID: coin.NewContractID(), Kind: kind, Beneficiary: beneficiary, Amount: amount, Round: t.round.Number,
		Featured: featured, CreatedAt: t.now,
	})
}

// FeaturedRightsOf lists provider's live FeaturedAppRights (the DSO is a
// stakeholder of every right, so the payload's provider decides): a send
// to a featured provider's user earns it a featured app reward.
func FeaturedRightsOf(ctx context.Context, db bun.IDB, provider coin.PartyID) ([]coin.ContractID, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, db, TemplateFeaturedAppRight, provider)
	if err != nil {
		return nil, err
	}
	var out []coin.ContractID
	for _, c := range cs {
		var p struct {
			Provider coin.PartyID `json:"provider"`
		}
		if json.Unmarshal([]byte(c.Payload), &p) == nil && p.Provider == provider {
			out = append(out, c.ContractID)
		}
	}
	return out, nil
}
