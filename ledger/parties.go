package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// ParticipantID is this node's participant id.
func (l *Ledger) ParticipantID() string { return "participant::" + l.namespace }

// KnownParty reports whether party exists on this ledger. Parties are
// never deleted, so a party seen once is remembered and costs no query.
func (l *Ledger) KnownParty(ctx context.Context, party coin.PartyID) error {
	if _, ok := l.knownParties.Load(party); ok {
		return nil
	}
	if _, err := store.PartyByID(ctx, l.db, party); err != nil {
		return fmt.Errorf("party %s: %w", party, err)
	}
	l.knownParties.Store(party, struct{}{})
	return nil
}
