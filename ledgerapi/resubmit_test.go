package ledgerapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestAsyncResubmitAppliesOnce is Canton's contract for asynchronous
// submissions (docs/api.md): an answered {} is not yet durable, and a
// client that sees no successful completion for its commandId within the
// deduplication period resubmits with the same commandId. A submission
// that changed nothing (here refused for want of funds, as one lost in a
// crash before it ran changes nothing) leaves the id free, the
// resubmission applies once, and every later one is DUPLICATE_COMMAND.
func TestAsyncResubmitAppliesOnce(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "5"), e.user("bob", "")
		pre, _, err := e.l.Preapprovals().Create(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		async := func() {
			t.Helper()
			r, err := e.as("alice").PostV2CommandsAsyncSubmitWithBodyWithResponse(ctx, jsonType, body(t, preapprovalSend(string(pre), alice, alice, "rent-1")))
			if err != nil || r.StatusCode() != http.StatusOK {
				t.Fatalf("async submit: %v %s", err, r.Body)
			}
			e.api.Wait()
		}
		begin := e.ledgerEnd()
		async() // 10 CC of 5: refused, nothing changed
		ledgertest.Mint(t, e.l, alice, "20")
		async() // the resubmission applies
		async() // and only once
		var codes []int
		for _, c := range e.completions("alice", []coin.PartyID{alice}, begin, 0) {
			codes = append(codes, c.Status.Code)
		}
		if len(codes) != 3 || codes[0] == 0 || codes[1] != 0 || codes[2] != 6 {
			t.Errorf("completions' codes = %v, want [a refusal, 0 (applied), 6 (DUPLICATE_COMMAND)]", codes)
		}
		bal, err := e.l.Balance(ctx, bob)
		if err != nil || !bal.EffectiveUnlocked.Equal(coin.MustParse("10")) {
			t.Errorf("bob has %+v, %v; want exactly 10", bal, err)
		}
	})
}
