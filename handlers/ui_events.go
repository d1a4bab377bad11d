package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/web"
)

// Caps on open /events streams, when UI sets none. A browser tab holds one
// stream and the tabs of a browser share a session; over HTTP/1.1 a browser
// opens at most six connections to a host anyway.
const (
	DefaultEventStreamsPerSession = 8
	DefaultEventStreamsPerUser    = 16
	DefaultEventStreams           = 1000
)

// eventKeepAlive is how often an idle stream sends a comment, so proxies
// do not time it out and a vanished client is noticed.
const eventKeepAlive = 15 * time.Second

// uiEvents serves GET /events: server-sent events telling the page that
// the user's history (and so its balance) changed.
//
// A stream holds no database connection and makes no query while open: one
// hub goroutine (eventHub) polls, once per interval, the newest history id
// of each party and the liveness of each session that has streams, one
// query at a time, and wakes the streams whose party changed. So thousands
// of streams cost the pool one connection at a time, and the other
// requests and /readyz never queue behind them (issue 21: 5,000 streams
// each polling made a balance request take 43 s and /readyz answer 503).
func (h *Handler) uiEvents(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	party := uiParty(r)
	sub, refused := h.events.join(s, party)
	if refused != "" {
		w.Header().Set("Retry-After", strconv.Itoa(int(eventRetryAfter.Seconds())))
		return &statusError{status: http.StatusTooManyRequests, msg: refused}
	}
	defer h.events.leave(sub)
	last, err := h.latestHistoryID(r.Context(), party)
	if err != nil {
		return err
	}
	rc, err := startEventStream(w, "connected")
	if err != nil {
		return nil
	}
	keepAlive := time.NewTicker(eventKeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil // the client went away: not an error
		case <-h.ui.Shutdown:
			return nil
		case <-sub.ended:
			return nil // logged out or timed out: the stream ends with the session
		case id := <-sub.changed:
			if id == last {
				continue
			}
			last = id
			fmt.Fprintf(w, "event: changed\ndata: %d\n\n", id)
		case <-keepAlive.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		}
		if err := rc.Flush(); err != nil {
			return nil
		}
	}
}

func (h *Handler) latestHistoryID(ctx context.Context, party coin.PartyID) (int64, error) {
	return latestHistoryID(ctx, h.l, party)
}

func latestHistoryID(ctx context.Context, l *ledger.Ledger, party coin.PartyID) (int64, error) {
	items, err := l.History(ctx, party, ledger.HistoryQuery{PageSize: 1})
	if err != nil || len(items) == 0 {
		return 0, err
	}
	return items[0].ID, nil
}

// startEventStream answers 200 with a server-sent event stream's headers
// and its first lines (retry: how long a browser waits before
// reconnecting, then a comment), flushed.
func startEventStream(w http.ResponseWriter, comment string) (*http.ResponseController, error) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: 5000\n: %s\n\n", comment)
	return rc, rc.Flush()
}

// countDown takes one from counts[k], dropping the key at zero.
func countDown(counts map[string]int, k string) {
	if counts[k]--; counts[k] <= 0 {
		delete(counts, k)
	}
}

// eventRetryAfter is the Retry-After of a refused stream.
const eventRetryAfter = 30 * time.Second

// eventHub counts the open streams against their caps and polls for them.
// Its goroutine runs only while there are streams.
type eventHub struct {
	l        *ledger.Ledger
	sessions *web.Sessions
	every    time.Duration
	// Caps: per session, per user, in all.
	perSession, perUser, total int

	mu        sync.Mutex
	subs      map[*eventSub]struct{}
	bySession map[string]int
	byUser    map[string]int
	running   bool
}

// eventSub is one open stream. seen and fresh belong to the hub goroutine
// (there is at most one at a time; the mutex orders them).
type eventSub struct {
	party   coin.PartyID
	session web.Session
	changed chan int64    // buffered 1: the newest id replaces an unread one
	ended   chan struct{} // closed by the hub when the session ends
	seen    int64
	fresh   bool
	closed  bool
}

