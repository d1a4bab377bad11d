package ledgerapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger/apiread"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
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
//     forms take, decoded, checked and answered by the same code (reads.go,
//     completions.go). Later messages are ignored, as Canton takes one.
//   - Updates and completions come as they commit, each a message, with an
//     OffsetCheckpoint once the stream has caught up past what it sent (at
//     most one per StreamConfig.Checkpoint); endInclusive, when given, ends
//     the stream there; the active contracts end after the snapshot.
//   - An error, the request's or the ledger's, is a JsCantonError message,
//     then a normal close (1000): Canton sends its errors so, as elements
//     of the stream. A first message that is not the request's JSON closes
//     with 1011 (Canton's stream fails), after its error message.
//
// Bounds: at most StreamConfig.PerUser sockets per user and Total in all
// (one more gets PARTICIPANT_BACKPRESSURE and close 1013, try again
// later); messages from the client at most canton.MaxBody; the request must come
// within wsRequestTimeout; a ping every StreamConfig.Ping drops a peer that
// does not answer within wsPongTimeout (or the period, if shorter); a write that cannot go out within
// wsWriteTimeout drops a client that does not read. A socket waiting for
// commits holds no database connection: one hub (streamHub) wakes the
// sockets when this process commits (ledger.Committed) and, for other
// replicas' commits, polls the ledger end once per StreamConfig.Poll; a
// woken socket reads what is new in pages, at most StreamConfig.Reads
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
	// server answers with; the token rides beside it as jwt.token.<token>.
	wsSubprotocol = "daml.ws.auth"
	wsTokenPrefix = "jwt.token."
)

// requestToken is the caller's token: an Authorization: Bearer header or,
// as a browser's WebSocket can send no header, the jwt.token.<token>
// subprotocol (Canton takes either on every endpoint); "" for none.
func requestToken(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, raw, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return ""
		}
		return strings.TrimSpace(raw)
	}
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(h, ",") {
			if tok, ok := strings.CutPrefix(strings.TrimSpace(p), wsTokenPrefix); ok {
				return tok
			}
		}
	}
	return ""
}

// streamKind is what one socket streams: it checks the request message
// (decoded into its own type) for the caller and then sends until done.
type streamKind interface {
	// request is where the first message decodes to.
	request() any
	// check checks the decoded request for c (again at each recheck).
	check(c *canton.Caller) error
	// run streams to ws until the stream is done (nil) or fails.
	run(ws *wsStream) error
}

// wsStream is one open socket.
type wsStream struct {
	s      *Server
	conn   *websocket.Conn
	ctx    context.Context
	kind   streamKind
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

// stream serves a WebSocket of kind (a new one per request).
func (s *Server) stream(kind func() streamKind) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, claims, err := s.authenticateToken(r.Context(), requestToken(r))
		if err == nil {
			if ok, retry := s.lim.Allow("user:" + c.User.Name); !ok {
				web.RetryAfter(w, retry)
				err = canton.Err(canton.CodeBackpressure, "user %q sends requests faster than this participant allows; retry in %s", c.User.Name, retry.Round(time.Second))
			}
		}
		if err != nil {
			canton.WriteError(s.log, w, r, err)
			return
		}
		opts := &websocket.AcceptOptions{
			// The token rides in the request, never in a cookie, so a page
			// of another origin gains nothing a script could not do
			// itself: any origin may connect, as to Canton.
			InsecureSkipVerify: true,
		}
		for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
			if strings.Contains(h, wsSubprotocol) {
				opts.Subprotocols = []string{wsSubprotocol}
			}
		}
		// Counted before the handshake ends, so a client that saw its
		// socket open holds its place.
		refused := s.streams.join(c.User.Name)
		if refused == nil {
			defer s.streams.leave(c.User.Name)
		}
		conn, err := websocket.Accept(w, r, opts)
		if err != nil {
			return // Accept answered the client
		}
		conn.SetReadLimit(canton.MaxBody)
		ws := &wsStream{s: s, conn: conn, kind: kind(), claims: claims, caller: c, checked: time.Now()}
		if refused != nil {
			ws.fail(refused)
			conn.Close(websocket.StatusTryAgainLater, "too many streams")
			return
		}
		ws.serve(r.Context())
	})
}

