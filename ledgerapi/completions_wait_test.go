package ledgerapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
)

// TestCompletionsWhileOwnSubmissionRuns: a completions read that waits
// (stream_idle_timeout_ms) while one of its caller's own submissions runs
// here leaves out its first read and waits for that submission's commit;
// a completion of the caller's committed before still comes at once, and
// a read with nothing to find still ends with an empty page.
func TestCompletionsWhileOwnSubmissionRuns(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		x := e.external("ivy", "")
		begin := e.ledgerEnd()
		e.run(x, "ping-1", selfPing("ping-1", x.party), nil)
		first, _ := e.awaitCompletion(x.user, []coin.PartyID{x.party}, "ping-1", begin)

		// Another command of the user's runs (held).
		release := e.api.HoldInFlight(x.user, []coin.PartyID{x.party}, "ping-2", "s-2")
		defer release()
		read := func(after, idleMs int64) ([]completion, time.Duration) {
			t.Helper()
			params := client.PostV2CommandsCompletionsParams{StreamIdleTimeoutMs: &idleMs}
			t0 := time.Now()
			resp, err := e.as(x.user).PostV2CommandsCompletionsWithBodyWithResponse(context.Background(), &params, jsonType,
				body(t, map[string]any{"userId": x.user, "parties": []coin.PartyID{x.party}, "beginExclusive": after}))
			took := time.Since(t0)
			if err != nil || resp.StatusCode() != http.StatusOK {
				t.Fatalf("completions after %d: %v %s", after, err, resp.Body)
			}
			return decodeCompletions(t, resp.Body), took
		}
		// The earlier completion comes long before the idle timeout.
		if cs, took := read(begin, 5000); len(cs) != 1 || cs[0].CommandID != "ping-1" || took > 4*time.Second {
			t.Errorf("completions after %d while ping-2 runs: %+v in %v, want ping-1's at once", begin, cs, took)
		}
		// Nothing after it: an empty page, without waiting for the held
		// command's commit (none is on its way from this process's
		// point of view: the hold runs nothing).
		if cs, _ := read(first.Offset, 300); len(cs) != 0 {
			t.Errorf("completions after ping-1 while ping-2 runs: %+v, want none", cs)
		}
		// Without a wait the page is read at once.
		if cs, _ := read(begin, 0); len(cs) != 1 || cs[0].CommandID != "ping-1" {
			t.Errorf("completions after %d, no wait: %+v, want ping-1's", begin, cs)
		}
	})
}
