package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestRestoreUnderLoad: while wallet requests run, restores over HTTP
// answer them 200 or a clear 503 with Retry-After, never another error,
// and conservation holds after.
func TestRestoreUnderLoad(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		admin := a.As("admin")
		alice, _ := a.User("alice", "100")
		if r := admin.DoOwn("POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "base"}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		counts := map[int]int{}
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					method, path, body := "GET", "/v0/wallet/balance", any(nil)
					if i%2 == 1 {
						method, path, body = "POST", "/v0/wallet/tap", map[string]any{"amount": "1"}
					}
					_, _, rec := alice.Exchange(method, path, body)
					mu.Lock()
					counts[rec.Code]++
					mu.Unlock()
					if rec.Code == http.StatusServiceUnavailable {
						var e struct{ Error string }
						_ = json.Unmarshal(rec.Body.Bytes(), &e)
						if rec.Header().Get("Retry-After") == "" || !strings.Contains(e.Error, "restored") {
							t.Errorf("503 without Retry-After or words: %v %q", rec.Header(), rec.Body)
						}
						time.Sleep(time.Millisecond) // as a client honouring Retry-After, briefly
					}
				}
			}()
		}
		ok := func() int {
			mu.Lock()
			defer mu.Unlock()
			return counts[http.StatusOK]
		}
		for range 5 {
			// Each restore starts with requests running and is followed
			// by answered ones.
			for n, deadline := ok(), time.Now().Add(10*time.Second); ok() < n+4 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			if r := admin.DoOwn("POST", "/v0/admin/devnet/snapshots/base/restore", nil); r.Status != http.StatusOK {
				t.Errorf("restore: %d %s", r.Status, r.Body)
			}
		}
		close(stop)
		wg.Wait()
		for code, n := range counts {
			if code != http.StatusOK && code != http.StatusServiceUnavailable {
				t.Errorf("%d requests answered %d", n, code)
			}
		}
		t.Logf("answers: %v", counts)
		if counts[http.StatusOK] < 20 {
			t.Errorf("only %d requests answered 200: the restores and requests did not interleave", counts[http.StatusOK])
		}
		ledgertest.Conserved(t, a.L)
	})
}

// TestRestoreWithAnOpenUpdateStream: an open /v0/updates/stream, which
// may stay open for hours and follows a restore (OnRestore), does not
// hold a restore up: it is exempt from the gate as /events is.
func TestRestoreWithAnOpenUpdateStream(t *testing.T) {
	a := handlerstest.NewAPI(t, 0)
	alice, _ := a.User("alice", "100")
	admin := a.As("admin")
	if r := admin.DoOwn("POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "base"}); r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	srv := httptest.NewServer(a.H)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v0/updates/stream", nil)
	req.Header.Set("Authorization", "Bearer "+alice.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("open the stream: %v %v", res, err)
	}
	defer res.Body.Close()
	start := time.Now()
	if r := admin.DoOwn("POST", "/v0/admin/devnet/snapshots/base/restore", nil); r.Status != http.StatusOK {
		t.Fatalf("restore with a stream open = %d %s after %s", r.Status, r.Body, time.Since(start).Round(time.Millisecond))
	}
}
