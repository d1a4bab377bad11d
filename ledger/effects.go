package ledger

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
	"accept-transfer-instruction":          {TemplateTransferInstruction, "TransferInstruction_Accept", InterfaceTransferInstruction},
	"reject-transfer-instruction":          {TemplateTransferInstruction, "TransferInstruction_Reject", InterfaceTransferInstruction},
	"withdraw-transfer-instruction":        {TemplateTransferInstruction, "TransferInstruction_Withdraw", InterfaceTransferInstruction},
	"execute-allocation":                   {TemplateAmuletAllocation, "Allocation_ExecuteTransfer", InterfaceAllocation},
	"withdraw-allocation":                  {TemplateAmuletAllocation, "Allocation_Withdraw", InterfaceAllocation},
	"cancel-allocation":                    {TemplateAmuletAllocation, "Allocation_Cancel", InterfaceAllocation},
	"accept-transfer-offer":                {TemplateTransferOffer, "TransferOffer_Accept", ""},
	"reject-transfer-offer":                {TemplateTransferOffer, "TransferOffer_Reject", ""},
	"withdraw-transfer-offer":              {TemplateTransferOffer, "TransferOffer_Withdraw", ""},
	"expire-transfer-offer":                {TemplateTransferOffer, "TransferOffer_Expire", ""},
	"accept-trade-proposal":                {TemplateOTCTradeProposal, "OTCTradeProposal_Accept", ""},
	"reject-trade-proposal":                {TemplateOTCTradeProposal, "OTCTradeProposal_Reject", ""},
	"initiate-trade-settlement":            {TemplateOTCTradeProposal, "OTCTradeProposal_InitiateSettlement", ""},
	"otctrade_settle":                      {TemplateOTCTrade, "OTCTrade_Settle", ""},
	"otctrade_cancel":                      {TemplateOTCTrade, "OTCTrade_Cancel", ""},
	"reject-allocation-request":            {TemplateOTCTrade, "AllocationRequest_Reject", InterfaceAllocationRequest},
	"withdraw-allocation-request":          {TemplateOTCTrade, "AllocationRequest_Withdraw", InterfaceAllocationRequest},
	"renew-transfer-preapproval":           {TemplateTransferPreapproval, "TransferPreapproval_Renew", ""},
	"cancel-transfer-preapproval":          {TemplateTransferPreapproval, "TransferPreapproval_Cancel", ""},
	"accept-transfer-preapproval-proposal": {TemplateTransferPreapprovalProposal, "TransferPreapprovalProposal_Accept", ""},
	"merge-delegation-accept":              {TemplateMergeDelegationProposal, "MergeDelegationProposal_Accept", ""},
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
