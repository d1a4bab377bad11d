package validatorset_test

import (
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/validatorset"
)

type view struct{ ns string }

func (v *view) Namespace() string { return v.ns }

// TestOthers: each validator reads the others' namespaces, an empty set
// none, a view added twice counts once, and a changed identity is read
// again on Refresh.
func TestOthers(t *testing.T) {
	var s validatorset.Set[*view]
	if got := s.Others("a"); got != nil {
		t.Fatalf("empty set: %v", got)
	}
	a, b := &view{"a"}, &view{"b"}
	s.Add(a, b)
	s.Add(b)
	if got := s.List(); !slices.Equal(got, []*view{a, b}) {
		t.Fatalf("List = %v", got)
	}
	if got := s.Others("a"); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("Others(a) = %v", got)
	}
	b.ns = "c"
	if got := s.Others("a"); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("before Refresh: Others(a) = %v", got)
	}
	s.Refresh()
	if got := s.Others("a"); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("after Refresh: Others(a) = %v", got)
	}
	if got := s.Others("c"); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("Others(c) = %v", got)
	}
}
