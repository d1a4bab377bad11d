package web

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// serveTLSLimited serves h over TLS (HTTP/2 offered) with lim on a fresh
// port, as ccwallet serve does: NewServer, LimitConns, Serve.
func serveTLSLimited(t *testing.T, lim ClientLimits, h http.Handler) string {
	t.Helper()
	p := newTestPKI(t)
	srv, err := NewServer(ServerConfig{Addr: "127.0.0.1:0", Limits: lim, TLS: &TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: p.serverKey}}, h, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, "test", srv, LimitConns(ln, lim), discardLogger()) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// h2Conn is a raw HTTP/2 client connection: TLS with ALPN h2, the
// preface and an empty SETTINGS sent.
type h2Conn struct {
	net.Conn
	fr *http2.Framer
}

func dialH2(t *testing.T, addr string) *h2Conn {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if p := c.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("ALPN %q, want h2", p)
	}
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	return &h2Conn{Conn: c, fr: fr}
}

// headers encodes a request's header block.
func h2Headers(method, path string) []byte {
	var b bytes.Buffer
	e := hpack.NewEncoder(&b)
	for _, f := range [][2]string{{":method", method}, {":scheme", "https"}, {":authority", "wallet.test"}, {":path", path}, {"content-type", "application/json"}} {
		_ = e.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	return b.Bytes()
}

// closedBy reads until the server closes the connection, failing the test
// if it is still open after wait (far longer than the limits).
func closedBy(t *testing.T, c net.Conn, wait time.Duration, what string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("%s: the connection is still open after %s", what, wait)
	}
}

// TestSlowReadersOverTLS: a client that asks for an endless response and
// never reads it, over HTTP/1 (its socket full) or HTTP/2 (its stream's
// flow-control window never opened), frees the handler once a write has
// waited the stall timeout. Before, the handler's write blocked for as
// long as the client kept the connection open.
func TestSlowReadersOverTLS(t *testing.T) {
	const limit = 300 * time.Millisecond
	var active atomic.Int32
	addr := serveTLSLimited(t, ClientLimits{WriteStallTimeout: limit},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			active.Add(1)
			defer active.Add(-1)
			chunk := bytes.Repeat([]byte("x"), 64<<10)
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				if err := http.NewResponseController(w).Flush(); err != nil {
					return
				}
			}
		}))
	const wait = 20 * time.Second
	waitIdle := func(t *testing.T, what string) {
		t.Helper()
		for deadline := time.Now().Add(wait); active.Load() > 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		}
		if n := active.Load(); n != 0 {
			t.Errorf("%s: %d handlers still writing after %s", what, n, wait)
		}
	}
	t.Run("HTTP/1", func(t *testing.T) {
		c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: wallet.test\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(wait); active.Load() == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		}
		waitIdle(t, "HTTP/1 client that reads nothing")
	})
	t.Run("HTTP/2", func(t *testing.T) {
		c := dialH2(t, addr)
		if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: h2Headers("GET", "/"), EndHeaders: true, EndStream: true}); err != nil {
			t.Fatal(err)
		}
		// Read frames (the socket stays drained) but never send
		// WINDOW_UPDATE: the stream's 64 KiB window stays shut.
		go func() {
			for {
				if _, err := c.fr.ReadFrame(); err != nil {
					return
				}
			}
		}()
		for deadline := time.Now().Add(wait); active.Load() == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		}
		waitIdle(t, "HTTP/2 stream whose window stays shut")
	})
}

// TestSlowClientsOverTLSAndHTTP2: on a TLS listener, a client that never
// sends its TLS handshake, an HTTP/2 connection whose request headers
// never end, and an idle HTTP/2 connection are closed; many HTTP/2
// streams whose bodies never come hold at most maxStreamsPerConn
// handlers at once, and each is ended by the body deadline.
func TestSlowClientsOverTLSAndHTTP2(t *testing.T) {
	const limit = 300 * time.Millisecond
	var active, most atomic.Int32
	addr := serveTLSLimited(t, ClientLimits{HeaderReadTimeout: limit, BodyReadTimeout: limit, IdleTimeout: limit},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := active.Add(1)
			defer active.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			if _, err := io.ReadAll(r.Body); err != nil {
				WriteError(w, http.StatusRequestTimeout, err.Error())
				return
			}
			_, _ = io.WriteString(w, "{}")
		}))
	const wait = 20 * time.Second

	t.Run("no TLS handshake", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		closedBy(t, c, wait, "a client that sends no handshake")
	})

	t.Run("HTTP/2 headers that never end", func(t *testing.T) {
		c := dialH2(t, addr)
		block := h2Headers("GET", "/")
		if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block[:3], EndStream: true}); err != nil {
			t.Fatal(err)
		}
		closedBy(t, c, wait, "HTTP/2 headers without END_HEADERS")
	})

	t.Run("HTTP/2 idle connection", func(t *testing.T) {
		c := dialH2(t, addr)
		closedBy(t, c, wait, "an HTTP/2 connection without streams")
	})

	t.Run("HTTP/2 streams whose bodies never come", func(t *testing.T) {
		c := dialH2(t, addr)
		const streams = 3 * maxStreamsPerConn
		for i := range streams {
			if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: uint32(2*i + 1), BlockFragment: h2Headers("POST", "/"), EndHeaders: true}); err != nil {
				t.Fatal(err)
			}
		}
		_ = c.SetReadDeadline(time.Now().Add(wait))
		advertised := uint32(0)
		ended := map[uint32]bool{}
		for len(ended) < streams {
			f, err := c.fr.ReadFrame()
			if err != nil {
				t.Fatalf("after %d of %d streams ended: %v", len(ended), streams, err)
			}
			switch f := f.(type) {
			case *http2.SettingsFrame:
				if v, ok := f.Value(http2.SettingMaxConcurrentStreams); ok {
					advertised = v
				}
			case *http2.RSTStreamFrame:
				ended[f.StreamID] = true
			case *http2.HeadersFrame:
				ended[f.StreamID] = true
			case *http2.GoAwayFrame:
				t.Fatalf("GOAWAY %v after %d of %d streams ended", f.ErrCode, len(ended), streams)
			}
		}
		if advertised != maxStreamsPerConn || most.Load() > maxStreamsPerConn {
			t.Errorf("SETTINGS_MAX_CONCURRENT_STREAMS %d, at most %d handlers at once; want both at most %d",
				advertised, most.Load(), maxStreamsPerConn)
		}
	})
	for deadline := time.Now().Add(wait); active.Load() > 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	if n := active.Load(); n != 0 {
		t.Errorf("%d handlers still running", n)
	}
}
