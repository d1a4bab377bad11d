package streams

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/web"
)

// Config bounds the WebSocket streams; zero fields take
// their defaults.
type Config struct {
	// PerUser and Total cap the open sockets of one user and of all.
	PerUser, Total int
	// Reads bounds the sockets reading the ledger at once (each holds a
	// database connection while it reads).
	Reads int
	// Poll is how often the hub reads the ledger end while sockets are
	// open, for the commits of other replicas (this process's wake the
	// sockets at once).
	Poll time.Duration
	// Checkpoint is the least time between two OffsetCheckpoints of a
	// stream (the first goes out as soon as the stream has caught up).
	Checkpoint time.Duration
	// Ping is how often an open socket is pinged (and its rights read
	// again while it waits).
	Ping time.Duration
}

// The defaults of Config. A client (the wallet SDK) holds a few
// sockets per user: updates, completions, the ACS it reads now and then.
// Canton's offset checkpoint cache updates every 15 s.
const (
	DefaultPerUser          = 16
	DefaultTotal            = 500
	DefaultReads            = 4
	DefaultPoll             = time.Second
	DefaultCheckpointPeriod = 15 * time.Second
	DefaultPing             = 30 * time.Second
)

func (c Config) withDefaults() Config {
	or := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	ord := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	or(&c.PerUser, DefaultPerUser)
	or(&c.Total, DefaultTotal)
	or(&c.Reads, DefaultReads)
	ord(&c.Poll, DefaultPoll)
	ord(&c.Checkpoint, DefaultCheckpointPeriod)
	ord(&c.Ping, DefaultPing)
	return c
}

// Hub counts the open sockets against their caps and wakes them
// when the ledger moves: one goroutine, running while any is open, waits
// for this process's next commit (ledger.Committed) or polls the ledger
// end (other replicas' commits), and closes the current wake channel.
// Sockets hold no database connection while they wait.
type Hub struct {
	l     *ledger.Ledger
	log   *slog.Logger
	lim   *web.Limiter
	auth  Auth
	cfg   Config
	reads chan struct{} // a token per socket reading the ledger

	// shutdown is closed when the server stops (Stop); open counts
	// the sockets, for it to wait on.
	shutdown     chan struct{}
	shutdownOnce sync.Once
	open         sync.WaitGroup

	mu      sync.Mutex
	byUser  map[string]int
	n       int
	running bool
	wake    chan struct{} // closed when the ledger may have moved
	restore chan struct{} // closed by a restore of the network
	end     int64         // the ledger end the poller saw last

	// polled counts the polls that saw the ledger end move: a stream
	// that skips reads on this process's commits (completions) reads
	// again when it has moved.
	polled atomic.Uint64
	// readsDone counts the streams' reads of the ledger (tests see by it
	// which wakes read).
	readsDone atomic.Int64

	// afterWake, set by tests, runs in the hub's goroutine after each
	// wake of the sockets by a commit.
	afterWake atomic.Pointer[func()]
}

// New builds the hub of the streams of l's Ledger API, which knows its
// callers by auth; lim bounds each user's handshakes (nil: no limit).
func New(l *ledger.Ledger, log *slog.Logger, lim *web.Limiter, auth Auth, cfg Config) *Hub {
	cfg = cfg.withDefaults()
	h := &Hub{l: l, log: log, lim: lim, auth: auth, cfg: cfg, reads: make(chan struct{}, cfg.Reads), shutdown: make(chan struct{}),
		byUser: map[string]int{}, wake: make(chan struct{}), restore: make(chan struct{})}
	l.OnRestore(h.restored)
	return h
}

// join counts a socket of user, or refuses it (PARTICIPANT_BACKPRESSURE).
func (h *Hub) join(user string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.shutdown:
		return canton.Err(canton.CodeUnavailable, "the server is shutting down")
	default:
	}
	switch {
	case h.byUser[user] >= h.cfg.PerUser:
		return canton.Err(canton.CodeBackpressure, "user %q has %d streams open, the most this participant allows; close one first", user, h.cfg.PerUser)
	case h.n >= h.cfg.Total:
		return canton.Err(canton.CodeBackpressure, "this participant has %d streams open, the most it allows; retry later", h.cfg.Total)
	}
	h.byUser[user]++
	h.n++
	h.open.Add(1)
	if !h.running {
		h.running = true
		// The commit signal is taken here, before the socket reads: taken
		// in the new goroutine, a commit made before it ran closed no
		// channel the hub held, and the socket waited for the next
		// commit or the poll (TestWSCommitWhileStreamsRead hung on it).
		go h.run(h.l.Committed())
	}
	return nil
}

func (h *Hub) leave(user string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byUser[user]--; h.byUser[user] <= 0 {
		delete(h.byUser, user)
	}
	h.n--
	h.open.Done()
}

// moved is closed when the ledger may have moved after the call.
func (h *Hub) moved() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.wake
}

// restoredSignal is closed by the next restore or reset of a development
// network.
func (h *Hub) restoredSignal() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.restore
}

func (h *Hub) restored() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.restore)
	h.restore = make(chan struct{})
	h.end = 0
}

// broadcast wakes the sockets waiting.
func (h *Hub) broadcast() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.wake)
	h.wake = make(chan struct{})
}

// Stop ends every socket (close 1001) and waits for them.
func (h *Hub) Stop() {
	h.shutdownOnce.Do(func() { close(h.shutdown) })
	h.open.Wait()
}

func (h *Hub) run(commit <-chan struct{}) {
	poll := time.NewTicker(h.cfg.Poll)
	defer poll.Stop()
	for {
		h.mu.Lock()
		if h.n == 0 {
			h.running = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		select {
		case <-commit:
			// The next commit's signal is taken before the sockets wake:
			// taken after, a commit made while they read closed no
			// channel (Committed hands one out only when asked), and they
			// waited for the next commit or the poll, up to a second, for
			// an update already there (the SDK row's p50 was 170 ms at 8
			// clients, 15 ms at 1).
			commit = h.l.Committed()
			h.broadcast()
			if fn := h.afterWake.Load(); fn != nil {
				(*fn)()
			}
		case <-poll.C:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			end, err := apiread.New(h.l).LedgerEnd(ctx)
			cancel()
			h.mu.Lock()
			moved := err == nil && end != h.end
			if moved {
				h.end = end
				h.polled.Add(1)
			}
			h.mu.Unlock()
			if moved {
				h.broadcast()
			}
		case <-h.shutdown:
			h.mu.Lock()
			h.running = false
			h.mu.Unlock()
			return
		}
	}
}

// AfterWake has fn run in the hub's goroutine after each wake of the
// sockets by a commit (nil: nothing); for tests.
func (h *Hub) AfterWake(fn func()) {
	if fn == nil {
		h.afterWake.Store(nil)
		return
	}
	h.afterWake.Store(&fn)
}

// Reads counts the streams' reads of the ledger so far; for tests.
func (h *Hub) Reads() int64 { return h.readsDone.Load() }
