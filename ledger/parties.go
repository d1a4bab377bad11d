package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// ParticipantID is this node's participant id.
func (l *Ledger) ParticipantID() string { return "participant::" + l.namespace }

// AllocateParty creates a local party with hint (a fresh one when empty)
// in this node's namespace; a hint in use is a conflict.
func (l *Ledger) AllocateParty(ctx context.Context, hint string) (coin.PartyID, error) {
	if hint == "" {
		hint = "party-" + uuidHex()[:12]
	}
	if err := coin.ValidateHint(hint); err != nil {
		return "", invalid("partyIdHint", "%v", err)
	}
	p, err := coin.NewPartyID(hint, l.namespace)
	if err != nil {
		return "", invalid("partyIdHint", "%v", err)
	}
	err = store.InsertParty(ctx, l.db, &store.Party{PartyID: p, Hint: hint, Kind: "local", CreatedAt: l.now()})
	if errors.Is(err, store.ErrAlreadyExists) {
		return "", fmt.Errorf("%w: party %s already exists", ErrConflict, p)
	}
	return p, err
}
