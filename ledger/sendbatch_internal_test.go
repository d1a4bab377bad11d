package ledger

import (
	"context"
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
)

// TestTakeSendsSkipsBusySenders: a batch takes one send per sender, and
// none of a sender whose send is in the other worker's running batch (it
// would only wait there for the sender's lock, holding up its whole
// batch); once that batch is done, the next takes it.
func TestTakeSendsSkipsBusySenders(t *testing.T) {
	l := &Ledger{core: &core{}}
	call := func(sender string) *sendCall {
		return &sendCall{ctx: context.Background(), s: PreapprovalSend{Sender: coin.PartyID(sender)}, done: make(chan sendResult, 1)}
	}
	a1, a2, b1, c1, a3 := call("a"), call("a"), call("b"), call("c"), call("a")
	l.sends.queue = []*sendCall{a1, a2, b1}
	l.sends.workers = 2

	first := l.sends.takeSends()
	if !slices.Equal(first, []*sendCall{a1, b1}) {
		t.Fatalf("first batch: %d sends, want a1 and b1", len(first))
	}
	l.sends.queue = append(l.sends.queue, c1)
	second := l.sends.takeSends()
	if !slices.Equal(second, []*sendCall{c1}) {
		t.Fatalf("second batch while the first runs: %d sends, want c1 alone (a is busy)", len(second))
	}
	l.sends.finishSends(second, make([]sendResult, len(second)))
	if third := l.sends.takeSends(); len(third) != 0 || l.sends.workers != 1 {
		t.Fatalf("with only a busy sender's send queued: a batch of %d, %d workers; want none and the worker retired", len(third), l.sends.workers)
	}

	l.sends.finishSends(first, make([]sendResult, len(first)))
	for _, c := range first {
		select {
		case <-c.done:
		default:
			t.Fatal("a send of a finished batch was not answered")
		}
	}
	l.sends.queue = append(l.sends.queue, a3)
	if next := l.sends.takeSends(); !slices.Equal(next, []*sendCall{a2}) {
		t.Fatalf("after the first batch: %d sends, want a2 alone (a3 is a's next)", len(next))
	}
}
