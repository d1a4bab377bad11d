// Package streams serves the Ledger API's streams as WebSockets: the
// handshake and its token, the request message, the pings, the caps on
// open sockets, the hub that wakes them when the ledger moves, the
// rechecks of the caller's rights, the offset checkpoints and the close
// codes. What a stream sends is a Kind, ledgerapi's (updates,
// completions, active contracts); the server's authentication comes in
// an Auth when it builds the Hub (New).
package streams

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/web"
	"github.com/coder/websocket"
)

// The Ledger API's streams as WebSockets (shared/specs/
// ledger-api-v2-asyncapi-3.4.7.yaml), as Canton's JSON API serves them:
// GET /v2/updates (and its legacy /v2/updates/flats and /v2/updates/trees),
// /v2/commands/completions and /v2/state/active-contracts.
//
//   - The caller authenticates at the handshake, by an Authorization:
//     Bearer header or by the subprotocol jwt.token.<token>, offered beside
//     daml.ws.auth, which the server echoes as Canton does. A missing or
//     bad token is refused there with 401, an unknown user with 403, each a
//     JsCantonError, before the upgrade.
//   - The client's first message is the request: the same JSON as the POST
//     forms take, decoded, checked and answered by the same code
//     (ledgerapi's reads.go and completions.go, through its Kind). Later
//     messages are ignored, as Canton takes one.
//   - Updates and completions come as they commit, each a message, with an
//     OffsetCheckpoint once the stream has caught up past what it sent (at
//     most one per Config.Checkpoint); endInclusive, when given, ends
//     the stream there; the active contracts end after the snapshot.
//   - An error, the request's or the ledger's, is a JsCantonError message,
//     then a normal close (1000): Canton sends its errors so, as elements
//     of the stream. A first message that is not the request's JSON closes
//     with 1011 (Canton's stream fails), after its error message.
//
// Bounds: at most Config.PerUser sockets per user and Total in all
// (one more gets PARTICIPANT_BACKPRESSURE and close 1013, try again
// later); messages from the client at most canton.MaxBody; the request must come
// within wsRequestTimeout; a ping every Config.Ping drops a peer that
// does not answer within wsPongTimeout (or the period, if shorter); a write that cannot go out within
// wsWriteTimeout drops a client that does not read. A socket waiting for
// commits holds no database connection: one hub (Hub) wakes the
// sockets when this process commits (ledger.Committed) and, for other
// replicas' commits, polls the ledger end once per Config.Poll; a
// woken socket reads what is new in pages, at most Config.Reads
// sockets at a time. The rights are checked again at least every
// wsRecheck before the stream sends more, and at each ping: a revoked
// right or a deactivated user ends the stream with
// STALE_STREAM_AUTHORIZATION, an expired token with ACCESS_TOKEN_EXPIRED,
// as Canton does. A development network's restore ends every stream
// (close 1012, service restart: the offsets rewound), and the server's
// shutdown too (close 1001, going away).

// Bounds of one socket.
const (
	wsRequestTimeout = 30 * time.Second
	wsWriteTimeout   = 10 * time.Second
	wsPongTimeout    = 15 * time.Second
	wsRecheck        = 5 * time.Second
	// wsSubprotocol is the subprotocol Canton's clients offer and its
	// server answers with; the token rides beside it as jwt.token.<token>
	// (canton.RequestToken).
	wsSubprotocol = "daml.ws.auth"
)

// Kind is what one socket streams: it checks the request message
// (decoded into its own type) for the caller and then sends until done.
type Kind interface {
	// Request is where the first message decodes to.
	Request() any
	// Check checks the decoded request for c (again at each recheck).
	Check(c *canton.Caller) error
	// Run streams to ws until the stream is done (nil) or fails.
	Run(ws *Stream) error
}

// Auth is how the streams know their callers: the Ledger API server's
// authentication, given to New.
type Auth struct {
	// Token is the caller a token names (canton.RequestToken's) with its
	// verified claims, or the JsCantonError refusing it.
	Token func(ctx context.Context, raw string) (*canton.Caller, web.Claims, error)
	// Claims is the caller of claims verified before, its rights read
	// again (a recheck).
	Claims func(ctx context.Context, claims web.Claims) (*canton.Caller, error)
}

// Stream is one open socket.
type Stream struct {
	hub    *Hub
	conn   *websocket.Conn
	ctx    context.Context
	kind   Kind
	claims web.Claims
	caller *canton.Caller
	// checked is when the rights were last read.
	checked time.Time
	// lastCheckpoint is when the last OffsetCheckpoint went out.
	lastCheckpoint time.Time
}

// closeError ends a stream with a close code rather than an error message.
type closeError struct {
	code   websocket.StatusCode
	reason string
}

func (e *closeError) Error() string { return e.reason }

