package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/fault"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// sendPairs makes n senders with 100 coin each and n receivers with a
// transfer preapproval each.
func sendPairs(t *testing.T, l *ledger.Ledger, n int) (senders, receivers []coin.PartyID) {
	t.Helper()
	for range n {
		s, r := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, s, "100")
		if _, _, err := l.Preapprovals().Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		senders, receivers = append(senders, s), append(receivers, r)
	}
	return senders, receivers
}

// eachSenderAtOnce runs fn(i, s, k) for k < each, in order, for every
// sender s (the i-th) in a goroutine of its own, all started together,
// and returns the errors fn returned.
func eachSenderAtOnce(senders []coin.PartyID, each int, fn func(i int, s coin.PartyID, k int) error) []error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	start := make(chan struct{})
	for i, s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for k := range each {
				if err := fn(i, s, k); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// TestSendBatches starts many one-step sends at once, so that on Postgres
// they run in batches, and mixes in sends that must fail on their own
// (a replayed deduplication id, too little coin, no preapproval): every
// send gets its own answer, the good ones all land exactly once, and a
// failing one changes nothing for the others.
func TestSendBatches(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		const n, each = 12, 4
		senders, receivers := sendPairs(t, l, n)
		poor, nobody := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, poor, "1")

		type outcome struct {
			send ledger.PreapprovalSend
			err  error
		}
		var (
			mu       sync.Mutex
			outcomes []outcome
			wg       sync.WaitGroup
		)
		start := make(chan struct{})
		run := func(sends ...ledger.PreapprovalSend) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for _, s := range sends {
					_, err := l.Preapprovals().Send(ctx, s)
					mu.Lock()
					outcomes = append(outcomes, outcome{s, err})
					mu.Unlock()
				}
			}()
		}
		amount := coin.MustParse("2.5")
		for i, s := range senders {
			var sends []ledger.PreapprovalSend
			for k := range each {
				sends = append(sends, ledger.PreapprovalSend{Sender: s, Receiver: receivers[(i+k)%n], Amount: amount, DeduplicationID: fmt.Sprintf("s-%d-%d", i, k)})
			}
			run(sends...)
			if i < 4 { // the same id twice at once: one success
				dup := ledger.PreapprovalSend{Sender: s, Receiver: receivers[i], Amount: amount, DeduplicationID: "dup"}
				run(dup)
				run(dup)
			}
		}
		run(ledger.PreapprovalSend{Sender: poor, Receiver: receivers[0], Amount: coin.MustParse("50"), DeduplicationID: "poor"})
		run(ledger.PreapprovalSend{Sender: senders[5], Receiver: nobody, Amount: amount, DeduplicationID: "nobody"})
		close(start)
		wg.Wait()

		received := map[coin.PartyID]int{}
		sent := map[coin.PartyID]int{}
		dups := map[coin.PartyID]int{}
		for _, o := range outcomes {
			s := o.send
			switch {
			case s.DeduplicationID == "poor":
				if !errors.Is(o.err, fault.ErrInsufficientFunds) {
					t.Errorf("send beyond the balance = %v, want ErrInsufficientFunds", o.err)
				}
				continue
			case s.DeduplicationID == "nobody":
				if !fault.IsValidation(o.err) {
					t.Errorf("send without preapproval = %v, want a validation error", o.err)
				}
				continue
			case s.DeduplicationID == "dup" && o.err != nil:
				if !errors.Is(o.err, fault.ErrDuplicate) && !errors.Is(o.err, fault.ErrInFlight) {
					t.Errorf("second send of one id = %v, want ErrDuplicate or ErrInFlight", o.err)
				}
				continue
			case o.err != nil:
				t.Errorf("send %s: %v", s.DeduplicationID, o.err)
				continue
			case s.DeduplicationID == "dup":
				dups[s.Sender]++
			}
			received[s.Receiver]++
			sent[s.Sender]++
		}
		for i, s := range senders[:4] {
			if dups[s] != 1 {
				t.Errorf("sender %d: %d successes of one deduplication id, want 1", i, dups[s])
			}
		}
		for i, r := range receivers {
			want := amount.MulInt(int64(received[r])).String()
			if got := balance(t, l, r); got != want {
				t.Errorf("receiver %d balance = %s, want %s (%d sends)", i, got, want, received[r])
			}
		}
		for i, s := range senders {
			items, err := history.New(l).List(ctx, s, history.Query{PageSize: 100})
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			for _, it := range items {
				if it.Subtype == "TransferPreapprovalSend" {
					got++
				}
			}
			if got != sent[s] {
				t.Errorf("sender %d history has %d sends, want %d", i, got, sent[s])
			}
		}
		if got := balance(t, l, poor); got != "1.0000000000" {
			t.Errorf("balance after the refused send = %s, want 1", got)
		}
		if ledger.OnPostgres(l) && ledger.SendsBatched(l) == 0 {
			t.Errorf("no sends ran in a batch on Postgres; the test did not exercise batching")
		}
	})
}

