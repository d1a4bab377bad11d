package api

import "encoding/json"

// validator-internal.yaml: external parties.

type generateExternalPartyTopologyRequest struct {
	PartyHint string `json:"party_hint"`
	PublicKey string `json:"public_key"`
}

type topologyTxDTO struct {
	TopologyTx string `json:"topology_tx"`
	Hash       string `json:"hash"`
}

type generateExternalPartyTopologyResponse struct {
	PartyID     string          `json:"party_id"`
	TopologyTxs []topologyTxDTO `json:"topology_txs"`
}

type signedTopologyTxDTO struct {
	TopologyTx string `json:"topology_tx"`
	SignedHash string `json:"signed_hash"`
}

type submitExternalPartyTopologyRequest struct {
	PublicKey         string                `json:"public_key"`
	SignedTopologyTxs []signedTopologyTxDTO `json:"signed_topology_txs"`
}

type submitExternalPartyTopologyResponse struct {
	PartyID string `json:"party_id"`
}

// externalPartySubmissionDTO is ExternalPartySubmission.
type externalPartySubmissionDTO struct {
	PartyID      string `json:"party_id"`
	Transaction  string `json:"transaction"`
	SignedTxHash string `json:"signed_tx_hash"`
	PublicKey    string `json:"public_key"`
}

type externalPartyBalanceResponse struct {
	PartyID                        string `json:"party_id"`
	TotalUnlockedCoin              string `json:"total_unlocked_coin"`
	TotalLockedCoin                string `json:"total_locked_coin"`
	TotalCoinHoldings              string `json:"total_coin_holdings"`
	AccumulatedHoldingFeesUnlocked string `json:"accumulated_holding_fees_unlocked"`
	AccumulatedHoldingFeesLocked   string `json:"accumulated_holding_fees_locked"`
	AccumulatedHoldingFeesTotal    string `json:"accumulated_holding_fees_total"`
	TotalAvailableCoin             string `json:"total_available_coin"`
	ComputedAsOfRound              int64  `json:"computed_as_of_round"`
}

// The setup-proposal and transfer-preapproval shapes.

type createExternalPartySetupProposalRequest struct {
	UserPartyID string `json:"user_party_id"`
}

type createExternalPartySetupProposalResponse struct {
	ContractID string `json:"contract_id"`
}

type listExternalPartySetupProposalsResponse struct {
	Contracts []ContractWithStateDTO `json:"contracts"`
}

type prepareAcceptExternalPartySetupProposalRequest struct {
	ContractID     string `json:"contract_id"`
	UserPartyID    string `json:"user_party_id"`
	VerboseHashing bool   `json:"verbose_hashing"`
}

type prepareAcceptExternalPartySetupProposalResponse struct {
	Transaction    string `json:"transaction"`
	TxHash         string `json:"tx_hash"`
	HashingDetails string `json:"hashing_details,omitempty"`
}

type submitAcceptExternalPartySetupProposalRequest struct {
	Submission *externalPartySubmissionDTO `json:"submission"`
}

type submitAcceptExternalPartySetupProposalResponse struct {
	TransferPreapprovalContractID string `json:"transfer_preapproval_contract_id"`
	UpdateID                      string `json:"update_id"`
}

type prepareTransferPreapprovalSendRequest struct {
	SenderPartyID   string `json:"sender_party_id"`
	ReceiverPartyID string `json:"receiver_party_id"`
	// Amount is a JSON number in the spec: its text is parsed exactly by
	// coin.ParseAmount, never through a float.
	Amount         json.RawMessage `json:"amount"`
	ExpiresAt      string          `json:"expires_at"`
	Nonce          *int64          `json:"nonce"`
	VerboseHashing bool            `json:"verbose_hashing"`
	Description    string          `json:"description"`
}

type prepareTransferPreapprovalSendResponse struct {
	Transaction                     string `json:"transaction"`
	TxHash                          string `json:"tx_hash"`
	TransferCommandContractIDPrefix string `json:"transfer_command_contract_id_prefix"`
	HashingDetails                  string `json:"hashing_details,omitempty"`
}

type submitTransferPreapprovalSendRequest struct {
	Submission *externalPartySubmissionDTO `json:"submission"`
}

type submitTransferPreapprovalSendResponse struct {
	UpdateID string `json:"update_id"`
}

// Our own prepare/submit endpoints (not in the public specs): a plain
// transfer and a minting delegation proposal by an external party, both
// signed off-node, and one submit for every prepared kind.

type prepareExternalTransferRequest struct {
	SenderPartyID   string  `json:"sender_party_id"`
	ReceiverPartyID string  `json:"receiver_party_id"`
	Amount          *string `json:"amount"`
	Description     string  `json:"description"`
}

type prepareMintingDelegationProposalRequest struct {
	BeneficiaryPartyID string `json:"beneficiary_party_id"`
	ExpiresAt          string `json:"expires_at"`
	MergeLimit         *int   `json:"merge_limit"`
}

type prepareExternalResponse struct {
	Transaction string `json:"transaction"`
	TxHash      string `json:"tx_hash"`
	ExpiresAt   string `json:"expires_at"`
}

type submitExternalRequest struct {
	Submission *externalPartySubmissionDTO `json:"submission"`
}

type submitExternalResponse struct {
	Kind       string `json:"kind"`
	UpdateID   string `json:"update_id"`
	ContractID string `json:"contract_id,omitempty"`
}

// Minting delegations (wallet API, newer upstream).

type mintingDelegationDTO struct {
	Contract    ContractDTO `json:"contract"`
	Beneficiary string      `json:"beneficiary"`
	Delegate    string      `json:"delegate"`
	ExpiresAt   string      `json:"expires_at"`
	MergeLimit  int         `json:"merge_limit"`
}

type listMintingDelegationProposalsResponse struct {
	Proposals []mintingDelegationDTO `json:"proposals"`
}

type listMintingDelegationsResponse struct {
	Delegations []mintingDelegationDTO `json:"delegations"`
}

type acceptMintingDelegationProposalResponse struct {
	ContractID string `json:"contract_id"`
}

// lookupTransferCommandCounterResponse is scan.yaml
// LookupTransferCommandCounterByPartyResponse.
type lookupTransferCommandCounterResponse struct {
	TransferCommandCounter ContractWithStateDTO `json:"transfer_command_counter"`
	// NextNonce is ours (the counter's payload has it as a string too): the
	// nonce the party's next prepare-send must carry. The scan proxy leaves
	// it out, as the spec does.
	NextNonce *int64 `json:"next_nonce,omitempty"`
}

// devnetTapRequest taps for any party (ours, development networks only).
type devnetTapRequest struct {
	PartyID   string  `json:"party_id"`
	Amount    *string `json:"amount"`
	CommandID string  `json:"command_id,omitempty"`
}

type devnetTapResponse struct {
	ContractID string `json:"contract_id"`
	Amount     string `json:"amount"`
}
