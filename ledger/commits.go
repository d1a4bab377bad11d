package ledger

import "sync"

// commitSignal tells waiters that this process committed a ledger
// change: Committed hands out a channel that the next commit closes. It
// costs a commit one mutex and, only when someone waits, one close. The
// zero value is ready.
type commitSignal struct {
	mu sync.Mutex
	ch chan struct{}
}

// Committed returns a channel closed by the next ledger change this
// process commits (its database transaction done). Live readers (the
// Ledger API's streams) wait on it instead of polling; a change made by
// another replica does not close it, so they poll too, seldom.
func (l *Ledger) Committed() <-chan struct{} {
	s := &l.commits
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// committed wakes the waiters of Committed.
func (l *Ledger) committed() {
	s := &l.commits
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}
