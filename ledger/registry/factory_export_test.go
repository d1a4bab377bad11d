package registry

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
)

// RememberFactory makes s remember id as the factory's, as if read.
func RememberFactory(s *Service, id coin.ContractID) { s.factory.Store(id) }

// Disclosed is what an answer discloses of ids.
func Disclosed(ctx context.Context, s *Service, ids ...coin.ContractID) ([]DisclosedContract, error) {
	return s.disclosed(ctx, ids...)
}
