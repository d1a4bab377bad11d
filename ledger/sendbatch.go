package ledger

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/impersonation"
	"github.com/ccwallet/ccwallet/store"
)

// One-step sends are the hot path of a wallet; on Postgres concurrent ones
// are grouped (group commit): one database transaction claims, locks,
// reads and writes a batch of sends in two round trips, so the per-
// statement cost of Postgres is paid once per batch instead of once per
// send, and its claim and read have the same text for any batch. Each
// send keeps its own offset, update row, history and result; one that
// fails its own checks (duplicate, no preapproval, funds) fails alone,
// and a batch the database refuses is re-run one send at a time so no
// send fails for another's sake.
const (
	// maxSendBatch bounds a batch: a statement's size and the locks held.
	maxSendBatch = 32
	// sendWorkers batches may run at once: one claims and reads while the
	// other writes (measured: 1 worker leaves a core idle, 4 make batches
	// of one). The second starts as soon as a send waits (and gathers,
	// below): starting it only once 3 wait made larger batches and saved
	// a tenth of the CPU per send, but the wait behind the running batch
	// raised p50 and p99.
	sendWorkers = 2
	// sendBatchTimeout bounds a batch's database work; a batch runs for
	// several callers, so none of their contexts may cancel it.
	sendBatchTimeout = 30 * time.Second
)

// sendGather is how long a worker holds a batch that has fewer than
// sendGatherMin sends while the other worker's batch runs, for more to
// join (as Postgres's commit_delay with commit_siblings); with no
// batch running a send starts at once. At 1,000 sends/s a batch held
// 1.2 sends without it and its fixed cost was paid per send: holding
// 0.7 ms saved 15% of the CPU per send there and p99 fell from 12-26
// to 12-16 ms with p50 alike (scratch runs, bench/NOTES.md); with 32 clients
// the rate rose by a tenth. A ledger's sender.gather overrides it.
const sendGather = 700 * time.Microsecond

const sendGatherMin = 4

// sendGatherDetached replaces sendGather while every queued send is
// detached (Detached): no request's answer waits on their batch, and
// under load a batch's fixed cost in Postgres is most of a small one's
// (the wallet SDK's executed transfers, 1.46 to a batch at 700 µs: 5 ms
// made it 1.73, Postgres's CPU a transfer a tenth lower and the SDK row's
// ratio higher in 4 of 5 alternated pairs, bench/NOTES.md). A send that
// is not detached ends such a wait at once.
const sendGatherDetached = 5 * time.Millisecond

type detachedKey struct{}

// Detached marks ctx as a command's run that no request's answer waits
// for (the Ledger API's asynchronous submissions and executed commands,
// whose outcome goes to the completions): its send may wait longer to
// share a batch (sendGatherDetached).
func Detached(ctx context.Context) context.Context {
	return context.WithValue(ctx, detachedKey{}, true)
}

func isDetached(ctx context.Context) bool {
	d, _ := ctx.Value(detachedKey{}).(bool)
	return d
}

// sender is the core's send batching: it owns the sends waiting for a
// worker, the workers, and what the batches read and wrote (sendCache).
// The core, and so its sender, is shared by a process's validators: a
// worker runs every batch it takes with the Ledger whose send started it.
type sender struct {
	mu      sync.Mutex
	queue   []*sendCall
	workers int
	// busy holds the senders of the batches running now (none when no
	// batch runs). Their next sends
	// wait for a later batch: taken by the other worker, they would only
	// wait there for the sender's lock, and hold up that whole batch.
	busy map[coin.PartyID]bool
	// gathered, while a worker waits for sends to join its batch, is
	// closed once sendGatherMin wait, or a send that is not detached
	// comes while gatherLong (the wait is sendGatherDetached's).
	gathered   chan struct{}
	gatherLong bool
	// batched counts the sends that ran in batches of two or more, for
	// tests that must know the grouping happened.
	batched int64
	// gather and gatherDetached, in nanoseconds, replace sendGather and
	// sendGatherDetached when not zero; fault, when set, runs before a
	// batch's writes: it can fail the batch as the database would refuse
	// it, panic, or hold it running. Tests set them (export_test.go),
	// atomic as workers may be running.
	gather, gatherDetached atomic.Int64
	fault                  atomic.Pointer[func(sends int) error]
	// cache is what the batches read and wrote, for the next ones to
	// run in one round trip (sendfast.go).
	cache sendCache
}

