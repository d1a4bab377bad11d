package ledger_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// spanCounts is an Observer that counts what it is told, by kind.
type spanCounts struct {
	mu     sync.Mutex
	n      map[string]int
	failed map[string]int
}

func (c *spanCounts) LedgerOp(kind string, _ time.Duration, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[kind]++
	if err != nil {
		c.failed[kind]++
	}
}

// TestSendSpans: a batched one-step send reports its stages to the
// Observer under the kinds that /metrics, the Grafana dashboard's send
// batch panels (deploy/grafana) and make bench read: send.wait once a
// send, send.batch and send.write once a batch. Renaming one leaves the
// dashboard's panels empty; this test fails first.
func TestSendSpans(t *testing.T) {
	ctx := context.Background()
	spans := &spanCounts{n: map[string]int{}, failed: map[string]int{}}
	l, err := ledgertest.OpenLedger(ctx, ledgertest.OpenDB(t, ledgertest.DBURL(t, store.Postgres)), ledger.Config{
		AdminUsers: []string{"admin"}, DevNet: true, Now: ledgertest.NewClock().Now, Observer: spans,
	})
	if err != nil {
		t.Fatal(err)
	}
	const n, each = 8, 4
	senders, receivers := sendPairs(t, l, n)
	spans.mu.Lock()
	clear(spans.n) // the set-up's own ledger changes
	clear(spans.failed)
	spans.mu.Unlock()
	for _, err := range eachSenderAtOnce(senders, each, func(i int, s coin.PartyID, k int) error {
		_, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{
			Sender: s, Receiver: receivers[(i+k)%n], Amount: coin.MustParse("1"), DeduplicationID: fmt.Sprintf("spans-%d-%d", i, k),
		})
		return err
	}) {
		t.Error(err)
	}
	spans.mu.Lock()
	defer spans.mu.Unlock()
	if got := spans.n["send.wait"]; got != n*each {
		t.Errorf("send.wait reported %d times, want once a send (%d)", got, n*each)
	}
	batches := spans.n["send.batch"]
	if batches == 0 || batches >= n*each {
		t.Errorf("send.batch reported %d times for %d sends, want once a batch, and some batch of several (%d sends batched)", batches, n*each, ledger.SendsBatched(l))
	}
	if got := spans.n["send.write"]; got < batches {
		t.Errorf("send.write reported %d times, want at least once a batch (%d)", got, batches)
	}
	for kind, k := range spans.failed {
		t.Errorf("%s reported %d failures", kind, k)
	}
}
