package ledgerapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledgerapi"
	"github.com/ccwallet/ccwallet/ledgerapi/streams"
	"github.com/ccwallet/ccwallet/web"
	"github.com/coder/websocket"
)

// The WebSocket streams, dialled by a real client (coder/websocket) on the
// real server, the way Canton's clients (the wallet SDK) do: the token as
// the jwt.token. subprotocol beside daml.ws.auth, the request as the first
// message.

// wsTimeout bounds each wait for a message in these tests (not a timing
// assertion: a broken stream fails instead of hanging).
const wsTimeout = 20 * time.Second

// forEachEngineWS runs fn on a fresh server with streams cfg over each
// engine.
func forEachEngineWS(t *testing.T, cfg streams.Config, fn func(t *testing.T, e *env)) {
	for i, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			fn(t, newEnvConfig(t, i, ledgerapi.Config{Streams: cfg}))
		})
	}
}

// fastCheckpoints lets each stream send its checkpoints as it catches up;
// the hour-long poll leaves the commit signal alone to wake the streams.
var fastCheckpoints = streams.Config{Checkpoint: time.Millisecond, Poll: time.Hour}

func (e *env) token(user string) string {
	e.t.Helper()
	tok, err := web.SignDevToken(e.signer, testKID, "", testAudience, user, time.Hour)
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// dial opens path as user (the subprotocol way; "" for no token), with
// Canton's subprotocols.
func (e *env) dial(path, user string) (*websocket.Conn, *http.Response, error) {
	e.t.Helper()
	protos := []string{"daml.ws.auth"}
	if user != "" {
		protos = []string{"jwt.token." + e.token(user), "daml.ws.auth"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), wsTimeout)
	defer cancel()
	c, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+path, &websocket.DialOptions{Subprotocols: protos})
	if c != nil {
		c.SetReadLimit(1 << 24)
		e.t.Cleanup(func() { c.CloseNow() })
	}
	return c, res, err
}

// open dials path as user and sends req.
func (e *env) open(path, user string, req any) *websocket.Conn {
	e.t.Helper()
	c, res, err := e.dial(path, user)
	if err != nil {
		e.t.Fatalf("dial %s as %s: %v (%v)", path, user, err, res)
	}
	if c.Subprotocol() != "daml.ws.auth" {
		e.t.Errorf("subprotocol %q, want daml.ws.auth echoed", c.Subprotocol())
	}
	send(e.t, c, req)
	return c
}

func send(t testing.TB, c *websocket.Conn, req any) {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

// next reads the next message; a close gives nil and the close status.
func next(t testing.TB, c *websocket.Conn) (map[string]json.RawMessage, websocket.StatusCode) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wsTimeout)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		if s := websocket.CloseStatus(err); s != -1 {
			return nil, s
		}
		t.Fatalf("read: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("message %s: %v", b, err)
	}
	return m, -1
}

// wantClose reads an error message with code, then the close status.
func wantClose(t testing.TB, what string, c *websocket.Conn, code string, status websocket.StatusCode) {
	t.Helper()
	m, s := next(t, c)
	if code != "" {
		var ce struct {
			Code          string `json:"code"`
			Cause         string `json:"cause"`
			ErrorCategory int    `json:"errorCategory"`
			GrpcCodeValue int    `json:"grpcCodeValue"`
		}
		b, _ := json.Marshal(m)
		if err := json.Unmarshal(b, &ce); err != nil || ce.Code != code || ce.Cause == "" || ce.ErrorCategory <= 0 || ce.GrpcCodeValue <= 0 {
			t.Errorf("%s: message %s (close %d), want a JsCantonError %s", what, b, s, code)
		}
		_, s = next(t, c)
	}
	if s != status {
		t.Errorf("%s: close %d, want %d", what, s, status)
	}
}

// update is one message of an update stream: a transaction (its offset
// and events) or a checkpoint.
type update struct {
	tx         *flatTx
	checkpoint int64
}

type flatTx struct {
	UpdateID string                       `json:"updateId"`
	Offset   int64                        `json:"offset"`
	Events   []map[string]json.RawMessage `json:"events"`
}

