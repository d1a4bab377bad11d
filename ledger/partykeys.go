package ledger

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// An external party's key and how long its prepared transactions live,
// as the core keeps them for ledger/external's interactive submission.

// PreparedTTL is how long a prepared transaction may be executed.
func (l *Ledger) PreparedTTL() time.Duration { return l.preparedTTL() }

// ExternalPartyKey is an external party's registered Ed25519 key. A party
// the ledger does not know is ErrNotFound; a local one a ValidationError.
// The Ledger API asks it on every submission, so the answer for a known
// party is remembered: a party's row is only ever inserted, never changed
// or deleted (a restore, which replaces the table, clears the memory).
func (l *Ledger) ExternalPartyKey(ctx context.Context, party coin.PartyID) (ed25519.PublicKey, error) {
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