// Handler serves a WebSocket of kind (a new one per request).
func (h *Hub) Handler(kind func() Kind) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, claims, err := h.auth.Token(r.Context(), canton.RequestToken(r))
		if err == nil {
			if ok, retry := h.lim.Allow("user:" + c.User.Name); !ok {
				web.RetryAfter(w, retry)
				err = canton.Err(canton.CodeBackpressure, "user %q sends requests faster than this participant allows; retry in %s", c.User.Name, retry.Round(time.Second))
			}
		}
		if err != nil {
			canton.WriteError(h.log, w, r, err)
			return
		}
		opts := &websocket.AcceptOptions{
			// The token rides in the request, never in a cookie, so a page
			// of another origin gains nothing a script could not do
			// itself: any origin may connect, as to Canton.
			InsecureSkipVerify: true,
		}
		for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
			if strings.Contains(v, wsSubprotocol) {
				opts.Subprotocols = []string{wsSubprotocol}
			}
		}
		// Counted before the handshake ends, so a client that saw its
		// socket open holds its place.
		refused := h.join(c.User.Name)
		if refused == nil {
			defer h.leave(c.User.Name)
		}
		conn, err := websocket.Accept(w, r, opts)
		if err != nil {
			return // Accept answered the client
		}
		conn.SetReadLimit(canton.MaxBody)
		ws := &Stream{hub: h, conn: conn, kind: kind(), claims: claims, caller: c, checked: time.Now()}
		if refused != nil {
			ws.fail(refused)
			conn.Close(websocket.StatusTryAgainLater, "too many streams")
			return
		}
		ws.serve(r.Context())
	})
}

// serve runs the stream and closes the socket with its outcome.
func (ws *Stream) serve(parent context.Context) {
	hub := ws.hub
	// Taken once, first: a restore replaces the hub's signal, so one
	// taken anew in the pinger's loop missed a restore that came before
	// the pinger first waited, or during a ping, and the stream went on
	// (TestWSRestore, 1 run in 40 on a loaded machine).
	restored := hub.restoredSignal()
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	defer cancel()
	ws.ctx = ctx

	// The request: the first message, within wsRequestTimeout.
	rctx, rcancel := context.WithTimeout(ctx, wsRequestTimeout)
	go func() {
		select {
		case <-hub.shutdown: // the server stops: no waiting for the request
			rcancel()
		case <-rctx.Done():
		}
	}()
	_, msg, err := ws.conn.Read(rctx)
	rcancel()
	if err != nil {
		if websocket.CloseStatus(err) == -1 {
			ws.conn.Close(websocket.StatusPolicyViolation, "send the request as the first message")
		}
		return
	}
	// Decoded as the POST form decodes its body.
	body := &http.Request{Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(msg))}
	if err := canton.Decode(body, ws.kind.Request()); err != nil {
		var de *canton.DecodeError
		if errors.As(err, &de) {
			ws.fail(canton.InvalidArgument("the request message: %s", de.Msg))
			ws.conn.Close(websocket.StatusInternalError, "the request does not decode")
			return
		}
		ws.fail(err)
		ws.conn.Close(websocket.StatusNormalClosure, "")
		return
	}

	// From here on the client's messages are read and dropped, so that
	// pings, pongs and its close are handled; its leaving ends the stream.
	// (A cancelled context would close the connection at once, without
	// the close frame: the reader's is never cancelled, the close ends it.)
	go func() {
		defer cancel()
		for {
			if _, _, err := ws.conn.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	// The pings, and the server's end.
	ended := make(chan struct{})
	defer close(ended)
	whyc := make(chan *closeError, 1)
	go func() {
		ping := time.NewTicker(hub.cfg.Ping)
		defer ping.Stop()
		for {
			select {
			case <-ended:
				return
			case <-ctx.Done():
				return
			case <-hub.shutdown:
				whyc <- &closeError{websocket.StatusGoingAway, "the server is shutting down"}
				cancel()
				return
			case <-restored:
				whyc <- &closeError{websocket.StatusServiceRestart, "the network was restored; reconnect"}
				cancel()
				return
			case <-ping.C:
				pctx, pcancel := context.WithTimeout(context.Background(), min(wsPongTimeout, hub.cfg.Ping))
				err := ws.conn.Ping(pctx)
				pcancel()
				if err != nil {
					cancel() // a peer that does not answer is gone
					return
				}
			}
		}
	}()

	err = ws.kind.Check(ws.caller)
	if err == nil {
		err = ws.kind.Run(ws)
	}
	var why *closeError
	select {
	case why = <-whyc:
	default:
	}
	switch {
	case why != nil:
		if why.code == websocket.StatusServiceRestart {
			ws.Send(canton.Of(fault.ErrUnavailable).Body(""))
		}
		ws.conn.Close(why.code, why.reason)
	case ctx.Err() != nil:
		ws.conn.CloseNow() // the client left, or stopped answering
	case err != nil:
		ws.fail(err)
		ws.conn.Close(websocket.StatusNormalClosure, "")
	default:
		ws.conn.Close(websocket.StatusNormalClosure, "")
	}
}

// fail sends err as a JsCantonError message, logging a server failure.
func (ws *Stream) fail(err error) {
	ce := canton.Of(err)
	if ce.Code == canton.CodeInternal {
		ws.hub.log.Error("ledger api stream failed", "user", ws.caller.User.Name, "err", err)
	}
	ws.Send(ce.Body(""))
}

// Send writes one message, within wsWriteTimeout.
func (ws *Stream) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	// Not the stream's context: cancelling a write in progress makes the
	// websocket library drop the connection at once, so a stream ended by
	// a restore or a shutdown mid-message lost its error and close frame
	// (the client read EOF: TestWSRestore, 2 runs in 30). The stream's
	// loops stop on its context between messages; a write is bounded by
	// its own timeout.
	wctx, cancel := context.WithTimeout(context.Background(), wsWriteTimeout)
	defer cancel()
	return ws.conn.Write(wctx, websocket.MessageText, b)
}

