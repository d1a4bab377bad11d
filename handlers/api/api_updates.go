package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	ledgerdevnet "github.com/ccwallet/ccwallet/ledger/devnet"
)

// Caps on open update streams, when Config sets none: a developer watches
// with a few; the total keeps the hub's fan-out bounded.
const (
	DefaultUpdateStreamsPerUser = 8
	DefaultUpdateStreams        = 200
)

// updateStreamBuffer is how many matching updates a stream may have
// unsent; a client that falls further behind is told so and cut off
// rather than holding the hub up.
const updateStreamBuffer = 1024

// maxUpdateBacklog bounds how far back a stream may resume (after=,
// Last-Event-ID): the past beyond is the history API's.
const maxUpdateBacklog = 10000

// updateEvent is one update on the stream (data: of an "update" event).
type updateEvent struct {
	Offset     int64    `json:"offset"`
	UpdateID   string   `json:"update_id"`
	Kind       string   `json:"kind"`
	Submitter  string   `json:"submitter"`
	Round      int64    `json:"round"`
	RecordTime string   `json:"record_time"`
	Parties    []string `json:"parties"`
	Templates  []string `json:"templates"`
	// ActedBy: the admin who made it acting as another party (devnet).
	ActedBy string `json:"acted_by,omitempty"`
}

// updateStream serves GET /v0/updates/stream?party=&template=: a
// server-sent "update" event for every update the ledger commits from now
// on (or after ?after=N, or the Last-Event-ID a reconnecting EventSource
// sends, at most maxUpdateBacklog back), filtered by party (a stakeholder) and template (created or
// archived). It respects visibility rather than being devnet-only: a user
// sees only the updates their own party is a stakeholder of (party, if
// given, must be theirs); an admin sees all, or one party's.
//
// Like /events, a stream holds no database connection: one hub goroutine
// reads the new updates once per interval for all streams.
func (h *Handler) updateStream(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var party coin.PartyID
	if s := q.Get("party"); s != "" {
		p, err := coin.ParsePartyID(s)
		if err != nil {
			return badRequest("party: " + err.Error())
		}
		party = p
	}
	template := q.Get("template")
	if len(template) > bounds.MaxIDLength {
		return badRequest(fmt.Sprintf("template is at most %d characters", bounds.MaxIDLength))
	}
	user := subject(r.Context())
	if !ledgerdevnet.IsAdminAs(h.l, user, actAsClaim(r.Context())) {
		own, err := h.callerParty(r)
		if err != nil {
			return err
		}
		if party != "" && party != own {
			return forbidden("you can watch only your own party's updates")
		}
		party = own
	}
	// A reconnecting EventSource sends the last id (an offset) it got;
	// ?after= does the same by hand.
	resume := r.Header.Get("Last-Event-ID")
	if v := q.Get("after"); v != "" {
		resume = v
	}
	after := int64(-1)
	if resume != "" {
		n, err := strconv.ParseInt(resume, 10, 64)
		if err != nil || n < 0 {
			return badRequest("after (or Last-Event-ID) must be an update offset, a whole number from 0")
		}
		after = n
	}
	start, err := h.w.APIRead.LedgerEnd(r.Context())
	if err != nil {
		return err
	}
	if after >= 0 && start-after > maxUpdateBacklog {
		return badRequest(fmt.Sprintf("after is more than %d updates back; reconnect without it, or read the past with the history API", maxUpdateBacklog))
	}
	sub, refused := h.updates.join(user, party, template, start)
	if refused != "" {
		w.Header().Set("Retry-After", strconv.Itoa(int(eventRetryAfter.Seconds())))
		return httpError(http.StatusTooManyRequests, refused)
	}
	defer h.updates.leave(sub)
	from := sub.after
	if after >= 0 && after < from {
		from = after
	}
	rc, err := startEventStream(w, fmt.Sprintf("connected after offset %d", from))
	if err != nil {
		return nil
	}
	// The backlog up to where the hub delivers: the stream joined first,
	// so nothing between falls through.
	for cur := from; cur < sub.after; {
		es, err := h.w.APIRead.UpdatesAfter(r.Context(), cur, apiread.MaxUpdateEvents)
		if err != nil || len(es) == 0 {
			break
		}
		for _, e := range es {
			if e.Offset > sub.after {
				break
			}
			if sub.matches(&e) {
				writeUpdateEvent(w, e)
			}
		}
		cur = es[len(es)-1].Offset
	}
	if err := rc.Flush(); err != nil {
		return nil
	}
	keepAlive := time.NewTicker(eventKeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-h.shutdown:
			return nil
		case <-sub.lagged:
			fmt.Fprint(w, "event: lagged\ndata: this stream fell too far behind and is closed; reconnect\n\n")
			rc.Flush()
			return nil
		case e := <-sub.ch:
			writeUpdateEvent(w, e)
		case <-keepAlive.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		}
		if err := rc.Flush(); err != nil {
			return nil
		}
	}
}

// writeUpdateEvent writes e as an "update" event whose id is its offset.
func writeUpdateEvent(w http.ResponseWriter, e apiread.UpdateEvent) {
	b, _ := json.Marshal(updateEventOf(e)) // strings and numbers only
	fmt.Fprintf(w, "id: %d\nevent: update\ndata: %s\n\n", e.Offset, b)
}

