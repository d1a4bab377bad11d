package bench

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStartRetryingTakenPort: a child that ends because a port picked for
// it was taken before it bound it is started again on new ports, at once
// rather than after the 20 s wait for /readyz, and the attempt that
// serves is the one returned.
func TestStartRetryingTakenPort(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	nowhere := strings.TrimPrefix(closed.URL, "http://")
	closed.Close()
	attempts := 0
	t0 := time.Now()
	w, _ := startRetrying(t, "fake serve", func() *walletProc {
		attempts++
		w := &walletProc{logPath: filepath.Join(t.TempDir(), "ccwallet.log")}
		if attempts == 1 {
			w.cmd = exec.Command("sh", "-c", "echo 'ccwallet: listen on 127.0.0.1:41759 (scan): listen tcp 127.0.0.1:41759: bind: address already in use'; exit 1")
		} else {
			w.cmd = exec.Command("sleep", "30")
		}
		return w
	}, func(*walletProc) []string {
		if attempts == 1 {
			return []string{nowhere}
		}
		return []string{strings.TrimPrefix(srv.URL, "http://")}
	})
	defer w.stop(t)
	if attempts != 2 {
		t.Fatalf("%d attempts, want 2", attempts)
	}
	if took := time.Since(t0); took > 10*time.Second {
		t.Errorf("the retry came after %s: the first child's end went unnoticed until /readyz's wait ran out", took)
	}
	if w.cmd.Args[0] != "sleep" {
		t.Errorf("returned the attempt %v, want the one that served", w.cmd.Args)
	}
}