func nextUpdate(t testing.TB, c *websocket.Conn) update {
	t.Helper()
	m, s := next(t, c)
	if m == nil {
		t.Fatalf("stream closed (%d), want an update", s)
	}
	var u struct {
		Transaction *struct {
			Value flatTx `json:"value"`
		} `json:"Transaction"`
		TransactionTree *struct {
			Value flatTx `json:"value"`
		} `json:"TransactionTree"`
		OffsetCheckpoint *struct {
			Value struct {
				Offset int64 `json:"offset"`
			} `json:"value"`
		} `json:"OffsetCheckpoint"`
	}
	if err := json.Unmarshal(m["update"], &u); err != nil {
		t.Fatalf("update %s: %v", m["update"], err)
	}
	switch {
	case u.Transaction != nil:
		return update{tx: &u.Transaction.Value}
	case u.TransactionTree != nil:
		return update{tx: &u.TransactionTree.Value}
	case u.OffsetCheckpoint != nil:
		return update{checkpoint: u.OffsetCheckpoint.Value.Offset}
	}
	t.Fatalf("not an update: %v", m)
	return update{}
}

// untilTx reads updates until a transaction, checking the checkpoints on
// the way never go back.
func untilTx(t testing.TB, c *websocket.Conn, after int64) *flatTx {
	t.Helper()
	for {
		u := nextUpdate(t, c)
		if u.tx != nil {
			if u.tx.Offset <= after {
				t.Fatalf("transaction at %d, after %d", u.tx.Offset, after)
			}
			return u.tx
		}
		if u.checkpoint < after {
			t.Fatalf("checkpoint %d before %d", u.checkpoint, after)
		}
	}
}

func holdingUpdates(party coin.PartyID, begin int64) map[string]any {
	return map[string]any{"beginExclusive": begin, "updateFormat": map[string]any{"includeTransactions": map[string]any{
		"eventFormat": filter(party, interfaceFilter(holdingIface, true, false)), "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA"}}}
}

// TestWSUpdates: /v2/updates sends the past after beginExclusive, then an
// OffsetCheckpoint once caught up, then each update as it commits, and a
// checkpoint past updates the filter does not see (another party's);
// the legacy filter form and /v2/updates/trees answer too; endInclusive
// ends the stream (close 1000).
func TestWSUpdates(t *testing.T) {
	forEachEngineWS(t, fastCheckpoints, func(t *testing.T, e *env) {
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		minted := e.ledgerEnd()
		c := e.open("/v2/updates", "alice", holdingUpdates(alice, 0))
		tx := untilTx(t, c, 0)
		if tx.Offset > minted || len(tx.Events) == 0 || tx.Events[0]["CreatedEvent"] == nil {
			t.Fatalf("first update %+v, want alice's holding created by %d", tx, minted)
		}
		// Caught up: a checkpoint at the ledger end.
		for u := nextUpdate(t, c); u.checkpoint != minted; u = nextUpdate(t, c) {
			if u.tx != nil || u.checkpoint > minted {
				t.Fatalf("before catching up: %+v, want a checkpoint at %d", u, minted)
			}
		}

		// Live: alice's new holding comes as it commits.
		ledgertest.Mint(t, e.l, alice, "5")
		tx = untilTx(t, c, minted)
		if tx.Offset != e.ledgerEnd() || tx.Events[0]["CreatedEvent"] == nil {
			t.Errorf("live update %+v, want the mint at %d", tx, e.ledgerEnd())
		}
		// Bob's coin is not alice's: only a checkpoint past it.
		ledgertest.Mint(t, e.l, bob, "5")
		end := e.ledgerEnd()
		for u := nextUpdate(t, c); u.checkpoint != end; u = nextUpdate(t, c) {
			if u.tx != nil {
				t.Fatalf("alice saw bob's update %+v", u.tx)
			}
		}

		// The legacy filter, and a tree, up to endInclusive: then the close.
		legacy := map[string]any{"beginExclusive": 0, "endInclusive": minted, "verbose": false,
			"filter": map[string]any{"filtersByParty": map[string]any{string(alice): map[string]any{"cumulative": []any{}}}}}
		for _, path := range []string{"/v2/updates/flats", "/v2/updates/trees"} {
			c := e.open(path, "alice", legacy)
			n := 0
			for {
				m, s := next(t, c)
				if m == nil {
					if s != websocket.StatusNormalClosure || n == 0 {
						t.Errorf("%s: closed %d after %d updates, want 1000 after some", path, s, n)
					}
					break
				}
				n++
				if (path == "/v2/updates/trees") != strings.Contains(string(m["update"]), "TransactionTree") &&
					!strings.Contains(string(m["update"]), "OffsetCheckpoint") {
					t.Errorf("%s: %s", path, m["update"])
				}
			}
		}
	})
}

