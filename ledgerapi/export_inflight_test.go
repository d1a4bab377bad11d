package ledgerapi

import (
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// HoldInFlight registers user's command commandID acting as actAs as
// running under submissionID, as execute does while a submission runs,
// until the returned function releases it. A run of it still holding
// the claim (an executed command releases it after its completion is
// stored) is waited for, up to 5 s.
func (s *Server) HoldInFlight(user string, actAs []coin.PartyID, commandID, submissionID string) (release func()) {
	key := changeID(user, actAs, commandID)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, ok := s.inflight.claim(key, s.userKey(user), submissionID); ok {
			break
		}
		if time.Now().After(deadline) {
			panic("HoldInFlight: " + commandID + " runs already")
		}
	}
	return func() { s.inflight.release(key) }
}

// AfterStreamWake has fn run in the stream hub's goroutine after each
// wake of the sockets by a commit (nil: nothing).
func (s *Server) AfterStreamWake(fn func()) { s.streams.AfterWake(fn) }

// StreamReads counts the WebSocket streams' reads of the ledger so far.
func (s *Server) StreamReads() int64 { return s.streams.Reads() }

// HoldRuns keeps every submission's command from running until the
// returned function releases them.
func (s *Server) HoldRuns() (release func()) {
	held := make(chan struct{})
	fn := func() { <-held }
	s.beforeRun.Store(&fn)
	return func() { s.beforeRun.Store(nil); close(held) }
}