// TestSendBatchRerunsOneByOne: when the database refuses a batch as a
// whole, its sends run again one at a time, so each still gets its own
// answer and lands exactly once.
func TestSendBatchRerunsOneByOne(t *testing.T) {
	l := ledgertest.New(t, store.Postgres)
	const n = 12
	senders, receivers := sendPairs(t, l, n)
	failed, restore := ledger.FailSendBatches(l)
	defer restore()
	errs := sendAtOnce(l, n, 3, func(i, k int) ledger.PreapprovalSend {
		return ledger.PreapprovalSend{Sender: senders[i], Receiver: receivers[i], Amount: coin.MustParse("2"), DeduplicationID: fmt.Sprintf("r-%d", k)}
	})
	restore()
	for i, err := range errs {
		if err != nil {
			t.Errorf("sender %d: %v", i, err)
		}
		if got := balance(t, l, receivers[i]); got != "6.0000000000" {
			t.Errorf("receiver %d balance = %s, want 6 (three sends, each once)", i, got)
		}
	}
	if failed.Load() == 0 {
		t.Errorf("no batch of several sends formed, so the re-run was not exercised")
	}
}

// TestSendBatchPanicIsAnError: a bug that panics inside a batch answers
// its sends with an error (the worker runs outside any HTTP recovery, so
// it must not take the process down) and the next sends still work.
func TestSendBatchPanicIsAnError(t *testing.T) {
	l := ledgertest.New(t, store.Postgres)
	ctx := context.Background()
	senders, receivers := sendPairs(t, l, 1)
	s, r := senders[0], receivers[0]
	restore := ledger.PanicSendBatches(l)
	_, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: s, Receiver: r, Amount: coin.MustParse("1"), DeduplicationID: "p1"})
	restore()
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("send in a panicking batch = %v, want an internal error", err)
	}
	if got := balance(t, l, r); got != "0.0000000000" {
		t.Errorf("receiver balance after the panic = %s, want 0", got)
	}
	if _, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: s, Receiver: r, Amount: coin.MustParse("1"), DeduplicationID: "p1"}); err != nil {
		t.Fatalf("the same send after the panic: %v", err)
	}
	if got := balance(t, l, r); got != "1.0000000000" {
		t.Errorf("receiver balance = %s, want 1", got)
	}
}