// TestWSCommitWhileStreamsRead: a commit made after the streams were
// woken, and after they read, wakes them again. The hub took the next
// commit's signal only after waking them, so such a commit closed no
// channel and its update waited for the next commit or the hub's poll
// (an hour here; a second by default): the wallet SDK, which waits for
// each completion on a stream, saw 170 ms where 15 ms were due.
func TestWSCommitWhileStreamsRead(t *testing.T) {
	forEachEngineWS(t, fastCheckpoints, func(t *testing.T, e *env) {
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		// From the end: nothing to send until the ledger moves.
		c := e.open("/v2/updates", "alice", holdingUpdates(alice, e.ledgerEnd()))
		// Hold the hub after its next wake until alice's stream has read.
		woken, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		e.api.AfterStreamWake(func() {
			once.Do(func() {
				close(woken)
				<-release
			})
		})
		defer e.api.AfterStreamWake(nil)
		ledgertest.Mint(t, e.l, bob, "5") // wakes the streams
		select {
		case <-woken:
		case <-time.After(30 * time.Second):
			t.Fatal("the hub did not wake for bob's mint")
		}
		// Alice's stream read after bob's mint: a checkpoint past it.
		bobs := e.ledgerEnd()
		for u := nextUpdate(t, c); u.checkpoint < bobs; u = nextUpdate(t, c) {
			if u.tx != nil {
				t.Fatalf("alice saw bob's update %+v", u.tx)
			}
		}
		// Now, with the streams waiting and the hub not yet waiting again.
		ledgertest.Mint(t, e.l, alice, "5")
		close(release)
		if tx := untilTx(t, c, bobs); tx.Offset != e.ledgerEnd() {
			t.Errorf("update at %d, want alice's mint at %d", tx.Offset, e.ledgerEnd())
		}
	})
}

// nextCompletion reads c's messages up to the next completion (past
// checkpoints).
func nextCompletion(t testing.TB, c *websocket.Conn) completion {
	t.Helper()
	for {
		m, s := next(t, c)
		if m == nil {
			t.Fatalf("closed %d before a completion", s)
		}
		var cr struct {
			Completion *struct {
				Value completion `json:"value"`
			} `json:"Completion"`
		}
		if err := json.Unmarshal(m["completionResponse"], &cr); err != nil {
			t.Fatalf("%v: %s", err, m["completionResponse"])
		}
		if cr.Completion != nil {
			return cr.Completion.Value
		}
	}
}

// TestWSCompletionsIdleOnOthersCommands: a completions stream reads the
// ledger when its user's command commits here, not at every commit:
// bob's five commands leave alice's stream waiting (it read five times,
// once per commit, before; the SDK opens a stream per transfer, so each
// commit read once per client waiting), and alice's own comes at once.
func TestWSCompletionsIdleOnOthersCommands(t *testing.T) {
	forEachEngineWS(t, streams.Config{Poll: time.Hour}, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "100"), e.user("bob", "100")
		toAlice, _, err := e.l.Preapprovals().Create(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		toBob, _, err := e.l.Preapprovals().Create(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		submit := func(user string, pre coin.ContractID, sender coin.PartyID, id string) int64 {
			t.Helper()
			r, err := e.as(user).PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, preapprovalSend(string(pre), sender, sender, id)))
			if err != nil || r.JSON200 == nil {
				t.Fatalf("submit %s: %v %s", id, err, r.Body)
			}
			return r.JSON200.CompletionOffset
		}
		submit("alice", toBob, alice, "before")
		c := e.open("/v2/commands/completions", "alice", map[string]any{"userId": "alice", "parties": []coin.PartyID{alice}, "beginExclusive": e.ledgerEnd()})
		for deadline := time.Now().Add(wsTimeout); e.api.StreamReads() == 0; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the stream never read")
			}
		}
		before := e.api.StreamReads()
		for i := range 5 {
			submit("bob", toAlice, bob, fmt.Sprintf("bob-%d", i))
		}
		// The wakes of bob's commits are done once alice's own command's
		// completion has come: each wake read or did not before it.
		want := submit("alice", toBob, alice, "mine")
		if got := nextCompletion(t, c); got.CommandID != "mine" || got.Offset != want {
			t.Fatalf("completion %+v, want mine at %d", got, want)
		}
		// Alice's command: one read, maybe two (its commit's wake, and a
		// wake that read before the stable end reached it).
		if n := e.api.StreamReads() - before; n > 2 {
			t.Errorf("alice's stream read %d times for bob's 5 commands and her 1, want at most 2", n)
		}
	})
}

