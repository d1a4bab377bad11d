// Package ttlcache is a bounded map whose entries are trusted for a short
// time (a TTL) after the read that found them, and that a writer of the
// same process can invalidate without racing with a read in flight: a
// read that started before a Forget is never cached after it. The core
// keeps onboarded users and their rights in it (every authenticated
// request asks for both, and they change rarely); what a change on
// another replica means for a TTL is said where each cache is made.
package ttlcache

import (
	"sync"
	"time"
)

// Cache maps keys to values read at a time. Safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	ttl     time.Duration // <= 0: disabled
	size    int
	gen     uint64 // bumped by every Forget and Clear; see Put
	entries map[K]entry[V]
}

type entry[V any] struct {
	v    V
	read time.Time // the clock before the read that found v
}

// New makes a cache of at most size entries, each trusted for ttl; a ttl
// of zero or less disables it.
func New[K comparable, V any](ttl time.Duration, size int) *Cache[K, V] {
	return &Cache[K, V]{ttl: ttl, size: max(size, 1), entries: make(map[K]entry[V])}
}

// Get returns k's value while it is younger than the TTL at now. An entry
// from the future (the clock went back) does not count.
func (c *Cache[K, V]) Get(k K, now time.Time) (V, bool) {
	var zero V
	if c.ttl <= 0 {
		return zero, false
	}
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if !ok || !c.fresh(e, now) {
		return zero, false
	}
	return e.v, true
}

func (c *Cache[K, V]) fresh(e entry[V], now time.Time) bool {
	return !now.Before(e.read) && now.Sub(e.read) < c.ttl
}

// Generation is to be read before the read whose result goes to Put.
func (c *Cache[K, V]) Generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// Put caches v, read at read, unless a Forget or Clear happened since gen
// was taken: the read may then predate the change that Forget announced,
// and caching it would undo the Forget. Past the size bound, expired
// entries go first, then arbitrary ones.
func (c *Cache[K, V]) Put(k K, v V, read time.Time, gen uint64) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.size {
		for key, e := range c.entries {
			if !c.fresh(e, read) {
				delete(c.entries, key)
			}
		}
		for key := range c.entries { // map order is arbitrary
			if len(c.entries) < c.size-c.size/10 {
				break
			}
			delete(c.entries, key)
		}
	}
	c.entries[k] = entry[V]{v: v, read: read}
}

// Forget drops k, after this process changed what it was read from.
func (c *Cache[K, V]) Forget(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.entries, k)
}

// Clear forgets every entry (after a restore replaced the tables).
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.entries = make(map[K]entry[V])
}

// Len is how many entries are held, fresh or not.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
