package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
)

// TestExecuteAnswersBeforeItRuns: Canton's execute is asynchronous, and
// the wallet SDK waits for the command's completion after it. Execute
// answers {} once the submission is checked and its change claimed,
// while its command still waits to run (held here); another execute of
// the change meanwhile is SUBMISSION_ALREADY_IN_FLIGHT at once, naming
// the running submission; the outcome comes in the completions once the
// command ran.
func TestExecuteAnswersBeforeItRuns(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		x := e.external("xena", "")
		ping := selfPing("ping-held", x.party)
		p := e.mustPrepare(x, "ping-held", ping, nil)
		sigs := signatures(x.party, x.key, p.hash)
		before := e.ledgerEnd()
		release := e.api.HoldRuns()
		released := false
		defer func() {
			if !released {
				release()
			}
		}()
		answered := make(chan *client.PostV2InteractiveSubmissionExecuteResponse, 1)
		go func() { answered <- e.execute(x.user, p.raw, sigs) }()
		select {
		case resp := <-answered:
			if resp.StatusCode() != http.StatusOK || string(bytes.TrimSpace(resp.Body)) != "{}" {
				t.Fatalf("execute: %d %s, want 200 {}", resp.StatusCode(), resp.Body)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("execute did not answer while its command waited to run")
		}
		if cs, err := apiread.New(e.l).Completions(context.Background(), users.Of(e.l).Key(x.user), []coin.PartyID{x.party}, before, 0); err != nil || len(cs) != 0 {
			t.Fatalf("completions before the command ran: %+v %v, want none", cs, err)
		}
		code, b := e.post(x.user, "/v2/interactive-submission/execute", map[string]any{
			"preparedTransaction": p.raw, "partySignatures": sigs, "deduplicationPeriod": map[string]any{"Empty": map[string]any{}},
			"submissionId": "s-again", "userId": x.user, "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
		})
		var ce client.JsCantonError
		if code != http.StatusConflict || json.Unmarshal(b, &ce) != nil || ce.Code != "SUBMISSION_ALREADY_IN_FLIGHT" ||
			ce.Context["existingSubmissionId"] != "Some(s-"+x.user+")" {
			t.Errorf("execute again while the first waits to run: %d %s, want 409 SUBMISSION_ALREADY_IN_FLIGHT naming s-%s", code, b, x.user)
		}
		release()
		released = true
		// The held submission's success (the refused one's completion
		// says it was in flight).
		c, ok := e.awaitCompletionWhere(x.user, []coin.PartyID{x.party}, before, func(c commands.Completion) bool { return c.SubmissionID == "s-"+x.user })
		if !ok {
			t.Fatal("no completion of the held submission once it ran")
		}
		if c.Code != 0 || c.UpdateID == "" {
			t.Errorf("the held submission's completion %+v, want a success", c)
		}
	})
}