// TestWSCompletions: /v2/commands/completions sends the completion of a
// submission as it commits.
func TestWSCompletions(t *testing.T) {
	forEachEngineWS(t, streams.Config{}, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		pre, _, err := e.l.Preapprovals().Create(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		begin := e.ledgerEnd()
		c := e.open("/v2/commands/completions", "alice", map[string]any{"userId": "alice", "parties": []coin.PartyID{alice}, "beginExclusive": begin})
		r, err := e.as("alice").PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, preapprovalSend(string(pre), alice, alice, "ws-1")))
		if err != nil || r.JSON200 == nil {
			t.Fatalf("submit: %v %s", err, r.Body)
		}
		got := nextCompletion(t, c)
		if got.CommandID != "ws-1" || got.Status.Code != 0 || got.UpdateID != r.JSON200.UpdateId || got.Offset != r.JSON200.CompletionOffset {
			t.Errorf("completion %+v, want ws-1 at %d", got, r.JSON200.CompletionOffset)
		}
	})
}

// TestWSActiveContracts: /v2/state/active-contracts sends the whole
// snapshot at activeAtOffset, past one page (apiread.MaxAPIPage), each
// contract once, then closes (1000).
func TestWSActiveContracts(t *testing.T) {
	forEachEngineWS(t, streams.Config{}, func(t *testing.T, e *env) {
		alice := e.user("alice", "")
		n := apiread.MaxAPIPage + 5
		for range n {
			ledgertest.Mint(t, e.l, alice, "1")
		}
		at := e.ledgerEnd()
		ledgertest.Mint(t, e.l, alice, "1") // after the snapshot
		c := e.open("/v2/state/active-contracts", "alice", map[string]any{"activeAtOffset": at, "verbose": false,
			"eventFormat": filter(alice, interfaceFilter(holdingIface, true, false))})
		seen := map[string]bool{}
		for {
			m, s := next(t, c)
			if m == nil {
				if s != websocket.StatusNormalClosure {
					t.Errorf("closed %d, want 1000", s)
				}
				break
			}
			var entry struct {
				JsActiveContract struct {
					CreatedEvent createdEvent `json:"createdEvent"`
				} `json:"JsActiveContract"`
			}
			if err := json.Unmarshal(m["contractEntry"], &entry); err != nil {
				t.Fatal(err)
			}
			cid := entry.JsActiveContract.CreatedEvent.ContractID
			if seen[cid] || cid == "" || entry.JsActiveContract.CreatedEvent.Offset > at {
				t.Errorf("entry %+v again, or after %d", entry, at)
			}
			seen[cid] = true
		}
		if len(seen) != n {
			t.Errorf("%d contracts, want %d", len(seen), n)
		}
	})
}