// sendCall is one Preapprovals().Send call: its request and, for a batched
// call, the channel its answer comes on. The channel has room for the
// answer, so a worker never waits for a caller, even one that left.
type sendCall struct {
	ctx context.Context
	s   PreapprovalSend
	// cmd is the command the send records: its deduplication key and
	// the Ledger API completion written with it, if any.
	cmd    commands.Command
	done   chan sendResult
	queued time.Time
	// detached: no request's answer waits for it (Detached).
	detached bool
	// token is set for a token-standard transfer (transferDirectBatched):
	// its command record is create-transfer-instruction's, and with no
	// valid preapproval it fails with errNoPreapproval, for its caller to
	// make an instruction instead.
	token bool
}

// sendOne runs c: batched where the Writer groups, alone otherwise
// (SQLite's write transactions are exclusive: nothing to group).
func (q *sender) sendOne(l *Ledger, c *sendCall) sendResult {
	if l.w.Groups() {
		return q.sendBatched(l, c)
	}
	return q.runSends(c.ctx, l, []*sendCall{c})[0]
}

// sendBatched queues c and returns its answer, or c.ctx's error once
// c.ctx ends first. A send already taken by a worker may still complete
// after its caller left, as with any request whose answer is lost; its
// deduplication id makes the retry safe. Answers bypass the queue's lock,
// which is then held only to queue and take sends.
func (q *sender) sendBatched(l *Ledger, c *sendCall) sendResult {
	c.done = make(chan sendResult, 1)
	c.queued = time.Now()
	c.detached = isDetached(c.ctx)
	q.mu.Lock()
	q.queue = append(q.queue, c)
	if q.gathered != nil && (len(q.queue) >= sendGatherMin || q.gatherLong && !c.detached) {
		close(q.gathered)
		q.gathered = nil
	}
	start := q.workers < sendWorkers
	if start {
		q.workers++
	}
	q.mu.Unlock()
	if start {
		go q.sendWorker(l)
	}
	select {
	case r := <-c.done:
		return r
	case <-c.ctx.Done():
		select {
		case r := <-c.done: // answered meanwhile
			return r
		default:
			return sendResult{err: c.ctx.Err()}
		}
	}
}

// sendWorker runs batches until the queue is empty.
func (q *sender) sendWorker(l *Ledger) {
	for {
		q.gatherSends()
		batch := q.takeSends()
		if len(batch) == 0 {
			return
		}
		for _, c := range batch {
			span(l.cfg.Observer, spanSendWait, c.queued)
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(batch[0].ctx), sendBatchTimeout)
		t0 := time.Now()
		results := q.runSendsRecovered(ctx, l, batch)
		span(l.cfg.Observer, spanSendBatch, t0)
		cancel()
		q.finishSends(batch, results)
	}
}

// gatherSends waits, while another batch runs and fewer than
// sendGatherMin sends are queued, until the oldest has waited sendGather
// or that many are queued.
func (q *sender) gatherSends() {
	q.mu.Lock()
	if len(q.busy) == 0 || len(q.queue) == 0 || len(q.queue) >= sendGatherMin || q.gathered != nil {
		q.mu.Unlock()
		return
	}
	long := true
	for _, c := range q.queue {
		long = long && c.detached
	}
	gather := time.Duration(q.gather.Load())
	if gather == 0 {
		gather = sendGather
	}
	if long {
		gather = time.Duration(q.gatherDetached.Load())
		if gather == 0 {
			gather = sendGatherDetached
		}
	}
	wait := gather - time.Since(q.queue[0].queued)
	if wait <= 0 {
		q.mu.Unlock()
		return
	}
	gathered := make(chan struct{})
	q.gathered, q.gatherLong = gathered, long
	q.mu.Unlock()
	t := time.NewTimer(wait)
	select {
	case <-gathered:
	case <-t.C:
	}
	t.Stop()
	q.mu.Lock()
	if q.gathered == gathered {
		q.gathered = nil
	}
	q.mu.Unlock()
}