// TestSendCallerLeaves: a caller whose context ends gets its context's
// error at once, whether its send is queued or already in a running
// batch. The running one still completes (its answer is lost, as with any
// request; the deduplication id makes the retry safe), the queued one
// never runs, and the worker is not held up by callers that left.
func TestSendCallerLeaves(t *testing.T) {
	l := ledgertest.New(t, store.Postgres)
	senders, receivers := sendPairs(t, l, 1)
	s, r := senders[0], receivers[0]
	held, release := ledger.HoldSendBatches(l)
	defer release()

	send := func(ctx context.Context, id string) <-chan error {
		out := make(chan error, 1)
		go func() {
			_, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: s, Receiver: r, Amount: coin.MustParse("2"), DeduplicationID: id})
			out <- err
		}()
		return out
	}
	ctxA, cancelA := context.WithCancel(context.Background())
	a := send(ctxA, "a")
	<-held // a's batch is running, held before its writes
	ctxB, cancelB := context.WithCancel(context.Background())
	b := send(ctxB, "b") // queued: its sender is in the running batch
	time.Sleep(50 * time.Millisecond)
	cancelA()
	cancelB()
	for name, ch := range map[string]<-chan error{"running": a, "queued": b} {
		select {
		case err := <-ch:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s send whose caller left: %v, want context.Canceled", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s send whose caller left did not return", name)
		}
	}
	release()
	// The worker is free. The next send of the same sender runs only after
	// the held batch is done, so then that batch's send has landed.
	if _, err := l.Preapprovals().Send(context.Background(), ledger.PreapprovalSend{Sender: s, Receiver: r, Amount: coin.MustParse("1"), DeduplicationID: "c"}); err != nil {
		t.Fatal(err)
	}
	if got := balance(t, l, r); got != "3.0000000000" {
		t.Errorf("receiver balance = %s, want 3: the running send (2) completes, the queued one never runs, then 1", got)
	}
}

// TestSendGather: while a batch runs, the next one waits for more sends to
// join it, up to SendGatherMin of them; with none running, a send starts
// at once. (The wait is lengthened here, so the grouping does not hang on
// the machine's speed; the sends queue 50 ms apart, so without the wait
// the second batch would start with the first of them alone.)
func TestSendGather(t *testing.T) {
	l := ledgertest.New(t, store.Postgres)
	ctx := context.Background()
	ledger.SetSendGather(l, time.Minute)
	n := ledger.SendGatherMin + 1
	senders, receivers := sendPairs(t, l, n)
	held, release := ledger.HoldSendBatches(l)
	defer release()
	errs := make(chan error, n)
	send := func(i int) {
		_, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: senders[i], Receiver: receivers[i],
			Amount: coin.MustParse("1"), DeduplicationID: fmt.Sprintf("gather-%d", i)})
		errs <- err
	}
	waitBatch := func() int {
		t.Helper()
		select {
		case k := <-held:
			return k
		case <-time.After(30 * time.Second):
			t.Fatal("no batch started")
			return 0
		}
	}
	go send(0)
	if k := waitBatch(); k != 1 {
		t.Fatalf("first batch holds %d sends, want 1 (none was running)", k)
	}
	for i := 1; i < n; i++ {
		go send(i)
		time.Sleep(50 * time.Millisecond)
	}
	if k := waitBatch(); k != ledger.SendGatherMin {
		t.Errorf("the batch started while another ran holds %d sends, want %d", k, ledger.SendGatherMin)
	}
	release()
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	// Nothing runs now: a send starts at once, not after the wait.
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := l.Preapprovals().Send(sctx, ledger.PreapprovalSend{Sender: senders[0], Receiver: receivers[1],
		Amount: coin.MustParse("1"), DeduplicationID: "alone"}); err != nil {
		t.Errorf("a send with no batch running: %v", err)
	}
}

