package ledger

import (
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// blobCache remembers the created-event blobs of long-lived contracts,
// made and verified. A contract's blob is a function of its row, which
// never changes but for its synchronizer (a reassignment), and of the
// ledger's key; and every token-standard transfer sends the same five
// contracts' blobs (AmuletRules, the factory, the open round, the
// receiver's preapproval and its provider's featured-app right) out, as
// the registry's disclosed contracts, and back, in the submission, each
// signed or checked in full each time: 7% of the wallet's CPU per
// transfer (bench/NOTES.md).
type blobCache struct {
	mu       sync.Mutex
	made     map[coin.ContractID]madeBlob
	verified map[string]verifiedBlob
}

type madeBlob struct {
	synchronizerID string
	createdAt      time.Time
	blob           string
}

type verifiedBlob struct {
	id       coin.ContractID
	template string
}

// blobCacheEntries bounds each map; a full map starts over.
const blobCacheEntries = 256

// keepsBlob reports whether blobs of template are kept: not holdings,
// which are many and spent soon.
func keepsBlob(template string) bool {
	return template != TemplateAmulet && template != TemplateLockedAmulet
}

func (b *blobCache) madeFor(id coin.ContractID, sync string, at time.Time) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m, ok := b.made[id]
	return m.blob, ok && m.synchronizerID == sync && m.createdAt.Equal(at)
}

func (b *blobCache) keepMade(id coin.ContractID, sync string, at time.Time, blob string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.made == nil || len(b.made) >= blobCacheEntries {
		b.made = make(map[coin.ContractID]madeBlob)
	}
	b.made[id] = madeBlob{synchronizerID: sync, createdAt: at, blob: blob}
}

func (b *blobCache) verifiedOf(blob string) (verifiedBlob, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.verified[blob]
	return v, ok
}

func (b *blobCache) keepVerified(blob string, v verifiedBlob) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.verified == nil || len(b.verified) >= blobCacheEntries {
		b.verified = make(map[string]verifiedBlob)
	}
	b.verified[blob] = v
}

// clear forgets every blob: the ledger's key may have changed (a restore
// of another network's snapshot).
func (b *blobCache) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.made, b.verified = nil, nil
}