// finishSends frees the senders of a batch that ran for later batches
// and answers its callers.
func (q *sender) finishSends(batch []*sendCall, results []sendResult) {
	q.mu.Lock()
	if len(batch) > 1 {
		q.batched += int64(len(batch))
	}
	for _, c := range batch {
		delete(q.busy, c.s.Sender)
	}
	q.mu.Unlock()
	for i, c := range batch {
		c.done <- results[i]
	}
}

// runSendsRecovered is runSends for a worker: a panic (a bug) answers the
// batch's sends with an error instead of killing the process, as the HTTP
// server's recovery does for a request, and keeps the worker counted.
func (q *sender) runSendsRecovered(ctx context.Context, l *Ledger, batch []*sendCall) (results []sendResult) {
	defer func() {
		if r := recover(); r != nil {
			l.log.Error("batch of one-step sends panicked", "panic", r, "stack", string(debug.Stack()))
			results = make([]sendResult, len(batch))
			for i := range results {
				results[i].err = fmt.Errorf("internal error in a batch of sends: %v", r)
			}
		}
	}()
	return q.runSends(ctx, l, batch)
}

// takeSends takes the next batch: queued sends whose callers still wait,
// at most one per sender and none of a sender in the other worker's batch
// (a sender's next send spends the previous one's change, so it goes in a
// later batch), oldest first. With none left the worker retires; the
// worker whose batch holds a skipped sender takes it up when it is done.
func (q *sender) takeSends() []*sendCall {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.busy == nil {
		q.busy = make(map[coin.PartyID]bool)
	}
	var batch []*sendCall
	rest := q.queue[:0]
	for _, c := range q.queue {
		switch {
		case c.ctx.Err() != nil:
			// Its caller has left, or is leaving, with the context's error.
		case len(batch) < maxSendBatch && !q.busy[c.s.Sender]:
			q.busy[c.s.Sender] = true
			batch = append(batch, c)
		default:
			rest = append(rest, c)
		}
	}
	clear(q.queue[len(rest):])
	q.queue = rest
	if len(batch) == 0 {
		q.workers--
	}
	return batch
}

// runSends runs calls in one database transaction and returns each one's
// answer. When the transaction fails as a whole for a batch of several,
// each call runs again alone, so only the call at fault fails. On Postgres
// the transaction takes two round trips (store/pgbatch): BEGIN riding the
// claims and the read, COMMIT the writes.
func (q *sender) runSends(ctx context.Context, l *Ledger, calls []*sendCall) []sendResult {
	if results, ok := q.sendFast(ctx, l, calls); ok {
		if results[0].err == nil {
			l.markCompleted(calls, results)
			l.committed()
		}
		return results
	}
	var results []sendResult
	err := l.w.InSendTx(ctx, func(ctx context.Context, s store.SendTx) error {
		var err error
		results, err = q.sendMany(ctx, l, s, calls)
		return err
	})
	if err == nil {
		l.markCompleted(calls, results)
		l.committed()
		return results
	}
	results = make([]sendResult, len(calls))
	for i, c := range calls {
		if len(calls) > 1 {
			results[i] = q.runSends(ctx, l, []*sendCall{c})[0]
		} else {
			results[i].err = err
		}
	}
	return results
}

// sendWriter is batchWriter on a batch of sends' transaction, whose write
// ends it.
type sendWriter struct {
	s store.SendTx
	l *Ledger
}

