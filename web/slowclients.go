package web

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// ClientLimits bound what one client can hold of a server: how long a
// request's body may take to arrive, how long a kept-alive connection
// may idle, and how many connections (or, through a trusted proxy,
// requests at once) one client address may have. The zero value takes
// the defaults below.
type ClientLimits struct {
	// BodyReadTimeout is the time a request's body has to arrive, from
	// the end of its headers. It bounds bodies only: a request without a
	// body (an SSE stream, a WebSocket upgrade) is never cut by it.
	BodyReadTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that sends no request.
	IdleTimeout time.Duration
	// HeaderReadTimeout is the time a request's headers have to arrive.
	HeaderReadTimeout time.Duration
	// WriteStallTimeout is the time one write of a response (or a flush)
	// may wait for a client that does not read it, over HTTP/1 or one
	// HTTP/2 stream whose flow-control window stays shut. It bounds each
	// write, not the response: an event stream lives on while its
	// client reads.
	WriteStallTimeout time.Duration
	// MaxConnsPerClient caps one address's open connections; the
	// connections of a trusted proxy are not capped, its clients'
	// requests in flight are (by X-Forwarded-For). Negative: no cap.
	MaxConnsPerClient int
	// Clients finds the client's address behind trusted proxies (nil:
	// none trusted).
	Clients *ClientAddr
}

// Defaults of ClientLimits.
const (
	DefaultBodyReadTimeout   = 30 * time.Second
	DefaultConnIdleTimeout   = 120 * time.Second
	DefaultHeaderReadTimeout = 10 * time.Second
	DefaultWriteStallTimeout = 30 * time.Second
	DefaultMaxConnsPerClient = 256
)

func (l ClientLimits) withDefaults() ClientLimits {
	if l.BodyReadTimeout <= 0 {
		l.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultConnIdleTimeout
	}
	if l.HeaderReadTimeout <= 0 {
		l.HeaderReadTimeout = DefaultHeaderReadTimeout
	}
	if l.WriteStallTimeout <= 0 {
		l.WriteStallTimeout = DefaultWriteStallTimeout
	}
	if l.MaxConnsPerClient == 0 {
		l.MaxConnsPerClient = DefaultMaxConnsPerClient
	}
	return l
}

// Guard wraps a server's handler with the request-level limits: the body
// deadline and, behind a trusted proxy, the cap on one client's requests
// in flight. NewServer applies it; set a server's Handler later through
// it too.
func Guard(lim ClientLimits, h http.Handler) http.Handler {
	lim = lim.withDefaults()
	return writeStall(lim.WriteStallTimeout, bodyDeadline(lim.BodyReadTimeout, proxiedClients(lim, h)))
}

// writeStall gives each write of a response d to go out: the
// connection's (or HTTP/2 stream's) write deadline is set before a write
// or flush and cleared after it, so a client that stops reading frees
// its handler, while an event stream idle between events is never cut.
// http.Server.WriteTimeout is not used: it would bound whole responses.
func writeStall(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&stallWriter{ResponseWriter: w, rc: http.NewResponseController(w), d: d}, r)
	})
}

// stallWriter bounds each Write and Flush by d (writeStall).
type stallWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (s *stallWriter) bounded(f func() error) error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.d))
	err := f()
	_ = s.rc.SetWriteDeadline(time.Time{})
	return err
}

func (s *stallWriter) Write(p []byte) (n int, err error) {
	err = s.bounded(func() error { n, err = s.ResponseWriter.Write(p); return err })
	return n, err
}

// FlushError is what http.ResponseController.Flush calls.
func (s *stallWriter) FlushError() error { return s.bounded(s.rc.Flush) }

func (s *stallWriter) Flush() { _ = s.FlushError() }

// Unwrap lets http.ResponseController reach the connection's own writer
// (deadlines, hijacking for WebSockets).
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// bodyDeadline gives a request's body d to arrive: the connection's read
// deadline is set when the handler starts and cleared when the body has
// been read, so a stream that follows (or a request with no body at all)
// is never cut. http.Server.ReadTimeout is not used: its deadline would
// also cancel the context of an SSE stream.
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the read deadline once its body is read through.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		err = errBodyTimeout
	}
	return n, err
}

var errBodyTimeout = errors.New("the request's body did not arrive in time")

// clientCounts counts what each client address holds.
type clientCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// take adds one for key unless it already holds max.
func (c *clientCounts) take(key string, max int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[key] >= max {
		return false
	}
	c.n[key]++
	return true
}

func (c *clientCounts) give(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[key]--; c.n[key] <= 0 {
		delete(c.n, key)
	}
}

// LimitConns wraps ln so one client address holds at most
// lim.MaxConnsPerClient open connections; one more is closed at once.
// Connections from a trusted proxy are not counted (it carries many
// clients; NewServer caps those clients' requests instead).
func LimitConns(ln net.Listener, lim ClientLimits) net.Listener {
	lim = lim.withDefaults()
	if lim.MaxConnsPerClient < 0 {
		return ln
	}
	return &connLimiter{Listener: ln, lim: lim, counts: &clientCounts{n: map[string]int{}}}
}

type connLimiter struct {
	net.Listener
	lim    ClientLimits
	counts *clientCounts
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
		if err != nil {
			return c, nil // not TCP: nothing to count by
		}
		addr := ap.Addr().Unmap()
		if l.lim.Clients != nil && l.lim.Clients.isTrusted(addr) {
			return c, nil
		}
		key := clientKey(addr)
		if !l.counts.take(key, l.lim.MaxConnsPerClient) {
			c.Close()
			continue
		}
		return &countedConn{Conn: c, release: func() { l.counts.give(key) }}, nil
	}
}

// clientKey is an IPv4 address, or an IPv6 address's /64 (ClientAddr.Key).
func clientKey(a netip.Addr) string {
	if a.Is6() {
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}

type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// proxiedClients caps the requests in flight of each client behind a
// trusted proxy, whose connections LimitConns does not cap.
func proxiedClients(lim ClientLimits, next http.Handler) http.Handler {
	if lim.MaxConnsPerClient < 0 || lim.Clients == nil || len(lim.Clients.trusted) == 0 {
		return next
	}
	counts := &clientCounts{n: map[string]int{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil || !lim.Clients.isTrusted(ap.Addr()) {
			next.ServeHTTP(w, r)
			return
		}
		key := lim.Clients.Key(r)
		if !counts.take(key, lim.MaxConnsPerClient) {
			WriteError(w, http.StatusTooManyRequests,
				fmt.Sprintf("too many requests at once from your address (the limit is %d)", lim.MaxConnsPerClient))
			return
		}
		defer counts.give(key)
		next.ServeHTTP(w, r)
	})
}
