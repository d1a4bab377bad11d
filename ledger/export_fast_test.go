package ledger

// SendsFast is how many one-step sends of l committed in one round trip
// on cached reads (sendfast.go).
func SendsFast(l *Ledger) int64 {
	l.sends.cache.mu.Lock()
	defer l.sends.cache.mu.Unlock()
	return l.sends.cache.fast
}
