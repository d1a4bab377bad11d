package holdingsview

import (
	"container/list"
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// The home page and the holdings page value all of a party's holdings on
// every visit: for a party with a thousand, reading and valuing them was
// about 40% of the home page (BenchmarkHomePage, bench/NOTES.md). They
// change only when a commit creates or archives one of them, and every
// such commit raises the party's holding version in its own transaction
// (store/holdingversions.go). So the service keeps each party's holding
// rows by the version it read before them, and their valuation at the
// last round asked for: a visit reads the round and the version in one
// statement, and reads and values the holdings again only when the
// version moved (or values them again when the round did). The version
// lives in the database, so every replica sees every other's commits.
//
// Sound because the version is read before the holdings, and a version
// never comes back: rows read after version n are at least as new as n,
// and a visit that reads n again comes after every commit those rows
// show, so none has changed them since.

// Cache bounds. A party's entry is about 500 bytes a holding, so the
// bytes bound is what limits parties with thousands of holdings; a party
// whose entry alone would take more than maxEntryShare of it is not kept.
const (
	defaultMaxEntries = 1024
	defaultMaxBytes   = 64 << 20
	maxEntryShare     = 8
)

// maxAge bounds how long an entry is trusted without a read, whatever its
// version says: a replica of a release before holding versions (a
// rolling upgrade's old pods) changes holdings without raising them, and
// its changes then show within maxAge instead of at the party's next
// raise. A Home revisited sooner, as live updates do, still hits.
const maxAge = 30 * time.Second

// valuations is the bounded cache of parties' valued holdings, least
// recently used out first.
type valuations struct {
	mu         sync.Mutex
	byParty    map[coin.PartyID]*list.Element
	lru        list.List // of *valued, most recently used first
	bytes      int
	maxEntries int
	maxBytes   int
}

// valued is one party's holdings at one version and their latest
// valuation.
type valued struct {
	party   coin.PartyID
	version int64
	read    time.Time // when hs was read, by this process's clock
	hs      []store.Holding
	bytes   int
	// v is hs valued at the last round asked for; valuations are read
	// only once made, so visits share them.
	v atomic.Pointer[valuation]
}

func newValuations(maxEntries, maxBytes int) *valuations {
	return &valuations{byParty: make(map[coin.PartyID]*list.Element), maxEntries: maxEntries, maxBytes: maxBytes}
}

// get is party's entry at version, nil when there is none.
func (c *valuations) get(party coin.PartyID, version int64) *valued {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byParty[party]
	if !ok || el.Value.(*valued).version != version || time.Since(el.Value.(*valued).read) >= maxAge {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*valued)
}

// put keeps e, unless the party's entry is newer already or e is too
// large, evicting the least recently used beyond the bounds.
func (c *valuations) put(e *valued) {
	e.bytes = holdingsBytes(e.hs)
	if e.bytes > c.maxBytes/maxEntryShare {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byParty[e.party]; ok {
		old := el.Value.(*valued)
		if old.version > e.version {
			return
		}
		c.remove(el)
	}
	c.byParty[e.party] = c.lru.PushFront(e)
	c.bytes += e.bytes
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

func (c *valuations) remove(el *list.Element) {
	e := c.lru.Remove(el).(*valued)
	delete(c.byParty, e.party)
	c.bytes -= e.bytes
}

// holdingSize is a store.Holding's own size; amountBytes what each of its
// two amounts holds beside it; perHoldingValuation a valuation's slices'
// share of one holding (its order, fees, effective amounts and rates).
var holdingSize = int(reflect.TypeFor[store.Holding]().Size())

const (
	amountBytes         = 48
	perHoldingValuation = 4 * 8
)

// holdingsBytes estimates what an entry of hs keeps in memory.
func holdingsBytes(hs []store.Holding) int {
	n := 256 + cap(hs)*holdingSize + len(hs)*perHoldingValuation
	for _, h := range hs {
		n += len(h.ContractID) + len(h.LockHolder) + len(h.LockContext) + 2*amountBytes
	}
	return n
}

// valued is party's holdings valued at the usable round: from the cache
// when the party's holding version has not moved since they were read,
// else read (and kept).
func (s *Service) valued(ctx context.Context, party coin.PartyID) (*valuation, error) {
	l := s.l
	latest, version, err := store.RoundAndHoldingVersion(ctx, l.DB(), party)
	if err != nil {
		return nil, err
	}
	r, err := l.UsableFrom(ctx, l.DB(), latest)
	if err != nil {
		return nil, err
	}
	if e := s.cache.get(party, version); e != nil {
		if v := e.v.Load(); v != nil && v.round == r.Number && v.balance.Price.Equal(r.Price) {
			return v, nil
		}
		v := valueHoldings(e.hs, *r)
		e.v.Store(v)
		return v, nil
	}
	read := time.Now()
	hs, err := store.HoldingValuesByOwner(ctx, l.DB(), party)
	if err != nil {
		return nil, err
	}
	v := valueHoldings(hs, *r)
	e := &valued{party: party, version: version, read: read, hs: hs}
	e.v.Store(v)
	s.cache.put(e)
	return v, nil
}
