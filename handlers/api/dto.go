package api

import (
	"encoding/json"

	"github.com/ccwallet/ccwallet/ledger"
)

// Wire types of the public specs (../shared/specs); field names and
// required fields follow them exactly.

// ContractDTO is common-external.yaml Contract.
type ContractDTO struct {
	TemplateID       string          `json:"template_id"`
	ContractID       string          `json:"contract_id"`
	Payload          json.RawMessage `json:"payload"`
	CreatedEventBlob string          `json:"created_event_blob"`
	CreatedAt        string          `json:"created_at"`
}

// ContractWithStateDTO is common-internal.yaml ContractWithState.
type ContractWithStateDTO struct {
	Contract ContractDTO `json:"contract"`
	DomainID string      `json:"domain_id,omitempty"`
}

func contractDTO(c ledger.Contract) ContractDTO {
	return ContractDTO{
		TemplateID: c.TemplateID, ContractID: string(c.ContractID), Payload: c.Payload,
		CreatedEventBlob: c.CreatedEventBlob, CreatedAt: ledger.FormatTime(c.CreatedAt),
	}
}

func contractWithState(c ledger.Contract) ContractWithStateDTO {
	return ContractWithStateDTO{Contract: contractDTO(c), DomainID: c.SynchronizerID}
}

// validator-internal.yaml

type getValidatorUserInfoResponse struct {
	PartyID  string `json:"party_id"`
	UserName string `json:"user_name"`
	Featured bool   `json:"featured"`
}

type registrationResponse struct {
	PartyID string `json:"party_id"`
}

type onboardUserRequest struct {
	Name    string `json:"name"`
	PartyID string `json:"party_id,omitempty"`
}

type onboardUserResponse struct {
	PartyID string `json:"party_id"`
}

type listUsersResponse struct {
	Usernames []string `json:"usernames"`
}

// wallet-internal.yaml

type userStatusResponse struct {
	PartyID             string `json:"party_id"`
	UserOnboarded       bool   `json:"user_onboarded"`
	UserWalletInstalled bool   `json:"user_wallet_installed"`
	HasFeaturedAppRight bool   `json:"has_featured_app_right"`
}

type amuletPosition struct {
	Contract          ContractWithStateDTO `json:"contract"`
	Round             int64                `json:"round"`
	AccruedHoldingFee string               `json:"accrued_holding_fee"`
	EffectiveAmount   string               `json:"effective_amount"`
}

type listResponse struct {
	Amulets       []amuletPosition `json:"amulets"`
	LockedAmulets []amuletPosition `json:"locked_amulets"`
}

type tapRequest struct {
	Amount    *string `json:"amount"`
	CommandID string  `json:"command_id,omitempty"`
}

type tapResponse struct {
	ContractID string `json:"contract_id"`
}

type getBalanceResponse struct {
	Round                int64  `json:"round"`
	EffectiveUnlockedQty string `json:"effective_unlocked_qty"`
	EffectiveLockedQty   string `json:"effective_locked_qty"`
	TotalHoldingFees     string `json:"total_holding_fees"`
}
