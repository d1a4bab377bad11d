// Package blobcache owns the ledger's cache of created-event blobs of
// long-lived contracts, made and verified (the ledger signs and checks
// them: contracts.go's blob and VerifyBlob). It imports nothing of the
// ledger.
package blobcache

import (
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// Cache remembers the created-event blobs of long-lived contracts,
// made and verified. A contract's blob is a function of its row, which
// never changes but for its synchronizer (a reassignment), and of the
// ledger's key; and every token-standard transfer sends the same five
// contracts' blobs (AmuletRules, the factory, the open round, the
// receiver's preapproval and its provider's featured-app right) out, as
// the registry's disclosed contracts, and back, in the submission, each
// signed or checked in full each time: 7% of the wallet's CPU per
// transfer (bench/NOTES.md).
type Cache struct {
	mu       sync.Mutex
	made     map[coin.ContractID]madeBlob
	verified map[string]Verified
}

type madeBlob struct {
	synchronizerID string
	createdAt      time.Time
	blob           string
}

// Verified is what a verified blob describes.
type Verified struct {
	ID       coin.ContractID
	Template string
}

// entries bounds each map; a full map starts over.
const entries = 256

// MadeFor is the blob made for contract id at synchronizer sync, created
// at at, if it was kept.
func (b *Cache) MadeFor(id coin.ContractID, sync string, at time.Time) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m, ok := b.made[id]
	return m.blob, ok && m.synchronizerID == sync && m.createdAt.Equal(at)
}

// KeepMade keeps the blob made for contract id at synchronizer sync,
// created at at.
func (b *Cache) KeepMade(id coin.ContractID, sync string, at time.Time, blob string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.made == nil || len(b.made) >= entries {
		b.made = make(map[coin.ContractID]madeBlob)
	}
	b.made[id] = madeBlob{synchronizerID: sync, createdAt: at, blob: blob}
}

// VerifiedOf is what blob describes, if it was verified and kept.
func (b *Cache) VerifiedOf(blob string) (Verified, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.verified[blob]
	return v, ok
}

// KeepVerified keeps what a verified blob describes.
func (b *Cache) KeepVerified(blob string, v Verified) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.verified == nil || len(b.verified) >= entries {
		b.verified = make(map[string]Verified)
	}
	b.verified[blob] = v
}

// Clear forgets every blob: the ledger's key may have changed (a restore
// of another network's snapshot).
func (b *Cache) Clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.made, b.verified = nil, nil
}