// Read runs fn, a read of the ledger, once the hub lets it (at most Reads
// at a time) and the development network is not being restored, after
// checking the caller's rights again if they are older than wsRecheck.
func (ws *Stream) Read(fn func(ctx context.Context) error) error {
	if err := ws.recheck(false); err != nil {
		return err
	}
	hub := ws.hub
	select {
	case hub.reads <- struct{}{}:
	case <-ws.ctx.Done():
		return ws.ctx.Err()
	}
	defer func() { <-hub.reads }()
	hub.readsDone.Add(1)
	done, err := hub.l.Admit()
	if err != nil {
		return err
	}
	defer done()
	return fn(ws.ctx)
}

// recheck reads the caller's rights again (when force, or when older than
// wsRecheck) and checks the request with them; an expired token or a
// right gone ends the stream.
func (ws *Stream) recheck(force bool) error {
	now := time.Now()
	if !ws.claims.Expiry.IsZero() && !now.Before(ws.claims.Expiry) {
		return canton.Err(canton.CodeTokenExpired, "the access token expired; reconnect with a new one")
	}
	if !force && now.Sub(ws.checked) < wsRecheck {
		return nil
	}
	c, err := ws.hub.auth.Claims(ws.ctx, ws.claims)
	if err == nil {
		err = ws.kind.Check(c)
	}
	if err != nil {
		if ce := canton.Of(err); ce.Code == canton.CodeInternal || ce.Code == canton.CodeUnavailable {
			return err
		}
		return canton.Err(canton.CodeStaleAuthorization, "the stream's authorization changed: %s", canton.Of(err).Cause)
	}
	ws.caller, ws.checked = c, now
	return nil
}

// wait waits for the ledger to move past end (the hub's wake, taken
// before the read that found nothing more), for checkpoint (0: none) to
// come due, or for a recheck of the rights; false when the stream ends.
func (ws *Stream) wait(wake <-chan struct{}, checkpoint time.Duration) bool {
	var due <-chan time.Time
	if checkpoint > 0 {
		t := time.NewTimer(checkpoint)
		defer t.Stop()
		due = t.C
	}
	recheck := time.NewTimer(ws.hub.cfg.Ping)
	defer recheck.Stop()
	var expiry <-chan time.Time
	if !ws.claims.Expiry.IsZero() {
		t := time.NewTimer(time.Until(ws.claims.Expiry))
		defer t.Stop()
		expiry = t.C
	}
	select {
	case <-wake:
	case <-due:
	case <-expiry:
	case <-recheck.C:
		ws.checked = time.Time{} // the next read checks the rights first
	case <-ws.ctx.Done():
		return false
	}
	return true
}

// checkpointDue says whether an OffsetCheckpoint may go out now, or how
// long until it may.
func (ws *Stream) checkpointDue() (bool, time.Duration) {
	left := ws.hub.cfg.Checkpoint - time.Since(ws.lastCheckpoint)
	return left <= 0, left
}

// Follow is the loop of a live stream: read what follows pos (read
// returns the new position, the offset of the last message sent and
// whether it read a whole page), and once caught up send a checkpoint
// past what was sent, then wait for the ledger to move; end (0: none)
// ends the stream at that offset.
func (ws *Stream) Follow(pos, end int64, read func(pos int64) (next, last int64, more bool, err error), checkpoint func(offset int64) any) error {
	sent := pos
	for {
		wake := ws.hub.moved()
		next, last, more, err := read(pos)
		if err != nil {
			return err
		}
		pos, sent = next, max(sent, last)
		if more {
			continue
		}
		if end > 0 && pos >= end {
			if pos > sent {
				return ws.Send(checkpoint(pos))
			}
			return nil
		}
		var left time.Duration
		if pos > sent {
			var due bool
			if due, left = ws.checkpointDue(); due {
				if err := ws.Send(checkpoint(pos)); err != nil {
					return err
				}
				sent, ws.lastCheckpoint, left = pos, time.Now(), 0
			}
		}
		if !ws.wait(wake, left) {
			return nil
		}
	}
}

// Caller is the stream's caller, with its rights as last read.
func (ws *Stream) Caller() *canton.Caller { return ws.caller }

// Polled counts the hub's polls that saw the ledger end move (another
// replica's commits): a stream that skips reads on this process's
// commits reads again when it has moved.
func (ws *Stream) Polled() uint64 { return ws.hub.polled.Load() }

// CheckpointPeriod is the least time between two OffsetCheckpoints
// (Config.Checkpoint).
func (ws *Stream) CheckpointPeriod() time.Duration { return ws.hub.cfg.Checkpoint }
