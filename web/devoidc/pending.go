package devoidc

import (
	"container/list"
	"sync"
	"time"
)

// pending tracks the provider's open auth requests in creation order, so
// the expired and the oldest past the cap are found without a scan.
type pending struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu    sync.Mutex
	order *list.List               // of pendingEntry, oldest first
	byID  map[string]*list.Element // into order
}

type pendingEntry struct {
	id      string
	created time.Time
}

func newPending(ttl time.Duration, max int, now func() time.Time) *pending {
	return &pending{ttl: ttl, max: max, now: now, order: list.New(), byID: map[string]*list.Element{}}
}

// add records a new request and returns the ones to drop to stay within
// the cap, oldest first.
func (p *pending) add(id string) (drop []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.order.Len() >= p.max {
		drop = append(drop, p.order.Remove(p.order.Front()).(pendingEntry).id)
		delete(p.byID, drop[len(drop)-1])
	}
	p.byID[id] = p.order.PushBack(pendingEntry{id: id, created: p.now()})
	return drop
}

// expired removes and returns the requests older than ttl.
func (p *pending) expired() (ids []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cutoff := p.now().Add(-p.ttl)
	for e := p.order.Front(); e != nil && !e.Value.(pendingEntry).created.After(cutoff); e = p.order.Front() {
		id := p.order.Remove(e).(pendingEntry).id
		delete(p.byID, id)
		ids = append(ids, id)
	}
	return ids
}

// remove forgets a finished request.
func (p *pending) remove(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.byID[id]; ok {
		p.order.Remove(e)
		delete(p.byID, id)
	}
}
