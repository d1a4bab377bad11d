package web_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/web"
)

// serveLimited serves h with lim on a fresh port.
func serveLimited(t *testing.T, lim web.ClientLimits, h http.Handler) string {
	t.Helper()
	srv, err := web.NewServer(web.ServerConfig{Addr: "127.0.0.1:0", Limits: lim}, h, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(web.LimitConns(ln, lim)) }()
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// TestStreamsOutliveDeadlines: an event stream (no body), and one that
// follows a body read in time, run well past the body deadline and the
// idle timeout; a body trickled past its deadline is cut.
func TestStreamsOutliveDeadlines(t *testing.T) {
	const ticks = 12 // 12 × 100 ms, four times the deadlines
	stream := func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			web.WriteError(w, http.StatusRequestTimeout, err.Error())
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range ticks {
			fmt.Fprintf(w, "data: %d\n\n", i)
			http.NewResponseController(w).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	addr := serveLimited(t, web.ClientLimits{BodyReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond},
		http.HandlerFunc(stream))
	for _, method := range []string{"GET", "POST"} {
		var body io.Reader
		if method == "POST" {
			body = strings.NewReader(`{"from":0}`)
		}
		req, _ := http.NewRequest(method, "http://"+addr+"/events", body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				n++
			}
		}
		resp.Body.Close()
		if n != ticks {
			t.Errorf("%s stream: %d events, want %d (cut: %v)", method, n, ticks, sc.Err())
		}
	}

	// A trickled body is cut at its deadline.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
	cut := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, c)
		close(cut)
	}()
	for i := 0; ; i++ {
		select {
		case <-cut:
			return
		case <-time.After(100 * time.Millisecond):
		}
		if i > 100 {
			t.Fatal("a body trickled for 10 s was not cut")
		}
		if _, err := c.Write([]byte(" ")); err != nil {
			return
		}
	}
}

// TestConnCapRespectsTrustedProxies: one address's connections past the
// cap are closed, a trusted proxy's are not, and its clients' requests in
// flight are capped by X-Forwarded-For instead.
func TestConnCapRespectsTrustedProxies(t *testing.T) {
	release := make(chan struct{})
	hold := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		<-release
	})
	defer close(release)
	dialFrom := func(t *testing.T, addr string, n int) []net.Conn {
		var cs []net.Conn
		for range n {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			cs = append(cs, c)
		}
		return cs
	}
	// alive sends a request on c and reports whether an answer came.
	alive := func(c net.Conn, xff string) string {
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: %s\r\n\r\n", xff)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return "closed"
		}
		return strings.TrimSpace(line)
	}

	capped := serveLimited(t, web.ClientLimits{MaxConnsPerClient: 3}, hold)
	cs := dialFrom(t, capped, 4)
	for i, c := range cs {
		got, want := alive(c, "203.0.113.1"), "HTTP/1.1 200 OK"
		if i == 3 {
			want = "closed"
		}
		if got != want {
			t.Errorf("untrusted connection %d: %s, want %s", i+1, got, want)
		}
	}

	proxies, err := web.NewClientAddr([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	proxied := serveLimited(t, web.ClientLimits{MaxConnsPerClient: 3, Clients: proxies}, hold)
	cs = dialFrom(t, proxied, 6)
	for i, c := range cs {
		client, want := "203.0.113.1", "HTTP/1.1 200 OK"
		switch {
		case i == 3:
			want = "HTTP/1.1 429 Too Many Requests"
		case i > 3:
			client = "203.0.113.2"
		}
		if got := alive(c, client); got != want {
			t.Errorf("proxied connection %d for %s: %s, want %s", i+1, client, got, want)
		}
	}
}
