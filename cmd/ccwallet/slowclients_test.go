package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSlowClientsCutOff: a client trickling request bodies one byte at a
// time over thousands of connections, on the app, Ledger API and health
// ports, has its connections cut (at once past the per-address cap, the
// rest at the body deadline) while a victim on another address is served
// throughout. Before, a trickled body was never cut off and one client
// held every connection it opened (issue 38).
func TestSlowClientsCutOff(t *testing.T) {
	values := writeFile(t, "values.yaml", "web: {bodyReadTimeout: 1s, idleTimeout: 2s, maxConnectionsPerClient: 20}\n")
	s := startServe(t, append(sqliteArgs(t), "--config", values), nil)
	ports := []struct{ name, addr, path string }{
		{"app", s.addrs.App, "/v0/admin/users"},
		{"ledger-api", s.addrs.LedgerAPI, "/v2/commands/submit-and-wait"},
		{"health", s.addrs.Health, "/readyz"},
	}
	const perPort = 800
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	var open atomic.Int64
	var wg sync.WaitGroup
	for _, p := range ports {
		for range perPort {
			c, err := net.Dial("tcp", p.addr)
			if err != nil {
				t.Fatalf("%s: dial: %v", p.name, err)
			}
			open.Add(1)
			wg.Add(2)
			closed := make(chan struct{})
			go func() { // the server's close ends the read
				defer wg.Done()
				defer close(closed)
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						open.Add(-1)
						return
					}
				}
			}()
			go func() { // one byte of the body every 200 ms
				defer wg.Done()
				defer c.Close()
				_, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", p.path)
				for err == nil {
					select {
					case <-ctx.Done():
						return
					case <-closed:
						return
					case <-time.After(200 * time.Millisecond):
					}
					_, err = c.Write([]byte(" "))
				}
			}()
		}
	}

	// The victim, on another address, is served throughout.
	victim := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
	admin := devToken(t, "admin")
	served := 0
	deadline := time.Now().Add(45 * time.Second)
	for i := 0; open.Load() > 0 || served < 10; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("%d trickling connections still open after 45 s", open.Load())
		}
		for _, c := range []struct{ method, url, token, body string }{
			{"GET", "http://" + s.addrs.App + "/readyz", "", ""},
			{"POST", "http://" + s.addrs.App + "/v0/admin/users", admin, fmt.Sprintf(`{"name":"victim%d"}`, i)},
			{"GET", "http://" + s.addrs.LedgerAPI + "/v2/version", admin, ""},
			{"GET", "http://" + s.addrs.Health + "/livez", "", ""},
		} {
			if code := call(t, victim, c.method, c.url, c.token, c.body, nil); code != 200 {
				t.Fatalf("victim: %s %s = %d during the attack", c.method, c.url, code)
			}
		}
		served++
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	wg.Wait()
}
