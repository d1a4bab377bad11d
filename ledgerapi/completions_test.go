package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
)

// completion is the part of a Completion the tests read.
type completion struct {
	CommandID string `json:"commandId"`
	Status    struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"status"`
	UpdateID     string   `json:"updateId"`
	UserID       string   `json:"userId"`
	ActAs        []string `json:"actAs"`
	SubmissionID string   `json:"submissionId"`
	Offset       int64    `json:"offset"`
}

// completions reads user's completions for parties after begin (limit 0:
// none given), failing on anything but 200.
func (e *env) completions(user string, parties []coin.PartyID, begin int64, limit int64) []completion {
	e.t.Helper()
	code, b := e.completionsRaw(user, map[string]any{"userId": user, "parties": parties, "beginExclusive": begin}, limit)
	if code != http.StatusOK {
		e.t.Fatalf("completions of %s: %d %s", user, code, b)
	}
	return decodeCompletions(e.t, b)
}

// decodeCompletions is the completions of a completions page b.
func decodeCompletions(t testing.TB, b []byte) []completion {
	t.Helper()
	var out []struct {
		CompletionResponse struct {
			Completion *struct {
				Value completion `json:"value"`
			} `json:"Completion"`
		} `json:"completionResponse"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	var cs []completion
	for _, o := range out {
		if o.CompletionResponse.Completion != nil {
			cs = append(cs, o.CompletionResponse.Completion.Value)
		}
	}
	return cs
}

func (e *env) completionsRaw(user string, req map[string]any, limit int64) (int, []byte) {
	e.t.Helper()
	var params client.PostV2CommandsCompletionsParams
	if limit > 0 {
		params.Limit = &limit
	}
	resp, err := e.as(user).PostV2CommandsCompletionsWithBodyWithResponse(context.Background(), &params, jsonType, body(e.t, req))
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode(), resp.Body
}

// TestCompletions: submit-and-wait and async submissions both complete
// on /v2/commands/completions, in offset order: a success with its update
// id and offset, a duplicate (sync: 409 DUPLICATE_COMMAND; async: a failed
// completion) and a command the ledger rejects as failures with Canton's
// gRPC code and "ERROR_ID(category,correlation): cause"; limit and
// beginExclusive page; the caller reads only its own completions, of
// parties it may read.
func TestCompletions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		pre, _, err := e.l.Preapprovals().Create(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		cmd := func(commandID, contract string) map[string]any {
			c := preapprovalSend(contract, alice, alice, commandID)
			c["submissionId"] = "sub-" + commandID
			return c
		}
		async := func(commandID, contract string) {
			t.Helper()
			r, err := e.as("alice").PostV2CommandsAsyncSubmitWithBodyWithResponse(ctx, jsonType, body(t, cmd(commandID, contract)))
			if err != nil || r.StatusCode() != http.StatusOK || r.JSON200 == nil {
				t.Fatalf("async submit %s: %v %s", commandID, err, r.Body)
			}
			e.api.Wait()
		}
		begin := e.ledgerEnd()
		sync, err := e.as("alice").PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, cmd("s1", string(pre))))
		if err != nil || sync.JSON200 == nil {
			t.Fatalf("submit-and-wait: %v %s", err, sync.Body)
		}
		dup, _ := e.as("alice").PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, cmd("s1", string(pre))))
		wantError(t, "the same command again", http.StatusConflict, dup.HTTPResponse, dup.JSONDefault, "DUPLICATE_COMMAND")
		async("s2", string(pre))
		async("s2", string(pre))
		async("s3", string(coin.NewContractID()))
		// A submission that fails its checks is refused at once.
		bad := cmd("", string(pre))
		r, _ := e.as("alice").PostV2CommandsAsyncSubmitWithBodyWithResponse(ctx, jsonType, body(t, bad))
		wantError(t, "async without a command id", http.StatusBadRequest, r.HTTPResponse, r.JSONDefault, "MISSING_FIELD")

		cs := e.completions("alice", []coin.PartyID{alice}, begin, 0)
		want := []struct {
			id    string
			code  int
			cause string
		}{{"s1", 0, ""}, {"s1", 6, "DUPLICATE_COMMAND(10,sub-s1): "}, {"s2", 0, ""}, {"s2", 6, "DUPLICATE_COMMAND(10,sub-s2): "},
			{"s3", 5, "CONTRACT_NOT_FOUND(11,sub-s3): "}}
		if len(cs) != len(want) {
			t.Fatalf("completions: %+v, want %d", cs, len(want))
		}
		last := begin
		for i, w := range want {
			c := cs[i]
			if c.CommandID != w.id || c.Status.Code != w.code || !strings.HasPrefix(c.Status.Message, w.cause) || c.UserID != "alice" ||
				c.SubmissionID != "sub-"+w.id || len(c.ActAs) != 1 || c.ActAs[0] != string(alice) || c.Offset <= last {
				t.Errorf("completion %d: %+v, want %s code %d %q", i, c, w.id, w.code, w.cause)
			}
			if (w.code == 0) != (c.UpdateID != "") || w.code != 0 && c.Status.Message == w.cause {
				t.Errorf("completion %d: update id %q, message %q", i, c.UpdateID, c.Status.Message)
			}
			last = c.Offset
		}
		if cs[0].UpdateID != sync.JSON200.UpdateId || cs[0].Offset != sync.JSON200.CompletionOffset {
			t.Errorf("the sync command's completion %+v, its answer %+v", cs[0], sync.JSON200)
		}
		// The async send moved the coin, once.
		hs := e.acs("bob", filter(bob, interfaceFilter(holdingIface, true, false)), e.ledgerEnd())
		if len(hs) != 2 {
			t.Errorf("bob's holdings after two sends: %d", len(hs))
		}

		// Paging.
		if page := e.completions("alice", []coin.PartyID{alice}, begin, 2); len(page) != 2 || page[1].Offset != cs[1].Offset {
			t.Errorf("limit 2: %+v", page)
		}
		if page := e.completions("alice", []coin.PartyID{alice}, cs[1].Offset, 0); len(page) != 3 || page[0].Offset != cs[2].Offset {
			t.Errorf("after the second: %+v", page)
		}
		// Only one's own, and only parties one may read.
		if got := e.completions("bob", []coin.PartyID{bob}, begin, 0); len(got) != 0 {
			t.Errorf("bob sees alice's completions: %+v", got)
		}
		for _, c := range []struct {
			user string
			req  map[string]any
			code int
		}{
			{"bob", map[string]any{"parties": []coin.PartyID{alice}, "beginExclusive": begin}, http.StatusForbidden},
			{"alice", map[string]any{"userId": "bob", "parties": []coin.PartyID{alice}, "beginExclusive": begin}, http.StatusForbidden},
			{"alice", map[string]any{"userId": "alice", "parties": []coin.PartyID{}, "beginExclusive": begin}, http.StatusBadRequest},
			{"alice", map[string]any{"userId": "alice", "parties": []coin.PartyID{alice}, "beginExclusive": e.ledgerEnd() + 5}, http.StatusBadRequest},
		} {
			if code, b := e.completionsRaw(c.user, c.req, 0); code != c.code {
				t.Errorf("completions %v as %s: %d %s, want %d", c.req, c.user, code, b, c.code)
			}
		}
	})
}

