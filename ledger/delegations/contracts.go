package delegations

import "github.com/ccwallet/ccwallet/coin"

// The delegations' contracts: their templates, which the Ledger API's
// reads know, the merge delegation's states and payloads, which
// onboarding's proposal (ledger/users) writes too.

// Minting delegation templates (Splice.Wallet.MintingDelegation).
const (
	TemplateMintingDelegationProposal = "#splice-wallet:Splice.Wallet.MintingDelegation:MintingDelegationProposal"
	TemplateMintingDelegation         = "#splice-wallet:Splice.Wallet.MintingDelegation:MintingDelegation"
)

// Merge delegation templates, as in the newer upstream package
// splice-util-token-standard-wallet.
const (
	TemplateMergeDelegation         = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:MergeDelegation"
	TemplateMergeDelegationProposal = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:MergeDelegationProposal"
)

// TemplateBatchMergeUtility is the operator's contract through which it
// merges for many owners in one transaction.
const TemplateBatchMergeUtility = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:BatchMergeUtility"

// Merge delegation states.
const (
	MergeProposed  = "proposed"
	MergeActive    = "active"
	MergeAccepted  = "accepted" // a proposal that became a delegation
	MergeWithdrawn = "withdrawn"
)

type mergeDelegationPayload struct {
	Operator coin.PartyID `json:"operator"`
	Owner    coin.PartyID `json:"owner"`
	Meta     metaValues   `json:"meta"`
}

type metaValues struct {
	Values map[string]string `json:"values"`
}

type mergeProposalPayload struct {
	Delegation mergeDelegationPayload `json:"delegation"`
}

// MergeDelegationPayload is the payload of owner's MergeDelegation to
// operator.
func MergeDelegationPayload(operator, owner coin.PartyID) any {
	return mergeDelegationPayload{Operator: operator, Owner: owner, Meta: metaValues{Values: map[string]string{}}}
}

// MergeProposalPayload is the payload of owner's MergeDelegationProposal
// to operator.
func MergeProposalPayload(operator, owner coin.PartyID) any {
	return mergeProposalPayload{Delegation: mergeDelegationPayload{Operator: operator, Owner: owner, Meta: metaValues{Values: map[string]string{}}}}
}
