package pruning

import "time"

// SetWallClock replaces the wall clock s's Prune measures maxDuration
// with.
func SetWallClock(s *Service, now func() time.Time) { s.wall = now }