// completing is the test clients' transport that checks every command a
// test submits and waits for: its success's completion is stored at the
// answer's offset with its update id, for its user, command id and
// actAs. Every route of the command table a test runs is checked so, so
// a route that runs its command without the completion fails whichever
// test runs it.
type completing struct {
	e    *env
	user string
	next http.RoundTripper
}

func (c completing) RoundTrip(req *http.Request) (*http.Response, error) {
	c.e.t.Helper()
	forTx := req.URL.Path == "/v2/commands/submit-and-wait-for-transaction"
	if req.Method != http.MethodPost || !forTx && req.URL.Path != "/v2/commands/submit-and-wait" || req.Body == nil {
		return c.next.RoundTrip(req)
	}
	reqBody, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	resp, err := c.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	type commands struct {
		CommandID string         `json:"commandId"`
		ActAs     []coin.PartyID `json:"actAs"`
	}
	var in struct {
		commands
		Commands json.RawMessage `json:"commands"` // -for-transaction's: an object
	}
	var out struct {
		UpdateID         string `json:"updateId"`
		CompletionOffset int64  `json:"completionOffset"`
		Transaction      *struct {
			UpdateID string `json:"updateId"`
			Offset   int64  `json:"offset"`
		} `json:"transaction"`
	}
	if err := json.Unmarshal(reqBody, &in); err != nil {
		c.e.t.Errorf("completing: the request: %v", err)
		return resp, nil
	}
	if err := json.Unmarshal(respBody, &out); err != nil {
		c.e.t.Errorf("completing: the answer: %v", err)
		return resp, nil
	}
	cmd, update, offset := in.commands, out.UpdateID, out.CompletionOffset
	if forTx {
		if err := json.Unmarshal(in.Commands, &cmd); err != nil || out.Transaction == nil {
			c.e.t.Errorf("completing: the request's commands: %v; the answer's transaction: %v", err, out.Transaction)
			return resp, nil
		}
		update, offset = out.Transaction.UpdateID, out.Transaction.Offset
	}
	c.e.wantCompleted(c.user, cmd.ActAs, cmd.CommandID, offset-1, update, offset)
	return resp, nil
}

// wantCompleted checks that user's command commandID acting as actAs
// completed successfully after offset after: with update (any when "")
// at offset at (any when 0).
func (e *env) wantCompleted(user string, actAs []coin.PartyID, commandID string, after int64, update string, at int64) {
	e.t.Helper()
	c, ok := e.awaitCompletion(user, actAs, commandID, after)
	if !ok {
		e.t.Errorf("command %s by %s acting as %v succeeded, but no completion after %d was written with it", commandID, user, actAs, after)
		return
	}
	if c.Code != 0 || c.UpdateID == "" || update != "" && c.UpdateID != update || at != 0 && c.Offset != at {
		e.t.Errorf("command %s by %s: completion %+v, want a success with update %q at %d", commandID, user, c, update, at)
	}
}

// awaitCompletion waits up to 10 s for the completion of user's command
// commandID acting as actAs after offset after: an executed command runs
// after execute answered, as Canton's.
func (e *env) awaitCompletion(user string, actAs []coin.PartyID, commandID string, after int64) (commands.Completion, bool) {
	e.t.Helper()
	return e.awaitCompletionWhere(user, actAs, after, func(c commands.Completion) bool { return c.CommandID == commandID })
}

// awaitCompletionWhere waits up to 10 s for a completion of user's acting
// as actAs after offset after for which match holds.
func (e *env) awaitCompletionWhere(user string, actAs []coin.PartyID, after int64, match func(commands.Completion) bool) (commands.Completion, bool) {
	e.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		moved := e.l.Committed()
		cs, err := apiread.New(e.l).Completions(context.Background(), users.Of(e.l).Key(user), actAs, after, 0)
		if err != nil {
			e.t.Errorf("completions of %s after %d: %v", user, after, err)
			return commands.Completion{}, false
		}
		for _, c := range cs {
			if match(c) {
				return c, true
			}
		}
		if time.Now().After(deadline) {
			return commands.Completion{}, false
		}
		select {
		case <-moved:
		case <-time.After(10 * time.Millisecond):
		}
	}
}
