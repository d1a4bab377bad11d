package apiread

import (
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/provider"
)

// The ledger effects of an update as the Ledger API shows them, from
// what the update log records: the consuming choice that archived each
// contract (ConsumedBy) and its Daml result (ExerciseResult), the root
// exercise derived for updates no Ledger API command made
// (DerivedExercise, DeriveResult), and who witnesses an exercise
// (Informees). The core keeps the exercises it records itself
// (commands.Exercise).

// The Ledger API's ledger-effects shape shows an archive as the consuming
// exercise that made it. The ledger records per update its kind and the
// contracts it created and archived, not the exercise tree, so the choice
// is derived from the update's kind: the contract the update's choice
// acted on shows as that choice, every other archived contract (the
// holdings a transfer spent, the locked holding an accepted instruction
// released, ...) as Archive, the consuming exercise by which Splice's
// choices archive what they consume. Non-consuming exercises (the
// transfer factory's TransferFactory_Transfer, AmuletRules_Transfer) are
// not shown: they archive nothing, and the ledger keeps no record of them.

// consumingChoice is the choice an update of some kind exercises on a
// contract of template, and the interface it belongs to ("" for the
// template's own).
type consumingChoice struct {
	template, choice, iface string
}

// consumingChoices are the update kinds whose choice consumes a contract.
var consumingChoices = map[string]consumingChoice{
	"accept-transfer-instruction":          {ledger.TemplateTransferInstruction, "TransferInstruction_Accept", InterfaceTransferInstruction},
	"reject-transfer-instruction":          {ledger.TemplateTransferInstruction, "TransferInstruction_Reject", InterfaceTransferInstruction},
	"withdraw-transfer-instruction":        {ledger.TemplateTransferInstruction, "TransferInstruction_Withdraw", InterfaceTransferInstruction},
	"execute-allocation":                   {allocationdata.TemplateAmuletAllocation, "Allocation_ExecuteTransfer", allocationdata.InterfaceAllocation},
	"withdraw-allocation":                  {allocationdata.TemplateAmuletAllocation, "Allocation_Withdraw", allocationdata.InterfaceAllocation},
	"cancel-allocation":                    {allocationdata.TemplateAmuletAllocation, "Allocation_Cancel", allocationdata.InterfaceAllocation},
	"accept-transfer-offer":                {ledger.TemplateTransferOffer, "TransferOffer_Accept", ""},
	"reject-transfer-offer":                {ledger.TemplateTransferOffer, "TransferOffer_Reject", ""},
	"withdraw-transfer-offer":              {ledger.TemplateTransferOffer, "TransferOffer_Withdraw", ""},
	"expire-transfer-offer":                {ledger.TemplateTransferOffer, "TransferOffer_Expire", ""},
	"accept-trade-proposal":                {allocationdata.TemplateOTCTradeProposal, "OTCTradeProposal_Accept", ""},
	"reject-trade-proposal":                {allocationdata.TemplateOTCTradeProposal, "OTCTradeProposal_Reject", ""},
	"initiate-trade-settlement":            {allocationdata.TemplateOTCTradeProposal, "OTCTradeProposal_InitiateSettlement", ""},
	"otctrade_settle":                      {allocationdata.TemplateOTCTrade, "OTCTrade_Settle", ""},
	"otctrade_cancel":                      {allocationdata.TemplateOTCTrade, "OTCTrade_Cancel", ""},
	"reject-allocation-request":            {allocationdata.TemplateOTCTrade, "AllocationRequest_Reject", allocationdata.InterfaceAllocationRequest},
	"withdraw-allocation-request":          {allocationdata.TemplateOTCTrade, "AllocationRequest_Withdraw", allocationdata.InterfaceAllocationRequest},
	"renew-transfer-preapproval":           {ledger.TemplateTransferPreapproval, "TransferPreapproval_Renew", ""},
	"cancel-transfer-preapproval":          {ledger.TemplateTransferPreapproval, "TransferPreapproval_Cancel", ""},
	"accept-transfer-preapproval-proposal": {provider.TemplateTransferPreapprovalProposal, "TransferPreapprovalProposal_Accept", ""},
	"merge-delegation-accept":              {delegations.TemplateMergeDelegationProposal, "MergeDelegationProposal_Accept", ""},
}

// ConsumedBy is the choice whose consuming exercise archived a contract
// of template in an update of kind, and its interface ("" for the
// template's own choice): the update's choice for the contract it acted
// on, Archive for the others.
func ConsumedBy(kind, template string) (choice, iface string) {
	if c, ok := consumingChoices[kind]; ok && c.template == template {
		return c.choice, c.iface
	}
	return "Archive", ""
}
