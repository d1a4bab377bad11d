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

// completionMarks are, per Ledger API user (its stored key), the highest
// offset of a completion this process committed: a user's completions
// stream that has read past its mark, and has seen no other replica move
// the ledger, has nothing new to read when another user's command
// commits (CompletionMark).
type completionMarks struct {
	mu sync.Mutex
	m  map[string]int64
}

// note raises user's mark to offset; called after the commit, before
// the commit's waiters wake.
func (c *completionMarks) note(user string, offset int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]int64{}
	}
	c.m[user] = max(c.m[user], offset)
}

// CompletionMark is the highest offset of a completion of user (its
// stored key) that this process committed, 0 if none: a completions
// stream whose position is at or past it has nothing of user's own to
// read that this process wrote. Commits of other replicas do not move it.
func (l *Ledger) CompletionMark(user string) int64 {
	c := &l.completionMarks
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[user]
}
