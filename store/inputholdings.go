package store

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// LiveHoldingOwners returns the owner of each of ids that is a live
// holding (locked or not); an id that is not one is absent.
func LiveHoldingOwners(ctx context.Context, db bun.IDB, ids []coin.ContractID) (map[coin.ContractID]coin.PartyID, error) {
	owners := map[coin.ContractID]coin.PartyID{}
	if len(ids) == 0 {
		return owners, nil
	}
	var hs []Holding
	if err := db.NewSelect().Model(&hs).Column("contract_id", "owner").Where("contract_id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, err
	}
	for _, h := range hs {
		owners[h.ContractID] = h.Owner
	}
	return owners, nil
}
