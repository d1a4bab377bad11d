package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// MaxInputHoldings bounds the holdings one transfer may name as inputs.
const MaxInputHoldings = 100

// checkInputHoldings refuses a transfer's named inputs (the token
// standard's inputHoldingCids) when one is another party's live holding,
// as the token standard's factory fetches each as the sender's holding
// and fails otherwise. The ledger still picks the holdings it spends, so
// a named holding already spent (a client's stale list, a replay) is
// left alone, as before, and a replay still answers DUPLICATE_COMMAND.
func (l *Ledger) checkInputHoldings(ctx context.Context, sender coin.PartyID, ids []coin.ContractID) error {
	if len(ids) > MaxInputHoldings {
		return fault.Invalid("inputHoldingCids", "at most %d holdings, not %d", MaxInputHoldings, len(ids))
	}
	owners, err := store.LiveHoldingOwners(ctx, l.db, ids)
	if err != nil {
		return err
	}
	for i, id := range ids {
		field := fmt.Sprintf("inputHoldingCids[%d]", i)
		if owner, ok := owners[id]; ok && owner != sender {
			return fault.Invalid(field, "%s is another party's holding, not the sender's", id)
		}
	}
	return nil
}

// CheckInputHoldings is checkInputHoldings for the token standard's
// other factories that take inputHoldingCids (AllocationFactory_Allocate):
// one rule for every transfer that names its inputs.
func (l *Ledger) CheckInputHoldings(ctx context.Context, sender coin.PartyID, ids []coin.ContractID) error {
	return l.checkInputHoldings(ctx, sender, ids)
}
