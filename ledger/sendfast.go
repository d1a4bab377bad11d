package ledger

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/impersonation"
	"github.com/ccwallet/ccwallet/store"
)

// A batch of one-step sends reads before it writes: two round trips, the
// read about a third of a send's time at 8 clients (bench/NOTES.md). A
// sender's next send reads what its last one left, so the ledger keeps
// what its batches read and wrote (sendCache) and runs a batch whose
// senders, receivers and round it knows in one round trip instead
// (store.FastSender): the claim, the write and COMMIT together, on the
// cached reads. Nothing unchecked is trusted: the write's spend guard fails
// it when a cached holding was spent or locked meanwhile, and the claim
// and the write check the round, the preapprovals and the featured rights
// it assumed, inside the transaction. A batch the database refuses that way
// wrote nothing; it forgets its senders and receivers and runs again the
// way that reads (runSends), as does a batch with a send the cache does not
// know or whose rule fails on the cached reads.

// sendCacheTTL bounds how long an entry is used; sendCacheMax how many
// senders (and receivers) are kept, all dropped when full. Staleness costs
// only a refused batch and its second run, never a wrong write.
const (
	sendCacheTTL = 30 * time.Second
	sendCacheMax = 4096
)

// sendCache is what one-step sends read and wrote, by sender and receiver.
type sendCache struct {
	mu        sync.Mutex
	round     *store.Round
	senders   map[coin.PartyID]cachedHoldings
	receivers map[coin.PartyID]cachedPreapproval
	// fast counts the sends committed in one round trip, for tests.
	fast int64
}

// cachedHoldings are a sender's live holdings, locked ones included, as
// its last send left them.
type cachedHoldings struct {
	hs []store.Holding
	at time.Time
}

// cachedPreapproval is a receiver's live preapproval and whether its
// provider was featured.
type cachedPreapproval struct {
	p        store.TransferPreapproval
	featured bool
	at       time.Time
}

// reads are calls' reads from the cache and the round, or ok false when
// the cache lacks any of them.
func (c *sendCache) reads(calls []*sendCall, now time.Time) (r *store.Round, reads []store.PreapprovalSendReads, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.round == nil || c.round.OpensAt.After(now) {
		return nil, nil, false
	}
	fresh := time.Now().Add(-sendCacheTTL)
	reads = make([]store.PreapprovalSendReads, len(calls))
	for i, call := range calls {
		h, ok := c.senders[call.s.Sender]
		if !ok || h.at.Before(fresh) {
			return nil, nil, false
		}
		p, ok := c.receivers[call.s.Receiver]
		if !ok || p.at.Before(fresh) {
			return nil, nil, false
		}
		pa := p.p
		reads[i] = store.PreapprovalSendReads{Preapproval: &pa, Featured: p.featured, Holdings: slices.Clone(h.hs)}
	}
	r2 := *c.round
	return &r2, reads, true
}

// learn keeps what a committed batch read (reads, under its claims, at
// round r) and wrote (ts[i], nil for a send that failed; claimed[i] false
// for a send whose claim another transaction held, whose reads are not
// under a lock).
func (c *sendCache) learn(calls []*sendCall, claimed []bool, reads []store.PreapprovalSendReads, r *store.Round, ts []*changes) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.senders == nil || len(c.senders) >= sendCacheMax {
		c.senders = make(map[coin.PartyID]cachedHoldings)
	}
	if c.receivers == nil || len(c.receivers) >= sendCacheMax {
		c.receivers = make(map[coin.PartyID]cachedPreapproval)
	}
	rc := *r
	c.round = &rc
	for i, call := range calls {
		if !claimed[i] {
			continue
		}
		if p := reads[i].Preapproval; p != nil {
			c.receivers[call.s.Receiver] = cachedPreapproval{p: *p, featured: reads[i].Featured, at: now}
		} else {
			delete(c.receivers, call.s.Receiver)
		}
		hs := reads[i].Holdings
		if t := ts[i]; t != nil {
			next := make([]store.Holding, 0, len(hs)+len(t.holdings))
			for _, h := range hs {
				if !slices.Contains(t.inputs, h.ContractID) {
					next = append(next, h)
				}
			}
			for _, h := range t.holdings {
				if h.Owner == call.s.Sender {
					h.CreatedOffset = t.offset
					next = append(next, h)
				}
			}
			hs = next // the cache's own already
		} else {
			hs = slices.Clone(hs)
		}
		c.senders[call.s.Sender] = cachedHoldings{hs: hs, at: now}
	}
}

