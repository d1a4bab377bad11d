package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
)

// selfPing is the CreateCommand of Canton's Ping id from party to itself.
func selfPing(id string, party coin.PartyID) map[string]any {
	return map[string]any{"CreateCommand": map[string]any{"templateId": "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping",
		"createArguments": map[string]any{"id": id, "initiator": party, "responder": party}}}
}

// wantDuplicateExecute executes p, which x executed before, again: as
// Canton's execute is asynchronous, it answers {} and the duplicate is a
// failed completion (DUPLICATE_COMMAND, gRPC 6) of the new submission.
func (e *env) wantDuplicateExecute(x extParty, p prepared) {
	e.t.Helper()
	begin := e.ledgerEnd()
	resp := e.execute(x.user, p.raw, signatures(x.party, x.key, p.hash))
	if resp.StatusCode() != http.StatusOK || string(bytes.TrimSpace(resp.Body)) != "{}" {
		e.t.Fatalf("the same execute again: %d %s, want 200 {}", resp.StatusCode(), resp.Body)
	}
	// The duplicate's run follows the answer: its completion comes soon.
	var cs []completion
	for deadline := time.Now().Add(10 * time.Second); len(cs) == 0 && time.Now().Before(deadline); {
		cs = e.completions(x.user, []coin.PartyID{x.party}, begin, 0)
	}
	if len(cs) != 1 || cs[0].Status.Code != 6 || !strings.HasPrefix(cs[0].Status.Message, "DUPLICATE_COMMAND") ||
		cs[0].CommandID != p.tx.Metadata.CommandID || cs[0].SubmissionID != "s-"+x.user {
		e.t.Errorf("completions after the same execute again: %+v, want one DUPLICATE_COMMAND", cs)
	}
}

// TestConcurrentExecutes is the wallet SDK's idempotency example: ten
// concurrent executes of one prepared, signed command, each with its own
// submission id. The command runs once; each execute answers {} (the one
// that ran, or one after it: a DUPLICATE_COMMAND completion of its own)
// or, while the first still runs, SUBMISSION_ALREADY_IN_FLIGHT naming the
// running submission's id as Canton does (context existingSubmissionId
// "Some(id)"), whose completion the SDK then waits for.
func TestConcurrentExecutes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		x := e.external("xena", "")
		ping := selfPing("ping-1", x.party)
		p := e.mustPrepare(x, "ping-1", ping, nil)
		sigs := signatures(x.party, x.key, p.hash)
		begin := e.ledgerEnd()
		const n = 10
		type answer struct {
			code int
			body []byte
		}
		answers := make([]answer, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, b := e.post(x.user, "/v2/interactive-submission/execute", map[string]any{
					"preparedTransaction": p.raw, "partySignatures": sigs, "deduplicationPeriod": map[string]any{"Empty": map[string]any{}},
					"submissionId": submissionN(i), "userId": x.user, "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
				})
				answers[i] = answer{code, b}
			}()
		}
		wg.Wait()
		subs := map[string]bool{}
		for i := range n {
			subs[submissionN(i)] = true
		}
		for i, a := range answers {
			switch a.code {
			case http.StatusOK:
				if string(bytes.TrimSpace(a.body)) != "{}" {
					t.Errorf("execute %d: 200 %s, want {}", i, a.body)
				}
			case http.StatusConflict:
				var ce client.JsCantonError
				if err := json.Unmarshal(a.body, &ce); err != nil || ce.Code != "SUBMISSION_ALREADY_IN_FLIGHT" {
					t.Errorf("execute %d: 409 %s, want SUBMISSION_ALREADY_IN_FLIGHT", i, a.body)
					continue
				}
				id := strings.TrimSuffix(strings.TrimPrefix(ce.Context["existingSubmissionId"], "Some("), ")")
				if !subs[id] || id == submissionN(i) {
					t.Errorf("execute %d: in flight behind %q, want another of the ten submissions", i, ce.Context["existingSubmissionId"])
				}
			default:
				t.Errorf("execute %d: %d %s", i, a.code, a.body)
			}
		}
		// The submission that runs completes after the answers.
		var cs []completion
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			cs = e.completions(x.user, []coin.PartyID{x.party}, begin, 0)
			if slices.ContainsFunc(cs, func(c completion) bool { return c.Status.Code == 0 }) {
				break
			}
		}
		ok := 0
		for _, c := range cs {
			switch {
			case c.Status.Code == 0:
				ok++
			case !strings.HasPrefix(c.Status.Message, "DUPLICATE_COMMAND") && !strings.HasPrefix(c.Status.Message, "SUBMISSION_ALREADY_IN_FLIGHT"):
				t.Errorf("completion %+v, want success, DUPLICATE_COMMAND or SUBMISSION_ALREADY_IN_FLIGHT", c)
			}
		}
		if ok != 1 {
			t.Errorf("%d successful completions, want 1", ok)
		}
		only(t, "xena's pings", e.acs(x.user, filter(x.party, templateFilter("#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping", false)), e.ledgerEnd()))
	})
}

func submissionN(i int) string { return "sub-" + string(rune('a'+i)) }
