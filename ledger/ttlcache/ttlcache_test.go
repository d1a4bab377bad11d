package ttlcache

import (
	"fmt"
	"testing"
	"time"
)

// TestRaceAndBound: a read that started before a Forget is not cached
// after it (it may predate the change Forget announced), nor one before a
// Clear; an entry is served until its TTL and not from the future; the
// cache never holds more than its bound; a zero TTL disables it.
func TestRaceAndBound(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	const size = 100
	c := New[string, string](time.Second, size)

	gen := c.Generation() // a request starts reading alice
	c.Forget("alice")     // meanwhile alice is offboarded
	c.Put("alice", "v1", now, gen)
	if got, ok := c.Get("alice", now); ok {
		t.Fatalf("a read older than the forget was cached: %q", got)
	}
	gen = c.Generation()
	c.Clear()
	c.Put("alice", "v1", now, gen)
	if _, ok := c.Get("alice", now); ok {
		t.Fatal("a read older than a clear was cached")
	}
	c.Put("alice", "v2", now, c.Generation())
	if got, ok := c.Get("alice", now.Add(999*time.Millisecond)); !ok || got != "v2" {
		t.Fatalf("a read after the forget: %q, %v", got, ok)
	}
	if _, ok := c.Get("alice", now.Add(time.Second)); ok {
		t.Error("served at the TTL")
	}
	if _, ok := c.Get("alice", now.Add(-time.Millisecond)); ok {
		t.Error("served before it was read (the clock went back)")
	}

	for i := range 3 * size {
		at := now.Add(time.Duration(i) * time.Millisecond)
		c.Put(fmt.Sprint("user-", i), "v", at, c.Generation())
		if n := c.Len(); n > size {
			t.Fatalf("%d entries cached, bound %d", n, size)
		}
	}

	off := New[string, string](0, size)
	off.Put("alice", "v", now, off.Generation())
	if _, ok := off.Get("alice", now); ok {
		t.Error("a disabled cache served alice")
	}
}
