package ledgerapi_test

import (
	"net/http"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
)

// TestInFlightOnlyWhileRunning: a submission whose completion is stored
// is no longer in flight, even while execute has yet to release it. The
// wallet SDK reads the ledger end, executes, and on
// SUBMISSION_ALREADY_IN_FLIGHT waits for the named submission's
// completion after that ledger end; one stored before it was read would
// never come. So the server answers such an execute as any later
// duplicate: {} and a DUPLICATE_COMMAND completion of its own, after the
// ledger end the client read.
func TestInFlightOnlyWhileRunning(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		x := e.external("ivy", "")
		ping := selfPing("ping-done", x.party)
		p := e.mustPrepare(x, "ping-done", ping, nil)
		begin := e.ledgerEnd()
		if resp := e.execute(x.user, p.raw, signatures(x.party, x.key, p.hash)); resp.StatusCode() != http.StatusOK {
			t.Fatalf("execute: %d %s", resp.StatusCode(), resp.Body)
		}
		if cs := e.completions(x.user, []coin.PartyID{x.party}, begin, 0); len(cs) != 1 || cs[0].Status.Code != 0 {
			t.Fatalf("completions after the execute: %+v, want one success", cs)
		}
		// The first submission has completed; its execute has not yet
		// let go of it.
		release := e.api.HoldInFlight(x.user, []coin.PartyID{x.party}, "ping-done", "s-"+x.user)
		defer release()
		e.wantDuplicateExecute(x, p)
	})
}
