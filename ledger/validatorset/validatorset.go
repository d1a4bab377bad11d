// Package validatorset keeps the validators of one network in this
// process, each a view of the network with its own participant namespace
// (the core's ledgers: the one opened first and those ledger/validators
// added), for the readers on every party check (the core's
// Validators.HostedElsewhere): the other validators' namespaces are read
// once whenever the set or a view's identity changes, so a reader builds
// nothing and takes no lock. Imports nothing of the ledger.
package validatorset

import (
	"slices"
	"sync"
	"sync/atomic"
)

// View is one validator's view of the network as the set reads it.
type View interface {
	comparable
	// Namespace is the view's participant namespace.
	Namespace() string
}

// Set is the validators of one network in this process. With one
// validator it stays empty and every local party is that validator's.
// The zero Set is empty and ready.
type Set[V View] struct {
	mu    sync.Mutex
	views []V
	// spaces is the views' namespaces, rebuilt (under mu) whenever a
	// view is added or its identity is read again (Refresh), so the
	// readers build nothing and take no lock.
	spaces atomic.Pointer[namespaces]
}

// namespaces is one immutable reading of a validator set's namespaces.
type namespaces struct {
	// others are, per validator namespace, those of the others.
	others map[string][]string
}

// Add adds the validators not there yet.
func (s *Set[V]) Add(vs ...V) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vs {
		if !slices.Contains(s.views, v) {
			s.views = append(s.views, v)
		}
	}
	s.rebuild()
}

// Refresh reads the views' namespaces again (one changed).
func (s *Set[V]) Refresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rebuild()
}

// rebuild stores a new reading of the views' namespaces; s.mu is held.
func (s *Set[V]) rebuild() {
	ns := &namespaces{others: map[string][]string{}}
	for _, v := range s.views {
		var out []string
		for _, w := range s.views {
			if w.Namespace() != v.Namespace() {
				out = append(out, w.Namespace())
			}
		}
		ns.others[v.Namespace()] = out
	}
	s.spaces.Store(ns)
}

// List returns the validators, the first opened first.
func (s *Set[V]) List() []V {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.views)
}

// Others are the participant namespaces of the set's validators other
// than the one of namespace, as last read: shared, the caller must not
// change it.
func (s *Set[V]) Others(namespace string) []string {
	ns := s.spaces.Load()
	if ns == nil {
		return nil
	}
	return ns.others[namespace]
}
