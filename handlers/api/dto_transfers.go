package api

import "github.com/ccwallet/ccwallet/ledger"

// Wire types of the transfer endpoints (wallet-external.yaml,
// wallet-internal.yaml, validator-internal.yaml). Required request fields
// are pointers so a missing one is told apart from an empty one.

type createTransferOfferRequest struct {
	ReceiverPartyID *string `json:"receiver_party_id"`
	Amount          *string `json:"amount"`
	Description     *string `json:"description"`
	ExpiresAt       *int64  `json:"expires_at"`
	TrackingID      *string `json:"tracking_id"`
}

type createTransferOfferResponse struct {
	OfferContractID string `json:"offer_contract_id"`
}

type listTransferOffersResponse struct {
	Offers []ContractDTO `json:"offers"`
}

type listAcceptedTransferOffersResponse struct {
	AcceptedOffers []ContractDTO `json:"accepted_offers"`
}

// transferOfferStatusResponse is GetTransferOfferStatusResponse: which
// fields appear depends on status.
type transferOfferStatusResponse struct {
	Status          string `json:"status"`
	TransactionID   string `json:"transaction_id,omitempty"`
	ContractID      string `json:"contract_id,omitempty"`
	FailureKind     string `json:"failure_kind,omitempty"`
	WithdrawnReason string `json:"withdrawn_reason,omitempty"`
}

// offerActionRequest is the body of the mission's short forms
// (POST /v0/wallet/transfer-offers/accept and friends).
type offerActionRequest struct {
	ContractID string `json:"contract_id"`
}

type acceptTransferOfferResponse struct {
	AcceptedOfferContractID string `json:"accepted_offer_contract_id"`
}

type createTransferPreapprovalResponse struct {
	TransferPreapprovalContractID string `json:"transfer_preapproval_contract_id"`
}

type transferPreapprovalSendRequest struct {
	ReceiverPartyID *string `json:"receiver_party_id"`
	Amount          *string `json:"amount"`
	DeduplicationID *string `json:"deduplication_id"`
	Description     string  `json:"description,omitempty"`
}

type lookupTransferPreapprovalByPartyResponse struct {
	TransferPreapproval ContractWithStateDTO `json:"transfer_preapproval"`
}

type listTransferPreapprovalsResponse struct {
	Contracts []ContractWithStateDTO `json:"contracts"`
}

type listTransactionsRequest struct {
	BeginAfterID *string `json:"begin_after_id"`
	PageSize     *int64  `json:"page_size"`
}

type listTransactionsResponse struct {
	Items []map[string]any `json:"items"`
}

type walletFeatureSupportResponse struct {
	TokenStandard                  bool `json:"token_standard"`
	TransferPreapprovalDescription bool `json:"transfer_preapproval_description"`
}

func contractDTOs(cs []ledger.Contract) []ContractDTO {
	out := make([]ContractDTO, 0, len(cs))
	for _, c := range cs {
		out = append(out, contractDTO(c))
	}
	return out
}
