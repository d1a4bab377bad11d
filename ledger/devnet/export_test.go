package devnet

import "github.com/ccwallet/ccwallet/coin"

// SetMaxSnapshots lowers MaxSnapshots for s, so a test reaches it quickly.
func SetMaxSnapshots(s *Service, n int) { s.maxSnapshots = n }

// SetAdvanceHook has f called between the pieces of s's time jumps with
// the round reached (nil: no hook).
func SetAdvanceHook(s *Service, f func(coin.Round)) { s.advanceHook = f }
