package ledgerapi

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// Each validator of a network (serve --localnet runs two on one ledger)
// has its own users, as each of Canton's participants: the same user id
// on two validators names two users. So a command's completion and its
// deduplication key are stored under the user's key on this validator
// (ledger.UserKey: the name itself on the network's first validator),
// and completions are read under it and shown with the name the caller
// knows.

// userKey is the stored key of this validator's user name.
func (s *Server) userKey(name string) string { return users.Of(s.l).Key(name) }

// completionsOf are the completions of this validator's user name for
// parties after offset after, at most limit, each with name as its user,
// and the ledger end they were read up to.
// With known, the read may stop at the end this process knows
// (apiread's CompletionsPageKnown): for the completions stream, whose hub
// polls the end.
func (s *Server) completionsOf(ctx context.Context, name string, parties []coin.PartyID, after int64, limit int, known bool) ([]commands.Completion, int64, error) {
	page := s.w.APIRead.CompletionsPage
	if known {
		page = s.w.APIRead.CompletionsPageKnown
	}
	cs, end, err := page(ctx, s.userKey(name), parties, after, limit)
	for i := range cs {
		cs[i].UserID = name
	}
	return cs, end, err
}