// forget drops calls' senders and receivers, whose cached reads a
// refused batch showed stale.
func (c *sendCache) forget(calls []*sendCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, call := range calls {
		delete(c.senders, call.s.Sender)
		delete(c.receivers, call.s.Receiver)
	}
}

// sendFast runs calls in one round trip on the cached reads, when the
// Writer can and the cache knows every call and every rule succeeds on
// it; ok false leaves the batch to runSends' reading path, nothing
// written.
func (q *sender) sendFast(ctx context.Context, l *Ledger, calls []*sendCall) (results []sendResult, ok bool) {
	fs, can := l.w.(store.FastSender)
	if !can || q.fault.Load() != nil {
		// The fault hooks of tests are the reading path's.
		return nil, false
	}
	c := &q.cache
	now := l.Now()
	r, reads, ok := c.reads(calls, now)
	if !ok {
		return nil, false
	}
	f := store.FastSend{Round: int64(r.Number), Now: now, FeaturedTemplate: TemplateFeaturedAppRight,
		Preapprovals: make([]coin.ContractID, 0, len(calls)), Expires: make([]time.Time, 0, len(calls)),
		Providers: make([]coin.PartyID, 0, len(calls)), Featured: make([]bool, 0, len(calls))}
	claims := make([]store.Claim, len(calls))
	results = make([]sendResult, len(calls))
	ts := make([]*changes, len(calls))
	for i, call := range calls {
		claims[i] = store.Claim{Key: "cmd:" + call.cmd.Key, Locks: partyLockKeys([]coin.PartyID{call.s.Sender})}
		t := l.newChanges("transfer-preapproval-send", r)
		t.offset = -int64(i + 1) // a placeholder: the claim draws it (pgbatch.fastOffsetSQL)
		t.actedBy = impersonation.ActorOf(call.ctx)
		res, err := t.sendPreapprovedCommand(call, &reads[i])
		if err != nil || len(t.forget) > 0 {
			// Refused on cached reads, or a key to reuse: the reading
			// path decides, on fresh ones.
			return nil, false
		}
		p := reads[i].Preapproval
		f.Preapprovals, f.Expires = append(f.Preapprovals, p.ContractID), append(f.Expires, p.ExpiresAt)
		f.Providers, f.Featured = append(f.Providers, p.Provider), append(f.Featured, reads[i].Featured)
		results[i].res, results[i].update = res, t.update
		ts[i] = &t
	}
	w := &fastWriter{fs: fs, claims: claims, f: f}
	t0 := time.Now()
	if err := commitVia(ctx, w, ts); err != nil {
		c.forget(calls)
		if !w.sent || errors.Is(err, store.ErrFastMiss) {
			return nil, false
		}
		// Perhaps committed (the connection failed after COMMIT went):
		// as a reading batch's Write, the callers hear of it.
		for i := range results {
			results[i] = sendResult{err: err}
		}
		return results, true
	}
	span(l.cfg.Observer, spanSendWrite, t0)
	claimed := make([]bool, len(calls))
	for i, t := range ts {
		t.offset, results[i].offset, claimed[i] = w.offsets[i], w.offsets[i], true
	}
	c.learn(calls, claimed, reads, r, ts)
	c.mu.Lock()
	c.fast += int64(len(calls))
	c.mu.Unlock()
	return results, true
}

// fastWriter is batchWriter on a fast batch: its write is the batch's
// one round trip.
type fastWriter struct {
	fs      store.FastSender
	claims  []store.Claim
	f       store.FastSend
	sent    bool
	offsets []int64
}

func (w *fastWriter) archive(_ context.Context, ids []coin.ContractID, _ int64) error {
	if len(ids) == 0 {
		return nil
	}
	return errors.New("a fast batch of sends archives only the holdings it spends")
}

func (w *fastWriter) write(ctx context.Context, ws *store.Writes) error {
	w.sent = true
	offsets, err := w.fs.SendFast(ctx, w.claims, w.f, ws)
	w.offsets = offsets
	return err
}