// serve runs the stream and closes the socket with its outcome.
func (ws *wsStream) serve(parent context.Context) {
	hub := ws.s.streams
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
	if err := canton.Decode(body, ws.kind.request()); err != nil {
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
			case <-hub.restoredSignal():
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

	err = ws.kind.check(ws.caller)
	if err == nil {
		err = ws.kind.run(ws)
	}
	var why *closeError
	select {
	case why = <-whyc:
	default:
	}
	switch {
	case why != nil:
		if why.code == websocket.StatusServiceRestart {
			ws.send(canton.Of(ledger.ErrUnavailable).Body(""))
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
func (ws *wsStream) fail(err error) {
	ce := canton.Of(err)
	if ce.Code == canton.CodeInternal {
		ws.s.log.Error("ledger api stream failed", "user", ws.caller.User.Name, "err", err)
	}
	ws.send(ce.Body(""))
}

// send writes one message, within wsWriteTimeout.
func (ws *wsStream) send(v any) error {
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

// read runs fn, a read of the ledger, once the hub lets it (at most Reads
// at a time) and the development network is not being restored, after
// checking the caller's rights again if they are older than wsRecheck.
func (ws *wsStream) read(fn func(ctx context.Context) error) error {
	if err := ws.recheck(false); err != nil {
		return err
	}
	hub := ws.s.streams
	select {
	case hub.reads <- struct{}{}:
	case <-ws.ctx.Done():
		return ws.ctx.Err()
	}
	defer func() { <-hub.reads }()
	hub.readsDone.Add(1)
	done, err := ws.s.l.Admit()
	if err != nil {
		return err
	}
	defer done()
	return fn(ws.ctx)
}

// recheck reads the caller's rights again (when force, or when older than
// wsRecheck) and checks the request with them; an expired token or a
// right gone ends the stream.
func (ws *wsStream) recheck(force bool) error {
	now := time.Now()
	if !ws.claims.Expiry.IsZero() && !now.Before(ws.claims.Expiry) {
		return canton.Err(canton.CodeTokenExpired, "the access token expired; reconnect with a new one")
	}
	if !force && now.Sub(ws.checked) < wsRecheck {
		return nil
	}
	c, err := ws.s.callerFor(ws.ctx, ws.claims)
	if err == nil {
		err = ws.kind.check(c)
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
func (ws *wsStream) wait(wake <-chan struct{}, checkpoint time.Duration) bool {
	var due <-chan time.Time
	if checkpoint > 0 {
		t := time.NewTimer(checkpoint)
		defer t.Stop()
		due = t.C
	}
	recheck := time.NewTimer(ws.s.streams.cfg.Ping)
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
func (ws *wsStream) checkpointDue() (bool, time.Duration) {
	left := ws.s.streams.cfg.Checkpoint - time.Since(ws.lastCheckpoint)
	return left <= 0, left
}

// follow is the loop of a live stream: read what follows pos (read
// returns the new position, the offset of the last message sent and
// whether it read a whole page), and once caught up send a checkpoint
// past what was sent, then wait for the ledger to move; end (0: none)
// ends the stream at that offset.
func (ws *wsStream) follow(pos, end int64, read func(pos int64) (next, last int64, more bool, err error), checkpoint func(offset int64) any) error {
	sent := pos
	for {
		wake := ws.s.streams.moved()
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
				return ws.send(checkpoint(pos))
			}
			return nil
		}
		var left time.Duration
		if pos > sent {
			var due bool
			if due, left = ws.checkpointDue(); due {
				if err := ws.send(checkpoint(pos)); err != nil {
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

// updatesStream is GET /v2/updates, /v2/updates/flats and
// /v2/updates/trees.
type updatesStream struct {
	req   updatesRequest
	trees bool
	ef    *eventFormat
	begin int64
	end   int64
}

func (u *updatesStream) request() any { return &u.req }

func (u *updatesStream) check(c *canton.Caller) (err error) {
	u.ef, u.begin, u.end, err = u.req.parse(c, u.trees)
	return err
}

func (u *updatesStream) run(ws *wsStream) error {
	return ws.follow(u.begin, u.end, func(pos int64) (int64, int64, bool, error) {
		var ups []apiread.LedgerUpdate
		var scanned int64
		err := ws.read(func(ctx context.Context) (err error) {
			ups, scanned, err = ws.s.w.APIRead.Updates(ctx, u.ef.ledgerFilter(), pos, u.end, apiread.MaxAPIPage)
			return err
		})
		if err != nil {
			return 0, 0, false, err
		}
		last := pos
		for _, up := range ups {
			for _, m := range ws.s.updateMessages([]apiread.LedgerUpdate{up}, u.ef, u.trees) {
				if err := ws.send(m); err != nil {
					return 0, 0, false, err
				}
				last = up.Offset
			}
		}
		return scanned, last, len(ups) == apiread.MaxAPIPage, nil
	}, func(offset int64) any {
		return map[string]any{"update": map[string]any{"OffsetCheckpoint": ws.s.offsetCheckpoint(offset)}}
	})
}

// completionsStream is GET /v2/commands/completions.
type completionsStream struct {
	req     completionsRequest
	parties []coin.PartyID
	begin   int64
	// What the last read knew: the hub's poll count and when it read.
	read   bool
	polled uint64
	readAt time.Time
}

// idle says whether a read after pos would find nothing: no completion
// of the user committed here past pos (the ledger's mark) and no poll
// saw another replica move the ledger since the last read, which was
// less than a checkpoint period ago (a read now and then moves the
// position, for the checkpoints). Each commit wakes every stream; with
// the SDK's stream per transfer, 8 clients read 8 times per commit.
func (cs *completionsStream) idle(ws *wsStream, user string, pos int64) bool {
	hub := ws.s.streams
	polled := hub.polled.Load()
	if cs.read && ws.s.l.CompletionMark(user) <= pos && polled == cs.polled && time.Since(cs.readAt) < hub.cfg.Checkpoint {
		return true
	}
	cs.read, cs.polled, cs.readAt = true, polled, time.Now()
	return false
}

func (cs *completionsStream) request() any { return &cs.req }

func (cs *completionsStream) check(c *canton.Caller) (err error) {
	cs.parties, cs.begin, err = cs.req.parse(c)
	return err
}

func (cs *completionsStream) run(ws *wsStream) error {
	user := ws.s.userKey(ws.caller.User.Name)
	return ws.follow(cs.begin, 0, func(pos int64) (int64, int64, bool, error) {
		if cs.idle(ws, user, pos) {
			return pos, pos, false, nil
		}
		var end int64
		var got []ledger.Completion
		err := ws.read(func(ctx context.Context) (err error) {
			// The end the read went up to: every completion up to it is
			// in it.
			got, end, err = ws.s.completionsOf(ctx, ws.caller.User.Name, cs.parties, pos, apiread.MaxAPIPage)
			return err
		})
		if err != nil {
			return 0, 0, false, err
		}
		last := pos
		for _, c := range got {
			if err := ws.send(ws.s.completionMessage(c)); err != nil {
				return 0, 0, false, err
			}
			last = c.Offset
		}
		if len(got) == apiread.MaxAPIPage {
			return last, last, true, nil
		}
		return max(end, last), last, false, nil
	}, func(offset int64) any { return ws.s.completionCheckpoint(offset) })
}

// acsStream is GET /v2/state/active-contracts: the snapshot, page by page,
// then the close.
type acsStream struct {
	req acsRequest
	ef  *eventFormat
	at  int64
}

func (a *acsStream) request() any { return &a.req }

func (a *acsStream) check(c *canton.Caller) (err error) {
	a.ef, a.at, err = a.req.parse(c)
	return err
}

func (a *acsStream) run(ws *wsStream) error {
	key := apiread.FirstContractKey
	for {
		var cs []apiread.LedgerContract
		err := ws.read(func(ctx context.Context) (err error) {
			cs, err = ws.s.w.APIRead.ActiveContractsAfter(ctx, a.ef.ledgerFilter(), a.at, key, apiread.MaxAPIPage)
			return err
		})
		if err != nil {
			return err
		}
		for _, ct := range cs {
			if e, ok := ws.s.acsEntryOf(ct, a.ef); ok {
				if err := ws.send(e); err != nil {
					return err
				}
			}
		}
		if len(cs) < apiread.MaxAPIPage {
			return nil
		}
		last := cs[len(cs)-1]
		key = apiread.ContractKey{Offset: last.CreatedOffset, ContractID: last.ContractID}
	}
}
