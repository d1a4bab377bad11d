package ledgerapi

import (
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// parseInputHoldings reads a transfer's inputHoldingCids; the ledger
// checks that each is the sender's live holding.
func parseInputHoldings(ids []string) ([]coin.ContractID, error) {
	out := make([]coin.ContractID, 0, len(ids))
	for i, s := range ids {
		id, err := coin.ParseContractID(s)
		if err != nil {
			return nil, canton.InvalidArgument("%s", fmt.Sprintf("transfer.inputHoldingCids[%d]: %v", i, err))
		}
		out = append(out, id)
	}
	return out, nil
}