// TestWSAuth: the handshake needs a token (401 without, 403 for a user
// the ledger does not know), by subprotocol or Bearer header; a request
// for another party's data ends with PERMISSION_DENIED (close 1000), as
// the POST form refuses it; a revoked right ends an open stream with
// STALE_STREAM_AUTHORIZATION.
func TestWSAuth(t *testing.T) {
	forEachEngineWS(t, streams.Config{Ping: 100 * time.Millisecond}, func(t *testing.T, e *env) {
		alice, bob := e.user("alice", "1"), e.user("bob", "1")
		for _, tc := range []struct {
			user   string
			status int
		}{{"", http.StatusUnauthorized}, {"mallory", http.StatusForbidden}} {
			_, res, err := e.dial("/v2/updates", tc.user)
			if err == nil || res == nil || res.StatusCode != tc.status {
				t.Errorf("dial as %q: %v %v, want %d", tc.user, err, res, tc.status)
			}
		}
		// A Bearer header, as a server-side client sends it.
		ctx, cancel := context.WithTimeout(context.Background(), wsTimeout)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/v2/updates",
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + e.token("alice")}}})
		if err != nil {
			t.Fatalf("dial with a Bearer header: %v", err)
		}
		defer c.CloseNow()
		send(t, c, holdingUpdates(alice, 0))
		if untilTx(t, c, 0) == nil {
			t.Fatal("no update")
		}

		// Bob's data, asked by alice.
		c = e.open("/v2/updates", "alice", holdingUpdates(bob, 0))
		wantClose(t, "bob's updates as alice", c, "PERMISSION_DENIED", websocket.StatusNormalClosure)
		c = e.open("/v2/state/active-contracts", "alice", map[string]any{"activeAtOffset": e.ledgerEnd(), "eventFormat": filter(bob)})
		wantClose(t, "bob's contracts as alice", c, "PERMISSION_DENIED", websocket.StatusNormalClosure)
		c = e.open("/v2/commands/completions", "alice", map[string]any{"userId": "alice", "parties": []coin.PartyID{bob}, "beginExclusive": 0})
		wantClose(t, "bob's completions as alice", c, "PERMISSION_DENIED", websocket.StatusNormalClosure)
		c = e.open("/v2/commands/completions", "alice", map[string]any{"userId": "bob", "parties": []coin.PartyID{alice}, "beginExclusive": 0})
		wantClose(t, "another user's completions", c, "PERMISSION_DENIED", websocket.StatusNormalClosure)

		// A right revoked while the stream is open ends it.
		c = e.open("/v2/updates", "alice", holdingUpdates(alice, 0))
		untilTx(t, c, 0)
		rs, err := e.w.UserRights.RightsOf(context.Background(), mustUser(t, e, "alice"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.as(adminUser).PatchV2UsersUserIdRightsWithBodyWithResponse(context.Background(), "alice", jsonType, body(t, map[string]any{
			"userId": "alice", "identityProviderId": "", "rights": []any{map[string]any{"kind": map[string]any{"CanActAs": map[string]any{"value": map[string]any{"party": alice}}}}}}))
		if err != nil || r.StatusCode() != http.StatusOK {
			t.Fatalf("revoke: %v %s (rights %+v)", err, r.Body, rs)
		}
		for {
			m, s := next(t, c)
			if m == nil {
				t.Fatalf("closed %d without an error", s)
			}
			if _, ok := m["code"]; ok {
				if !strings.Contains(string(m["code"]), "STALE_STREAM_AUTHORIZATION") {
					t.Errorf("error %v, want STALE_STREAM_AUTHORIZATION", m)
				}
				break
			}
		}
		if _, s := next(t, c); s != websocket.StatusNormalClosure {
			t.Errorf("close %d, want 1000", s)
		}
	})
}

