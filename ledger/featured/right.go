package featured

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Right is provider's FeaturedAppRight contract; ErrNotFound when
// provider is not featured.
func (s *Service) Right(ctx context.Context, provider coin.PartyID) (ledger.Contract, error) {
	cid, err := RightID(ctx, s.l.DB(), provider)
	if err != nil {
		return ledger.Contract{}, err
	}
	c, err := store.ContractByID(ctx, s.l.DB(), cid)
	if err != nil {
		return ledger.Contract{}, err
	}
	return s.l.ContractView(c), nil
}

// RightID is provider's FeaturedAppRight contract id read in db (the
// registry's choice contexts name it); fault.ErrNotFound when provider
// is not featured.
func RightID(ctx context.Context, db bun.IDB, provider coin.PartyID) (coin.ContractID, error) {
	if provider == "" {
		return "", fault.ErrNotFound
	}
	ids, err := ledger.FeaturedRightsOf(ctx, db, provider)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("featured app right of %s: %w", provider, fault.ErrNotFound)
	}
	return ids[0], nil
}
