package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/store"
)

// TestSendBatchFastOnStaleCache: a sender's second one-step send runs in
// one round trip on what its first read and wrote (sendfast.go), and
// whatever changed meanwhile elsewhere (its holding spent by another
// transfer, the round advanced, the receiver's preapproval renewed or
// cancelled, its deduplication id used) is caught inside the transaction:
// the send then runs the way that reads, and its answer and the balances
// are what they would have been without the cache.
func TestSendBatchFastOnStaleCache(t *testing.T) {
	l := ledgertest.New(t, store.Postgres)
	ctx := context.Background()
	senders, receivers := sendPairs(t, l, 1)
	s, r := senders[0], receivers[0]
	other := ledgertest.Party(t, l)
	n := 0
	// received is the sum of r's holdings' initial amounts (its balance
	// falls by holding fees once rounds pass).
	received := func() string {
		t.Helper()
		hs, _, err := holdingsview.New(l).List(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		sum := coin.Zero
		for _, h := range hs {
			sum = sum.Add(h.Initial)
		}
		return sum.String()
	}
	send := func(id string) (*ledger.TransferResult, error) {
		return l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: s, Receiver: r, Amount: coin.MustParse("1"), DeduplicationID: id})
	}
	mustSend := func(what string) *ledger.TransferResult {
		t.Helper()
		n++
		res, err := send(fmt.Sprintf("send-%d", n))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got, want := received(), coin.MustParse("1").MulInt(int64(n)).String(); got != want {
			t.Fatalf("%s: receiver's holdings %s, want %s", what, got, want)
		}
		return res
	}
	fast := func(what string, want bool) {
		t.Helper()
		before := ledger.SendsFast(l)
		mustSend(what)
		if got := ledger.SendsFast(l) > before; got != want {
			t.Errorf("%s: ran in one round trip %v, want %v", what, got, want)
		}
	}
	fast("first send, nothing cached", false)
	fast("second send", true)

	// Its change is spent by a transfer outside the batches.
	if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: s, Receiver: other, Amount: coin.MustParse("5")}); err != nil {
		t.Fatal(err)
	}
	fast("send after its holding was spent elsewhere", false)
	fast("send after the cache relearned", true)

	// A new round opens: the send must use it, not the cached one.
	if _, err := l.Rounds().AdvanceRound(ctx); err != nil {
		t.Fatal(err)
	}
	rounds := ledgertest.OpenRoundNumbers(t, l)
	res := mustSend("send after the round advanced")
	hs, _, err := holdingsview.New(l).List(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if h.Contract.ContractID == res.Outputs[0] && h.CreatedRound != rounds[len(rounds)-1] {
			t.Errorf("output created in round %d, want the newest open round %d", h.CreatedRound, rounds[len(rounds)-1])
		}
	}

	// The deduplication id of a send the cache knows is refused.
	fast("send before a replay", true)
	if _, err := send(fmt.Sprintf("send-%d", n)); !errors.Is(err, fault.ErrDuplicate) {
		t.Errorf("replayed deduplication id = %v, want ErrDuplicate", err)
	}

	// The receiver's preapproval is renewed (a new contract), then cancelled.
	p, err := provider.New(l).LivePreapproval(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Preapprovals().Renew(ctx, p.ContractID); err != nil {
		t.Fatal(err)
	}
	fast("send after the preapproval was renewed", false)
	fast("send through the renewed preapproval", true)
	if err := l.Preapprovals().Cancel(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := send("after-cancel"); !fault.IsValidation(err) {
		t.Errorf("send after the preapproval was cancelled = %v, want a validation error", err)
	}
	if got, want := received(), coin.MustParse("1").MulInt(int64(n)).String(); got != want {
		t.Errorf("receiver's holdings %s, want %s", got, want)
	}
	ledgertest.Conserved(t, l)
}

// TestSendBatchFastConcurrent: many senders sending at once, most of
// their sends in one round trip, each lands exactly once and the supply
// is conserved.
func TestSendBatchFastConcurrent(t *testing.T) {
	l := ledgertest.New(t, store.Postgres)
	const n, each = 8, 6
	senders, receivers := sendPairs(t, l, n)
	before := ledgertest.Conserved(t, l)
	errs := sendAtOnce(l, n, each, func(i, k int) ledger.PreapprovalSend {
		return ledger.PreapprovalSend{Sender: senders[i], Receiver: receivers[(i+k)%n], Amount: coin.MustParse("1.5"), DeduplicationID: fmt.Sprintf("c-%d", k)}
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("sender %d: %v", i, err)
		}
		if got, want := balance(t, l, receivers[i]), coin.MustParse("1.5").MulInt(each).String(); got != want {
			t.Errorf("receiver %d balance = %s, want %s", i, got, want)
		}
	}
	after := ledgertest.Conserved(t, l)
	if after.Minted.Cmp(before.Minted) != 0 {
		t.Errorf("sends minted coin: %s before, %s after", before.Minted, after.Minted)
	}
	if got := ledger.SendsFast(l); got < n {
		t.Errorf("%d sends ran in one round trip, want at least %d", got, n)
	}
}

// sendAtOnce starts n goroutines at once, the i-th sending send(i, k) for
// k below each in turn; it returns each one's first error.
func sendAtOnce(l *ledger.Ledger, n, each int, send func(i, k int) ledger.PreapprovalSend) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for k := range each {
				if _, err := l.Preapprovals().Send(context.Background(), send(i, k)); err != nil && errs[i] == nil {
					errs[i] = err
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// TestSendBatchesNoteTheirCommits: a send batch's commit, in two round
// trips or in one, is known to the process without reading the ledger
// end (store.DB.KnownEnd), so the completions stream the wallet SDK opens
// after its command committed reads no end of its own.
func TestSendBatchesNoteTheirCommits(t *testing.T) {
	l := ledgertest.New(t, store.Postgres)
	ctx := context.Background()
	senders, receivers := sendPairs(t, l, 1)
	for i, fast := range []bool{false, true} {
		before := ledger.SendsFast(l)
		if _, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: senders[0], Receiver: receivers[0], Amount: coin.MustParse("1"),
			DeduplicationID: fmt.Sprintf("noted-%d", i)}); err != nil {
			t.Fatal(err)
		}
		if got := ledger.SendsFast(l) > before; got != fast {
			t.Fatalf("send %d ran in one round trip %v, want %v", i, got, fast)
		}
		last, err := store.LedgerEnd(ctx, l.DB())
		if err != nil {
			t.Fatal(err)
		}
		if known := l.DB().KnownEnd(); known != last {
			t.Errorf("send %d (one round trip %v): known end %d, want the offset it committed, %d", i, fast, known, last)
		}
	}
}