func updateEventOf(e apiread.UpdateEvent) updateEvent {
	out := updateEvent{Offset: e.Offset, UpdateID: e.UpdateID, Kind: e.Kind, Submitter: e.Submitter, Round: int64(e.Round), ActedBy: e.ActedBy,
		RecordTime: e.Time.UTC().Format(time.RFC3339Nano), Parties: make([]string, len(e.Parties)), Templates: e.Templates}
	for i, p := range e.Parties {
		out.Parties[i] = string(p)
	}
	return out
}

// updateHub feeds the update streams from one poller of the update log,
// running only while there are streams, and counts them against caps.
type updateHub struct {
	l              *ledger.Ledger
	reads          *apiread.Service
	every          time.Duration
	perUser, total int

	mu      sync.Mutex
	subs    map[*updateSub]struct{}
	byUser  map[string]int
	running bool
	last    int64 // the newest offset delivered; the poller's alone while running
}

// updateSub is one open stream and its filter.
type updateSub struct {
	user     string
	party    coin.PartyID // "" for all (admins only)
	template string
	ch       chan apiread.UpdateEvent
	lagged   chan struct{} // closed by the hub when ch overflowed
	isLagged bool
	after    int64 // the stream gets every update after this offset
}

func newUpdateHub(l *ledger.Ledger, reads *apiread.Service, cfg Config) *updateHub {
	hub := &updateHub{l: l, reads: reads, every: cfg.UpdateStreamInterval, perUser: cfg.UpdateStreamsPerUser, total: cfg.UpdateStreams,
		subs: map[*updateSub]struct{}{}, byUser: map[string]int{}}
	if hub.every <= 0 {
		hub.every = time.Second
	}
	if hub.perUser <= 0 {
		hub.perUser = DefaultUpdateStreamsPerUser
	}
	if hub.total <= 0 {
		hub.total = DefaultUpdateStreams
	}
	l.OnRestore(hub.restored)
	return hub
}

// restored moves the hub to the restored network's newest offset: a
// development network's restore or reset rewinds the offsets, and the
// streams would otherwise wait until the log passed the old position.
func (hub *updateHub) restored() {
	off, err := hub.reads.LedgerEnd(context.Background())
	if err != nil {
		return // the streams catch up once the log passes the old position
	}
	hub.mu.Lock()
	defer hub.mu.Unlock()
	hub.last = off
}

// join registers a stream, or says why it is refused. start is the newest
// offset the caller saw: a hub that starts now delivers what follows it.
func (hub *updateHub) join(user string, party coin.PartyID, template string, start int64) (*updateSub, string) {
	hub.mu.Lock()
	defer hub.mu.Unlock()
	switch {
	case hub.byUser[user] >= hub.perUser:
		return nil, fmt.Sprintf("too many update streams for this user (at most %d); close some", hub.perUser)
	case len(hub.subs) >= hub.total:
		return nil, "the server has too many update streams open; retry later"
	}
	sub := &updateSub{user: user, party: party, template: template, ch: make(chan apiread.UpdateEvent, updateStreamBuffer), lagged: make(chan struct{})}
	hub.subs[sub] = struct{}{}
	hub.byUser[user]++
	if !hub.running {
		hub.running, hub.last = true, start
		go hub.run()
	}
	// A running hub may have delivered past start already: the stream
	// gets what follows the hub's position, and says so.
	sub.after = hub.last
	return sub, ""
}

func (hub *updateHub) leave(sub *updateSub) {
	hub.mu.Lock()
	defer hub.mu.Unlock()
	delete(hub.subs, sub)
	countDown(hub.byUser, sub.user)
}

func (hub *updateHub) run() {
	tick := time.NewTicker(hub.every)
	defer tick.Stop()
	for range tick.C {
		if !hub.poll() {
			return
		}
	}
}

// poll reads the updates after the last delivered, in pages, and hands
// each stream those it matches; false when there are no streams left (the
// hub stops).
func (hub *updateHub) poll() bool {
	ctx, cancel := context.WithTimeout(context.Background(), max(hub.every, 5*time.Second))
	defer cancel()
	for {
		hub.mu.Lock()
		if len(hub.subs) == 0 {
			hub.running = false
			hub.mu.Unlock()
			return false
		}
		after := hub.last
		hub.mu.Unlock()
		es, err := hub.reads.UpdatesAfter(ctx, after, apiread.MaxUpdateEvents)
		if err != nil || len(es) == 0 {
			return true // an error: the next tick tries again
		}
		hub.mu.Lock()
		for sub := range hub.subs {
			for _, e := range es {
				if sub.matches(&e) {
					sub.send(e)
				}
			}
		}
		hub.last = es[len(es)-1].Offset
		hub.mu.Unlock()
		if len(es) < apiread.MaxUpdateEvents {
			return true
		}
	}
}

func (sub *updateSub) matches(e *apiread.UpdateEvent) bool {
	return e.Matches(sub.party, sub.template)
}

// send never blocks the hub: a full stream is marked lagged and closed.
func (sub *updateSub) send(e apiread.UpdateEvent) {
	if sub.isLagged {
		return
	}
	select {
	case sub.ch <- e:
	default:
		sub.isLagged = true
		close(sub.lagged)
	}
}
