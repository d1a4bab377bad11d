package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestShutdownDrains stops the server (what SIGTERM does through main's
// signal context) while a request is still sending its body, and checks
// the request completes and serve returns cleanly.
func TestShutdownDrains(t *testing.T) {
	active := make(chan struct{}, 1)
	opts := serveOptions{connState: func(name string, _ net.Conn, st http.ConnState) {
		if name == "app" && st == http.StateActive {
			select {
			case active <- struct{}{}:
			default:
			}
		}
	}}
	s := startServeWith(t, opts, sqliteArgs(t), nil)
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://"+s.addrs.App+"/v0/admin/users", pr)
	req.Header.Set("Authorization", "Bearer "+devToken(t, "admin"))
	req.Header.Set("Content-Type", "application/json")
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := plain.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		resp.Body.Close()
		done <- result{code: resp.StatusCode}
	}()
	if _, err := pw.Write([]byte(`{"name":`)); err != nil {
		t.Fatal(err)
	}
	<-active   // the server is reading the request
	s.cancel() // SIGTERM
	s.cancel = nil
	for !strings.Contains(s.logs.String(), "server shutting down") {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := pw.Write([]byte(`"carol"}`)); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r := <-done
	if r.err != nil || r.code != 200 {
		t.Errorf("in-flight request during shutdown = %d, %v; want 200", r.code, r.err)
	}
	if err := <-s.done; err != nil {
		t.Errorf("serve after shutdown: %v", err)
	}
}
