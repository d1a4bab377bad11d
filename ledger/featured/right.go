package featured

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// Right is provider's FeaturedAppRight contract; ErrNotFound when
// provider is not featured.
func (s *Service) Right(ctx context.Context, provider coin.PartyID) (ledger.Contract, error) {
	cid, err := s.l.FeaturedAppRightID(ctx, provider)
	if err != nil {
		return ledger.Contract{}, err
	}
	c, err := store.ContractByID(ctx, s.l.DB(), cid)
	if err != nil {
		return ledger.Contract{}, err
	}
	return s.l.ContractView(c), nil
}
