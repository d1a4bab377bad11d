package ledger

// SetMaxSnapshots lowers MaxSnapshots for l, so a test reaches it quickly.
func SetMaxSnapshots(l *Ledger, n int) { l.maxSnapshots = n }