func newEventHub(l *ledger.Ledger, ui *UI) *eventHub {
	orDefault := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	every := ui.EventInterval
	if every <= 0 {
		every = 2 * time.Second
	}
	return &eventHub{
		l: l, sessions: ui.Sessions, every: every,
		perSession: orDefault(ui.EventStreamsPerSession, DefaultEventStreamsPerSession),
		perUser:    orDefault(ui.EventStreamsPerUser, DefaultEventStreamsPerUser),
		total:      orDefault(ui.EventStreams, DefaultEventStreams),
		subs:       map[*eventSub]struct{}{}, bySession: map[string]int{}, byUser: map[string]int{},
	}
}

// join registers a stream of session s, or says why it is refused.
func (hub *eventHub) join(s *web.Session, party coin.PartyID) (*eventSub, string) {
	hub.mu.Lock()
	defer hub.mu.Unlock()
	switch {
	case hub.bySession[s.ID] >= hub.perSession:
		return nil, fmt.Sprintf("too many live-update streams for this login (at most %d); close some of the wallet's tabs", hub.perSession)
	case hub.byUser[s.User] >= hub.perUser:
		return nil, fmt.Sprintf("too many live-update streams for this user (at most %d); close some of the wallet's tabs or log out elsewhere", hub.perUser)
	case len(hub.subs) >= hub.total:
		return nil, "the server has too many live-update streams open; retry later"
	}
	sub := &eventSub{party: party, session: *s, changed: make(chan int64, 1), ended: make(chan struct{}), fresh: true}
	hub.subs[sub] = struct{}{}
	hub.bySession[s.ID]++
	hub.byUser[s.User]++
	if !hub.running {
		hub.running = true
		go hub.run()
	}
	return sub, ""
}

func (hub *eventHub) leave(sub *eventSub) {
	hub.mu.Lock()
	defer hub.mu.Unlock()
	delete(hub.subs, sub)
	countDown(hub.bySession, sub.session.ID)
	countDown(hub.byUser, sub.session.User)
}

func (hub *eventHub) run() {
	tick := time.NewTicker(hub.every)
	defer tick.Stop()
	for range tick.C {
		subs := hub.snapshot()
		if subs == nil {
			return
		}
		hub.poll(subs)
	}
}

// snapshot lists the open streams; with none it stops the hub (nil).
func (hub *eventHub) snapshot() []*eventSub {
	hub.mu.Lock()
	defer hub.mu.Unlock()
	if len(hub.subs) == 0 {
		hub.running = false
		return nil
	}
	subs := make([]*eventSub, 0, len(hub.subs))
	for sub := range hub.subs {
		subs = append(subs, sub)
	}
	return subs
}

// poll asks once per session whether it is alive and once per party for
// its newest history id, and tells the streams.
func (hub *eventHub) poll(subs []*eventSub) {
	ctx, cancel := context.WithTimeout(context.Background(), max(hub.every, 5*time.Second))
	defer cancel()
	alive := map[string]bool{}
	ids := map[coin.PartyID]int64{}
	failed := map[coin.PartyID]bool{}
	for _, sub := range subs {
		if sub.closed {
			continue
		}
		ok, known := alive[sub.session.ID]
		if !known {
			ok = hub.sessions.Alive(&sub.session)
			alive[sub.session.ID] = ok
		}
		if !ok {
			sub.closed = true
			close(sub.ended)
			continue
		}
		if failed[sub.party] {
			continue
		}
		id, known := ids[sub.party]
		if !known {
			var err error
			if id, err = latestHistoryID(ctx, hub.l, sub.party); err != nil {
				failed[sub.party] = true // the next tick tries again
				continue
			}
			ids[sub.party] = id
		}
		if sub.fresh || id != sub.seen {
			sub.fresh, sub.seen = false, id
			select {
			case <-sub.changed: // drop the unread older id
			default:
			}
			sub.changed <- id // only the hub sends, and the buffer is free now
		}
	}
}
