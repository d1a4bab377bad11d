package ledgerapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/asyncsub"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledgerapi"
)

// TestDurableAsyncResumesKeptSubmissions: with durable asynchronous
// submissions, what a process kept and answered {} but never ran (it
// died) runs once another process takes it over, exactly once: one kept
// that had run before the death is not run again (no second completion,
// no DUPLICATE_COMMAND), one that cannot run records its rejection, and
// nothing stays kept. Before, an answered submission lost in a crash
// had no effect and no completion (issue 38).
func TestDurableAsyncResumesKeptSubmissions(t *testing.T) {
	for i, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			first := newEnv(t, i) // the process that dies, not durable itself
			alice, bob := first.user("alice", "25"), first.user("bob", "")
			pre, _, err := first.l.Preapprovals().Create(ctx, bob)
			if err != nil {
				t.Fatal(err)
			}
			keep := func(commandID, amount string) {
				t.Helper()
				cmd := preapprovalSend(string(pre), alice, alice, commandID)
				cmd["commands"].([]any)[0].(map[string]any)["ExerciseCommand"].(map[string]any)["choiceArgument"].(map[string]any)["amount"] = amount
				b, err := json.Marshal(cmd)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := first.w.Async.Keep(ctx, asyncsub.Submission{Owner: "gone", User: "alice", CommandID: commandID, Body: b}); err != nil {
					t.Fatal(err)
				}
			}
			begin := first.ledgerEnd()
			keep("ran-1", "10.0") // kept, then run before the death
			r, err := first.as("alice").PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, preapprovalSend(string(pre), alice, alice, "ran-1")))
			if err != nil || r.StatusCode() != http.StatusOK {
				t.Fatalf("ran-1: %v %s", err, r.Body)
			}
			keep("kept-1", "10.0")    // kept and answered, never run
			keep("kept-poor", "1000") // never run, and cannot run
			// Another process with durable submissions on the same database.
			second := newEnvWith(t, first.l, first.clock, ledgerapi.Config{DurableAsync: true})
			var cs []completion
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if cs = second.completions("alice", []coin.PartyID{alice}, begin, 0); len(cs) >= 3 && keptCount(t, first.l) == 0 {
					break
				}
			}
			got := map[string][]int{}
			for _, c := range cs {
				got[c.CommandID] = append(got[c.CommandID], c.Status.Code)
			}
			if len(cs) != 3 || len(got["ran-1"]) != 1 || got["ran-1"][0] != 0 || len(got["kept-1"]) != 1 || got["kept-1"][0] != 0 ||
				len(got["kept-poor"]) != 1 || got["kept-poor"][0] == 0 {
				t.Errorf("completions by command = %v, want ran-1 and kept-1 applied once each and kept-poor refused once", got)
			}
			if n := keptCount(t, first.l); n != 0 {
				t.Errorf("%d submissions still kept", n)
			}
			if bal, err := first.l.Balance(ctx, bob); err != nil || !bal.EffectiveUnlocked.Equal(coin.MustParse("20")) {
				t.Errorf("bob has %+v, %v; want exactly 20", bal, err)
			}
			// The durable process's own submissions: kept, run, forgotten.
			for i := range 3 {
				cmd := preapprovalSend(string(pre), alice, alice, fmt.Sprintf("live-%d", i))
				cmd["commands"].([]any)[0].(map[string]any)["ExerciseCommand"].(map[string]any)["choiceArgument"].(map[string]any)["amount"] = "1.0"
				r, err := second.as("alice").PostV2CommandsAsyncSubmitWithBodyWithResponse(ctx, jsonType, body(t, cmd))
				if err != nil || r.StatusCode() != http.StatusOK {
					t.Fatalf("async submit: %v %s", err, r.Body)
				}
			}
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if len(second.completions("alice", []coin.PartyID{alice}, begin, 0)) >= 6 && keptCount(t, first.l) == 0 {
					break
				}
			}
			if n := keptCount(t, first.l); n != 0 {
				t.Errorf("%d of the durable process's own submissions still kept", n)
			}
			if bal, err := first.l.Balance(ctx, bob); err != nil || !bal.EffectiveUnlocked.Equal(coin.MustParse("23")) {
				t.Errorf("bob has %+v, %v; want exactly 23", bal, err)
			}
		})
	}
}

// keptCount is how many asynchronous submissions are kept.
func keptCount(t *testing.T, l *ledger.Ledger) int64 {
	t.Helper()
	n, err := l.DB().NewSelect().Table("async_submissions").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}
