package devnet

// SetMaxSnapshots lowers MaxSnapshots for s, so a test reaches it quickly.
func SetMaxSnapshots(s *Service, n int) { s.maxSnapshots = n }
