package holdingsview

import (
	"fmt"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// TestValuationsBounds: the cache keeps at most its entries and bytes,
// the least recently used out first; an entry alone larger than its share
// is not kept; an older version never replaces a newer one.
func TestValuationsBounds(t *testing.T) {
	holdings := func(n int) []store.Holding {
		hs := make([]store.Holding, n)
		for i := range hs {
			hs[i] = store.Holding{ContractID: coin.ContractID(fmt.Sprintf("%0138d", i)), Amount: coin.MustParse("1"), Rate: coin.MustParse("0.001")}
		}
		return hs
	}
	party := func(i int) coin.PartyID { return coin.PartyID(fmt.Sprintf("p%d::1220", i)) }
	kept := func(c *valuations) (n int) {
		for i := range 10 {
			if c.byParty[party(i)] != nil {
				n++
			}
		}
		return n
	}

	c := newValuations(3, 1<<30)
	for i := range 5 {
		c.put(&valued{read: time.Now(), party: party(i), version: 1, hs: holdings(2)})
		if i == 2 && c.get(party(0), 1) == nil { // party 0 used: party 1 goes first
			t.Fatal("party 0 missing")
		}
	}
	if kept(c) != 3 || c.get(party(0), 1) == nil || c.get(party(1), 1) != nil || c.get(party(4), 1) == nil {
		t.Fatalf("kept %d entries; want 3, the most recently used (0, 3, 4)", kept(c))
	}
	if c.get(party(4), 2) != nil {
		t.Fatal("an entry served for another version")
	}

	one := holdingsBytes(holdings(10))
	c = newValuations(100, maxEntryShare*one)
	for i := range maxEntryShare + 2 {
		c.put(&valued{read: time.Now(), party: party(i), version: 1, hs: holdings(10)})
	}
	if kept(c) != maxEntryShare || c.bytes > maxEntryShare*one {
		t.Fatalf("kept %d entries of %d bytes in all; want %d within %d", kept(c), c.bytes, maxEntryShare, maxEntryShare*one)
	}
	c.put(&valued{read: time.Now(), party: party(20), version: 1, hs: holdings(1000)})
	if c.get(party(20), 1) != nil {
		t.Fatal("an entry larger than its share of the bytes was kept")
	}

	c.put(&valued{read: time.Now(), party: party(30), version: 7, hs: holdings(1)})
	c.put(&valued{read: time.Now(), party: party(30), version: 6, hs: holdings(1)})
	if c.get(party(30), 7) == nil {
		t.Fatal("an older version replaced a newer one")
	}
}

// TestValuationsAge: an entry older than maxAge is not served, though its
// version matches (an older release's replica changes holdings without
// raising the version).
func TestValuationsAge(t *testing.T) {
	c := newValuations(10, 1<<30)
	p := coin.PartyID("p::1220")
	c.put(&valued{read: time.Now().Add(-maxAge / 2), party: p, version: 1})
	if c.get(p, 1) == nil {
		t.Fatal("a fresh entry was not served")
	}
	c.put(&valued{read: time.Now().Add(-maxAge - time.Second), party: p, version: 1})
	if c.get(p, 1) != nil {
		t.Fatalf("an entry older than %s was served", maxAge)
	}
}