// TestSendGatherDetached: while a batch runs, detached sends (whose
// outcome no request's answer waits for: the Ledger API's executed
// commands) wait the detached gather for more to join their batch, and a
// send that is not detached ends that wait at once. (The normal gather is
// shortened to nothing and the detached one lengthened, so the grouping
// shows the difference on any machine.)
func TestSendGatherDetached(t *testing.T) {
	l := ledgertest.New(t, store.Postgres)
	ctx := context.Background()
	ledger.SetSendGather(l, time.Nanosecond)
	ledger.SetSendGatherDetached(l, time.Minute)
	senders, receivers := sendPairs(t, l, 4)
	held, release := ledger.HoldSendBatches(l)
	defer release()
	errs := make(chan error, 4)
	send := func(ctx context.Context, i int) {
		_, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: senders[i], Receiver: receivers[i],
			Amount: coin.MustParse("1"), DeduplicationID: fmt.Sprintf("detached-%d", i)})
		errs <- err
	}
	go send(ctx, 0)
	if k := <-held; k != 1 {
		t.Fatalf("first batch holds %d sends, want 1 (none was running)", k)
	}
	for i := 1; i <= 2; i++ {
		go send(ledger.Detached(ctx), i)
	}
	for deadline := time.Now().Add(30 * time.Second); ledger.QueuedSends(l) < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d detached sends queued, want 2", ledger.QueuedSends(l))
		}
	}
	select {
	case k := <-held:
		t.Fatalf("a batch of %d detached sends started while the first ran: want them gathering", k)
	case <-time.After(200 * time.Millisecond):
	}
	go send(ctx, 3)
	select {
	case k := <-held:
		if k != 3 {
			t.Errorf("the batch the send that is not detached started holds %d sends, want 3", k)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a send that is not detached did not end the detached gather")
	}
	release()
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestTokenTransfersRunAsSends: token-standard transfers with a tracking id
// to receivers with a preapproval run as one-step sends, grouped with
// concurrent ones on Postgres, and answer their update; a replayed
// tracking id is a duplicate, and a receiver without a preapproval still
// gets a pending instruction.
func TestTokenTransfersRunAsSends(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		const n, each = 8, 3
		senders, receivers := sendPairs(t, l, n)
		nobody := ledgertest.Party(t, l)
		amount := coin.MustParse("2.5")
		req := func(s, r coin.PartyID, id string) ledger.TransferInstructionRequest {
			return ledger.TransferInstructionRequest{Sender: s, Receiver: r, Amount: amount, ExecuteBefore: l.Now().Add(time.Hour), TrackingID: id}
		}
		for _, err := range eachSenderAtOnce(senders, each, func(i int, s coin.PartyID, k int) error {
			res, err := l.Instructions().Create(ctx, req(s, receivers[(i+k)%n], fmt.Sprintf("t-%d", k)))
			if err != nil {
				return err
			}
			if res.Status != ledger.InstructionCompleted || len(res.ReceiverHoldingCIDs) != 1 {
				return fmt.Errorf("sender %d transfer %d: %+v, want completed with one holding", i, k, res)
			}
			id, _, err := apiread.New(l).UpdateAt(ctx, res.Offset)
			if err != nil || id == "" || id != res.UpdateID {
				return fmt.Errorf("sender %d transfer %d: update %q at offset %d, the ledger has %q (%v)", i, k, res.UpdateID, res.Offset, id, err)
			}
			return nil
		}) {
			t.Error(err)
		}
		for _, r := range receivers {
			if got, want := balance(t, l, r), amount.MulInt(each).String(); got != want {
				t.Errorf("receiver balance = %s, want %s", got, want)
			}
		}
		if _, err := l.Instructions().Create(ctx, req(senders[0], receivers[0], "t-0")); !errors.Is(err, fault.ErrDuplicate) {
			t.Errorf("replayed tracking id = %v, want ErrDuplicate", err)
		}
		res, err := l.Instructions().Create(ctx, req(senders[0], nobody, "t-nobody"))
		if err != nil || res.Status != ledger.InstructionPending || res.InstructionCID == "" || res.UpdateID != "" {
			t.Errorf("transfer to a receiver without preapproval = %+v, %v; want a pending instruction", res, err)
		}
		if _, err := l.Instructions().Create(ctx, req(senders[0], receivers[1], "t-nobody")); !errors.Is(err, fault.ErrDuplicate) {
			t.Errorf("the pending instruction's tracking id again, now direct = %v, want ErrDuplicate", err)
		}
		if ledger.OnPostgres(l) && ledger.SendsBatched(l) == 0 {
			t.Errorf("no token-standard transfer ran in a batch on Postgres")
		}
		if _, err := l.CheckConservation(ctx); err != nil {
			t.Error(err)
		}
	})
}
