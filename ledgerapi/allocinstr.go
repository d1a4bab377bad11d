package ledgerapi

import (
	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// allocationInstructionNotFound answers AllocationInstruction_Withdraw
// and _Update (which the wallet SDK's token-standard controller builds):
// the coin's AllocationFactory_Allocate allocates at once
// (AllocationInstructionResult_Completed), so no AllocationInstruction is
// ever pending here and every contract id names none, as Canton answers
// for a contract that is not an active one of the interface.
func allocationInstructionNotFound(cid coin.ContractID) error {
	return canton.Err(canton.CodeContractNotFound, "%s %s not found, not active, or not visible: allocations here are made at once, so no allocation instruction is pending",
		apiread.InterfaceAllocationInstruction, cid)
}
