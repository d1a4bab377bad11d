package registry

import "github.com/ccwallet/ccwallet/coin"

// RememberFactory makes s remember id as the factory's, as if read.
func RememberFactory(s *Service, id coin.ContractID) { s.factory.Store(id) }
