package ledger

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// PartyKindExternal marks a party whose signing key lives off the node
// (ledger/external creates them; the core checks their keys).
const PartyKindExternal = "external"

// externalParty loads an external party and its key; a party that is not
// external is a validation error, an unknown one ErrNotFound.
func (l *Ledger) externalParty(ctx context.Context, db bun.IDB, party coin.PartyID) (ed25519.PublicKey, error) {
	p, err := store.PartyByID(ctx, db, party)
	if err != nil {
		return nil, fmt.Errorf("party %s: %w", party, err)
	}
	return externalKey(p)
}

// externalKey is party row p's key; a party that is not external is a
// validation error.
func externalKey(p *store.Party) (ed25519.PublicKey, error) {
	if p.Kind != PartyKindExternal || p.PublicKey == "" {
		return nil, invalid("party_id", "%s is not an external party", p.PartyID)
	}
	return ParsePublicKey("public_key", p.PublicKey)
}

// participantID is this node's participant, which hosts external parties
// with confirmation rights.
func (l *Ledger) participantID() string { return "participant::" + l.namespace }
