package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/internal/testnet"
)

// TestHydraPortTaken: when another server holds the port chosen for
// Hydra's admin API, one answering /health/ready as another Hydra's public
// API does, starting Hydra fails with Hydra's own words instead of taking
// that server for Hydra (a CI run once sent the key import to such a
// server and failed on its 404). freePorts hands distinct ports.
func TestHydraPortTaken(t *testing.T) {
	t.Parallel()
	ports := freePorts(t, 8)
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Fatalf("freePorts handed port %d twice: %v", p, ports)
		}
		seen[p] = true
	}

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health/ready" {
			w.Write([]byte(`{"status":"ok"}`))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(other.Close)

	h := &hydra{t: t, passwordForms: map[string]int{}}
	h.app = httptest.NewServer(h.appHandler())
	t.Cleanup(h.app.Close)
	err := h.serve(t, hydraBinary(t), filepath.Join(t.TempDir(), "hydra.log"), []int{freePorts(t, 1)[0], other.Listener.Addr().(*net.TCPAddr).Port})
	if err == nil {
		t.Fatal("hydra started with its admin port held by another server")
	}
	if !strings.Contains(err.Error(), "exited") {
		t.Fatalf("hydra's start failed, not by its exit: %v", err)
	}
}

// TestListensOn: a port counts as a process's only when that process
// holds its listening socket.
func TestListensOn(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	if err := listensOn(os.Getpid(), []int{port}); err != nil {
		t.Fatalf("this process's own listener: %v", err)
	}
	if err := listensOn(1, []int{port}); err == nil {
		t.Fatal("process 1 taken for the listener of this process")
	}
	_, refusing, err := net.SplitHostPort(testnet.RefusingAddr(t))
	must(t, err)
	p, err := strconv.Atoi(refusing)
	must(t, err)
	if err := listensOn(os.Getpid(), []int{port, p}); err == nil {
		t.Fatal("a port bound without a listen taken for a listener")
	}
}
