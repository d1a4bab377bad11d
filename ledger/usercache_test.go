package ledger

import (
	"fmt"
	"testing"
	"time"
)

// TestUserCacheRaceAndBound: a read that started before a forget is not
// cached after it (it may predate the offboarding that forget announced),
// and the cache never holds more than userCacheSize users.
func TestUserCacheRaceAndBound(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	c := newUserCache(time.Second)
	alice := UserInfo{Name: "alice", Party: "alice::1220", Onboarded: true}

	gen := c.generation() // a request starts reading alice
	c.forget("alice")     // meanwhile alice is offboarded
	c.put("alice", alice, now, gen)
	if got, ok := c.get("alice", now); ok {
		t.Fatalf("a read older than the forget was cached: %+v", got)
	}
	c.put("alice", alice, now, c.generation())
	if _, ok := c.get("alice", now); !ok {
		t.Fatal("a read after the forget was not cached")
	}
	if _, ok := c.get("alice", now.Add(time.Second)); ok {
		t.Error("served at the TTL")
	}
	if _, ok := c.get("alice", now.Add(-time.Millisecond)); ok {
		t.Error("served before it was read (the clock went back)")
	}

	for i := range 3 * userCacheSize {
		at := now.Add(time.Duration(i) * time.Millisecond)
		c.put(fmt.Sprint("user-", i), alice, at, c.generation())
		if n := len(c.entries); n > userCacheSize {
			t.Fatalf("%d users cached, bound %d", n, userCacheSize)
		}
	}

	off := newUserCache(-1)
	off.put("alice", alice, now, off.generation())
	if _, ok := off.get("alice", now); ok {
		t.Error("a disabled cache served alice")
	}
}
