package ledger

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// PartyKindExternal marks a party whose signing key lives off the node
// (ledger/external creates them; the core checks their keys).
const PartyKindExternal = "external"

// ExternalKeyOf is an external party's registered Ed25519 key (ledger/
// external's ExternalPartyKey). A party the ledger does not know is
// ErrNotFound; a local one a ValidationError. The Ledger API asks it on
// every submission, so the answer for a known party is remembered: a
// party's row is only ever inserted, never changed or deleted (a restore,
// which replaces the table, clears the memory).
func ExternalKeyOf(ctx context.Context, l *Ledger, party coin.PartyID) (ed25519.PublicKey, error) {
	if p, ok := l.partyRows.Load(party); ok {
		return externalKey(p.(*store.Party))
	}
	p, err := store.PartyByID(ctx, l.db, party)
	if err != nil {
		return nil, fmt.Errorf("party %s: %w", party, err)
	}
	l.partyRows.Store(party, p)
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
