package ledger

import (
	"sync"
	"time"
)

// DefaultUserCacheTTL is how long Users().Get and PartyOf trust what they read of
// an onboarded user (Config.UserCacheTTL).
//
// Every authenticated request asks who its caller is, and the answer
// changes only on onboarding and offboarding. This process forgets a user
// the moment it onboards or offboards them, so here an offboarding takes
// effect at once. Another replica on the same database may still let an
// offboarded user act for up to the TTL after the offboarding committed.
// Unknown and offboarded users are never cached: a user onboarded on one
// replica can act through every replica at once.
const DefaultUserCacheTTL = time.Second

// userCacheSize bounds the cached users. Past it, expired entries go first,
// then arbitrary ones.
const userCacheSize = 10_000

// userCache remembers onboarded users for a short time. Safe for concurrent
// use.
type userCache struct {
	mu      sync.Mutex
	ttl     time.Duration // <= 0: disabled
	gen     uint64        // bumped by every forget; see put
	entries map[string]cachedUser
}

type cachedUser struct {
	info UserInfo
	read time.Time // ledger clock before the read that found info
}

func newUserCache(ttl time.Duration) *userCache {
	return &userCache{ttl: ttl, entries: make(map[string]cachedUser)}
}

// get returns name's entry while it is younger than the TTL at now. An
// entry from the future (the clock went back) does not count.
func (c *userCache) get(name string, now time.Time) (UserInfo, bool) {
	if c.ttl <= 0 {
		return UserInfo{}, false
	}
	c.mu.Lock()
	e, ok := c.entries[name]
	c.mu.Unlock()
	if !ok || !c.fresh(e, now) {
		return UserInfo{}, false
	}
	return e.info, true
}

func (c *userCache) fresh(e cachedUser, now time.Time) bool {
	return !now.Before(e.read) && now.Sub(e.read) < c.ttl
}

// generation is to be read before the database read whose result goes to
// put.
func (c *userCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put caches info, read at read, unless a forget happened since gen was
// taken: the read may then predate the change that forget announced, and
// caching it would undo the forget.
func (c *userCache) put(name string, info UserInfo, read time.Time, gen uint64) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if _, ok := c.entries[name]; !ok && len(c.entries) >= userCacheSize {
		for k, e := range c.entries {
			if !c.fresh(e, read) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries { // map order is arbitrary
			if len(c.entries) < userCacheSize-userCacheSize/10 {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[name] = cachedUser{info: info, read: read}
}

// forget drops name, after this process changed its row in users.
func (c *userCache) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.entries, name)
}

// clear forgets every user, after a restore replaced the users table.
func (c *userCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.entries = make(map[string]cachedUser)
}