func (w sendWriter) archive(_ context.Context, ids []coin.ContractID, _ int64) error {
	// A send archives only the holdings it spends, which ride the write;
	// anything else would need a statement of its own.
	if len(ids) == 0 {
		return nil
	}
	return fmt.Errorf("a batched send archives %d contracts besides its inputs", len(ids))
}

func (w sendWriter) write(ctx context.Context, ws *store.Writes) error {
	t0 := time.Now()
	err := w.s.Write(ctx, ws)
	if err == nil && w.l != nil {
		span(w.l.cfg.Observer, spanSendWrite, t0)
	}
	return err
}

// markCompleted notes the completions a committed batch wrote: those of
// its calls that succeeded.
func (l *Ledger) markCompleted(calls []*sendCall, results []sendResult) {
	for i, c := range calls {
		if cp := c.cmd.Completion; cp != nil && i < len(results) && results[i].err == nil {
			l.completionMarks.note(cp.UserID, results[i].offset)
		}
	}
}

// sendResult is one send's answer, with its update's offset and id.
type sendResult struct {
	res    *TransferResult
	err    error
	offset int64
	update string
}

// sendMany is the database transaction of a batch: one round trip claims
// the keys (a key in flight elsewhere answers fault.ErrInFlight at once), locks
// the senders, draws the offsets and reads every send's command record,
// preapproval, featured right and holdings; each send then runs its rule
// in memory, and the writes of those that succeeded ride one commit
// batch. A send's own error is its result; only a database error fails
// the batch.
func (q *sender) sendMany(ctx context.Context, l *Ledger, db store.SendTx, calls []*sendCall) ([]sendResult, error) {
	claims := make([]store.Claim, len(calls))
	keys := make([]store.PreapprovalSendKey, len(calls))
	for i, c := range calls {
		claims[i] = store.Claim{Key: "cmd:" + c.cmd.Key, Locks: partyLockKeys([]coin.PartyID{c.s.Sender})}
		keys[i] = store.PreapprovalSendKey{Key: c.cmd.Key, Sender: c.s.Sender, Receiver: c.s.Receiver}
	}
	t0 := time.Now()
	r, offsets, reads, err := db.Begin(ctx, claims, keys, TemplateFeaturedAppRight)
	if err != nil {
		return nil, err
	}
	span(l.cfg.Observer, spanSendRead, t0)
	// The open rounds are read only when the newest has not opened yet.
	if r, err = l.Rounds().usable(ctx, db.Reads(), r); err != nil {
		return nil, err
	}
	results := make([]sendResult, len(calls))
	var ts []*changes
	tsOf := make([]*changes, len(calls)) // for the cache: ts by call
	for i, c := range calls {
		if offsets[i] == 0 {
			// Its read is of rows another transaction may be changing
			// (no lock was taken for it), and goes unused.
			results[i].err = fmt.Errorf("%w: a command with the same id is being processed", fault.ErrInFlight)
			continue
		}
		t := l.newChanges("transfer-preapproval-send", r)
		t.offset = offsets[i]
		t.actedBy = impersonation.ActorOf(c.ctx)
		res, err := t.sendPreapprovedCommand(c, &reads[i])
		if err != nil {
			results[i].err = err
			continue
		}
		results[i].res, results[i].offset, results[i].update = res, t.offset, t.update
		ts = append(ts, &t)
		tsOf[i] = &t
	}
	if f := q.fault.Load(); f != nil {
		if err := (*f)(len(calls)); err != nil {
			return nil, err
		}
	}
	// Always written, even with nothing to write: the write ends the
	// transaction.
	if err := commitVia(ctx, sendWriter{db, l}, ts); err != nil {
		return nil, err
	}
	claimed := make([]bool, len(calls))
	for i := range calls {
		claimed[i] = offsets[i] != 0
	}
	q.cache.learn(calls, claimed, reads, r, tsOf)
	return results, nil
}
