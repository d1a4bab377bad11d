package store

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// ContractKey is a place in the Ledger API's order of the active contract
// set: by created offset, then contract id. Reading after a key pages the
// set without skipping or repeating a contract.
type ContractKey struct {
	Offset     int64
	ContractID coin.ContractID
}

// FirstContractKey is before every contract.
var FirstContractKey = ContractKey{Offset: -1}

// afterKey is the condition "after key" on a table's columns (prefix ""
// or "s.").
func afterKey(prefix string) string {
	return "(" + prefix + "created_offset > ? OR (" + prefix + "created_offset = ? AND " + prefix + "contract_id > ?))"
}

// ActiveContractsAfter is ActiveContractsAt (q.Upto, q.Limit) for the
// contracts after key.
func ActiveContractsAfter(ctx context.Context, db bun.IDB, q ContractQuery, key ContractKey) ([]Contract, error) {
	var cs []Contract
	sel := activeContractsQuery(db, q).Where(afterKey(""), key.Offset, key.Offset, key.ContractID)
	if err := sel.Scan(ctx, &cs); err != nil {
		return nil, fmt.Errorf("active contracts: %w", Normalize(err))
	}
	return cs, nil
}

// UnlockedHoldingsAfter is UnlockedHoldingsAt for the holdings after key.
func UnlockedHoldingsAfter(ctx context.Context, db bun.IDB, owners []coin.PartyID, upto int64, key ContractKey, limit int) ([]HoldingRow, error) {
	k := []any{key.Offset, key.Offset, key.ContractID}
	q := unlockedHoldings(db, holdingsLiveAt+" AND "+afterKey(""), holdingsSpentAt+" AND "+afterKey("s."),
		append([]any{upto}, k...), append([]any{upto, upto}, k...), owners, "ORDER BY created_offset, contract_id LIMIT "+strconv.Itoa(limit))
	return scanHoldingRows(ctx, q)
}
