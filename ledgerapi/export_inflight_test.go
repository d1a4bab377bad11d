package ledgerapi

import "github.com/ccwallet/ccwallet/coin"

// HoldInFlight registers user's command commandID acting as actAs as
// running under submissionID, as execute does while a submission runs,
// until the returned function releases it.
func (s *Server) HoldInFlight(user string, actAs []coin.PartyID, commandID, submissionID string) (release func()) {
	key := changeID(user, actAs, commandID)
	if _, ok := s.inflight.claim(key, submissionID); !ok {
		panic("HoldInFlight: " + commandID + " runs already")
	}
	return func() { s.inflight.release(key) }
}

// AfterStreamWake has fn run in the stream hub's goroutine after each
// wake of the sockets by a commit (nil: nothing).
func (s *Server) AfterStreamWake(fn func()) { s.streams.AfterWake(fn) }

// StreamReads counts the WebSocket streams' reads of the ledger so far.
func (s *Server) StreamReads() int64 { return s.streams.Reads() }