func mustUser(t testing.TB, e *env, name string) ledger.UserInfo {
	t.Helper()
	u, err := users.Of(e.l).Get(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestWSLimits: a user's PerUser+1th socket and the Total+1th in all are
// refused with PARTICIPANT_BACKPRESSURE and close 1013 (try again later);
// a socket closed frees its place; the server's end closes the rest with
// 1001.
func TestWSLimits(t *testing.T) {
	forEachEngineWS(t, streams.Config{PerUser: 2, Total: 3}, func(t *testing.T, e *env) {
		alice, bob := e.user("alice", ""), e.user("bob", "")
		e.user("carol", "")
		req := func(p coin.PartyID) map[string]any { return holdingUpdates(p, e.ledgerEnd()) }
		a1 := e.open("/v2/updates", "alice", req(alice))
		e.open("/v2/updates", "alice", req(alice))
		wantClose(t, "alice's third", e.open("/v2/updates", "alice", req(alice)), "PARTICIPANT_BACKPRESSURE", websocket.StatusTryAgainLater)
		b1 := e.open("/v2/updates", "bob", req(bob))
		wantClose(t, "the fourth in all", e.open("/v2/updates", "carol", req(bob)), "PARTICIPANT_BACKPRESSURE", websocket.StatusTryAgainLater)
		b1.Close(websocket.StatusNormalClosure, "")
		// Bob's place is free once the server saw the close.
		for i := 0; ; i++ {
			c := e.open("/v2/updates", "bob", req(bob))
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			_, _, err := c.Read(ctx)
			cancel()
			if errors.Is(err, context.DeadlineExceeded) {
				break // open: it waits for updates
			}
			if i > 100 {
				t.Fatalf("bob's place never came free: %v", err)
			}
		}
		e.api.Wait()
		if _, s := next(t, a1); s != websocket.StatusGoingAway {
			t.Errorf("at shutdown: close %d, want 1001", s)
		}
	})
}

// TestWSErrors: a request the POST form refuses ends the stream with the
// same JsCantonError and close 1000; a first message that is not the
// request's JSON with INVALID_ARGUMENT and close 1011.
func TestWSErrors(t *testing.T) {
	forEachEngineWS(t, streams.Config{}, func(t *testing.T, e *env) {
		alice := e.user("alice", "1")
		end := e.ledgerEnd()
		for _, tc := range []struct {
			what, path string
			req        any
			code       string
			status     websocket.StatusCode
		}{
			{"not JSON", "/v2/updates", "{", "INVALID_ARGUMENT", websocket.StatusInternalError},
			{"no filter", "/v2/updates", map[string]any{"beginExclusive": 0}, "INVALID_ARGUMENT", websocket.StatusNormalClosure},
			{"begin after the end", "/v2/updates", holdingUpdates(alice, end+100), "OFFSET_AFTER_LEDGER_END", websocket.StatusNormalClosure},
			{"no offset", "/v2/state/active-contracts", map[string]any{"eventFormat": filter(alice)}, "MISSING_FIELD", websocket.StatusNormalClosure},
			{"no parties", "/v2/commands/completions", map[string]any{"userId": "alice", "beginExclusive": 0}, "MISSING_FIELD", websocket.StatusNormalClosure},
		} {
			c, _, err := e.dial(tc.path, "alice")
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := tc.req.(string); ok {
				if err := c.Write(context.Background(), websocket.MessageText, []byte(s)); err != nil {
					t.Fatal(err)
				}
			} else {
				send(t, c, tc.req)
			}
			wantClose(t, tc.what, c, tc.code, tc.status)
		}
	})
}

// TestWSDeadPeers: a peer that stops answering pings is dropped, which
// frees its place; a token that expires ends its stream with
// ACCESS_TOKEN_EXPIRED; a socket yet to send its request does not hold
// the server's stop up.
func TestWSDeadPeers(t *testing.T) {
	forEachEngineWS(t, streams.Config{PerUser: 1, Ping: 50 * time.Millisecond}, func(t *testing.T, e *env) {
		alice := e.user("alice", "1")
		// This client never reads again, so it answers no ping.
		e.open("/v2/updates", "alice", holdingUpdates(alice, e.ledgerEnd()))
		for i := 0; ; i++ {
			c := e.open("/v2/updates", "alice", holdingUpdates(alice, 0))
			m, s := next(t, c)
			if m == nil {
				t.Fatalf("closed %d without a message", s)
			}
			if _, refused := m["code"]; !refused {
				break // an update or checkpoint: the dead peer's place was freed
			}
			if i > 200 {
				t.Fatal("the silent peer was never dropped")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	forEachEngineWS(t, streams.Config{}, func(t *testing.T, e *env) {
		alice := e.user("alice", "1")
		tok, err := web.SignDevToken(e.signer, testKID, "", testAudience, "alice", 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), wsTimeout)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/v2/updates",
			&websocket.DialOptions{Subprotocols: []string{"jwt.token." + tok, "daml.ws.auth"}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		send(t, c, holdingUpdates(alice, 0))
		for {
			m, s := next(t, c)
			if m == nil {
				t.Fatalf("closed %d without ACCESS_TOKEN_EXPIRED", s)
			}
			if code, ok := m["code"]; ok {
				if string(code) != `"ACCESS_TOKEN_EXPIRED"` {
					t.Errorf("error %s, want ACCESS_TOKEN_EXPIRED", code)
				}
				break
			}
		}

		// A socket still to send its request does not hold the server's
		// stop up.
		if _, _, err := e.dial("/v2/updates", "alice"); err != nil {
			t.Fatal(err)
		}
		stopped := make(chan struct{})
		go func() { e.api.Wait(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(wsTimeout):
			t.Fatal("Wait still waits for a socket without its request")
		}
	})
}

// TestWSRestore: a development network's restore rewinds the offsets, so
// it ends every open stream: SERVICE_NOT_RUNNING, then close 1012
// (service restart); an idle stream does not hold the restore up.
func TestWSRestore(t *testing.T) {
	forEachEngineWS(t, streams.Config{}, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice := e.user("alice", "1")
		d := devnet.New(e.l)
		if _, err := d.Snapshot(ctx, "base"); err != nil {
			t.Fatal(err)
		}
		c := e.open("/v2/updates", "alice", holdingUpdates(alice, 0))
		untilTx(t, c, 0)
		if err := d.Restore(ctx, "base"); err != nil {
			t.Fatalf("restore with a stream open: %v", err)
		}
		for {
			m, s := next(t, c)
			if m == nil {
				t.Fatalf("closed %d without an error", s)
			}
			if code, ok := m["code"]; ok {
				if string(code) != `"SERVICE_NOT_RUNNING"` {
					t.Errorf("error %s, want SERVICE_NOT_RUNNING", code)
				}
				break
			}
		}
		if _, s := next(t, c); s != websocket.StatusServiceRestart {
			t.Errorf("close %d, want 1012", s)
		}
	})
}
