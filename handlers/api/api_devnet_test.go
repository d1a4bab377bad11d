package api_test

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
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestDevnetSnapshotAPI: an admin snapshots, lists, restores, resets and
// deletes over HTTP; the wallet API reads the snapshot's state after the
// restore and takes writes; mistakes get clear 4xx answers.
func TestDevnetSnapshotAPI(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		admin := a.As("admin")
		alice, _ := a.User("alice", "100")
		if r := admin.DoOwn("POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "base"}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		var list struct {
			Snapshots []struct {
				Name  string `json:"name"`
				Bytes int64  `json:"bytes"`
			} `json:"snapshots"`
		}
		admin.DoOwn("GET", "/v0/admin/devnet/snapshots", nil).JSON(t, &list)
		if len(list.Snapshots) != 1 || list.Snapshots[0].Name != "base" || list.Snapshots[0].Bytes <= 0 {
			t.Errorf("list = %+v", list)
		}
		if r := alice.DoOwn("POST", "/v0/wallet/tap", map[string]any{"amount": "50"}); r.Status != http.StatusOK {
			t.Fatalf("tap: %d %s", r.Status, r.Body)
		}
		a.User("carol", "1")

		if r := admin.DoOwn("POST", "/api/validator/v0/admin/devnet/snapshots/base/restore", nil); r.Status != http.StatusOK {
			t.Fatalf("restore: %d %s", r.Status, r.Body)
		}
		var bal map[string]any
		alice.Do("GET", "/v0/wallet/balance", nil).JSON(t, &bal)
		if q, _ := bal["effective_unlocked_qty"].(string); !strings.HasPrefix(q, "99.") && q != "100.0000000000" {
			t.Errorf("alice's balance after restore = %v; want the snapshot's 100 (less fees)", bal)
		}
		if r := a.As("carol").DoOwn("GET", "/v0/wallet/balance", nil); r.Status != http.StatusNotFound {
			t.Errorf("carol after restore: %d %s; want 404 (not onboarded then)", r.Status, r.Body)
		}
		if r := alice.DoOwn("POST", "/v0/wallet/tap", map[string]any{"amount": "5"}); r.Status != http.StatusOK {
			t.Errorf("tap after restore: %d %s", r.Status, r.Body)
		}
		ledgertest.Conserved(t, a.L)

		for _, c := range []struct {
			who, method, path string
			body              any
			want              int
		}{
			{"admin", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "../etc"}, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": ""}, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": strings.Repeat("x", 41)}, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "base"}, 409},
			{"admin", "POST", "/v0/admin/devnet/snapshots/Base/restore", nil, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots/..%2F..%2Fx/restore", nil, 400},
			{"admin", "POST", "/v0/admin/devnet/snapshots/missing/restore", nil, 404},
			{"admin", "DELETE", "/v0/admin/devnet/snapshots/missing", nil, 404},
			{"alice", "POST", "/v0/admin/devnet/snapshots", map[string]any{"name": "mine"}, 403},
			{"alice", "POST", "/v0/admin/devnet/snapshots/base/restore", nil, 403},
			{"alice", "POST", "/v0/admin/devnet/reset", nil, 403},
			{"", "GET", "/v0/admin/devnet/snapshots", nil, 401},
		} {
			if r := a.As(c.who).DoOwn(c.method, c.path, c.body); r.Status != c.want {
				t.Errorf("%s %s %s as %q: %d %s; want %d", c.method, c.path, c.body, c.who, r.Status, r.Body, c.want)
			}
		}

		if r := admin.DoOwn("POST", "/v0/admin/devnet/reset", nil); r.Status != http.StatusOK {
			t.Fatalf("reset: %d %s", r.Status, r.Body)
		}
		if r := alice.DoOwn("GET", "/v0/wallet/balance", nil); r.Status != http.StatusNotFound {
			t.Errorf("alice after reset: %d %s; want 404", r.Status, r.Body)
		}
		if r := admin.DoOwn("DELETE", "/v0/admin/devnet/snapshots/base", nil); r.Status != http.StatusOK {
			t.Errorf("delete: %d %s", r.Status, r.Body)
		}
	})
}

// TestDevnetSnapshotsAbsentInProduction: a production network has no
// snapshot, restore or reset endpoints at all.
func TestDevnetSnapshotsAbsentInProduction(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, e), ledger.Config{AdminUsers: []string{"admin"}})
			if err != nil {
				t.Fatal(err)
			}
			a := newJobsAPI(t, l, nil)
			for _, c := range [][2]string{
				{"GET", "/v0/admin/devnet/snapshots"}, {"POST", "/v0/admin/devnet/snapshots"},
				{"POST", "/v0/admin/devnet/snapshots/base/restore"}, {"DELETE", "/v0/admin/devnet/snapshots/base"},
				{"POST", "/v0/admin/devnet/reset"},
			} {
				var body map[string]any
				if code := a.do("admin", c[0], c[1], `{"name": "base"}`, &body); code != http.StatusNotFound || body["error"] == nil {
					t.Errorf("%s %s in production: %d %v; want 404", c[0], c[1], code, body)
				}
			}
		})
	}
}

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
