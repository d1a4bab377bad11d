package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/store/pgtest"
)

// TestDatabaseOutageUnderLoad stops Postgres for 10 s while clients keep
// calling the API. During the outage every answer is 503 with a JSON error
// (never a 500, never a hang past the client timeout) and /readyz is 503;
// when Postgres is back, both recover without a restart, and the taps that
// were acknowledged are all in the balance.
func TestDatabaseOutageUnderLoad(t *testing.T) {
	c, err := pgtest.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	// The load is far above a user's rate limit; this test is about the
	// database, so the limit is off.
	cfgPath := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(cfgPath, []byte("rateLimit: {burst: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, []string{"--config", cfgPath}, []string{"WALLET_DATABASE_URL=" + c.URL("postgres")})
	app, health := "http://"+s.addrs.App, "http://"+s.addrs.Health
	admin := devToken(t, "admin")
	if code := call(t, plain, "POST", app+"/v0/admin/users", admin, `{"name":"alice"}`, nil); code != 200 {
		t.Fatalf("onboard: %d", code)
	}
	alice := devToken(t, "alice")

	var (
		down       atomic.Bool
		acked      atomic.Int64 // taps answered 200
		statuses   sync.Map     // status -> count, while down
		bad        atomic.Value // first bad answer
		stop       = make(chan struct{})
		wg         sync.WaitGroup
		client     = &http.Client{Timeout: 15 * time.Second}
		tapRequest = `{"amount":"0.005"}` // 1 CC at the initial price
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest("POST", app+"/v0/wallet/tap", strings.NewReader(tapRequest))
				req.Header.Set("Authorization", "Bearer "+alice)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					bad.CompareAndSwap(nil, "request error: "+err.Error())
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case resp.StatusCode == 200:
					acked.Add(1)
				case resp.StatusCode == 503:
					var e map[string]string
					if json.Unmarshal(b, &e) != nil || e["error"] == "" {
						bad.CompareAndSwap(nil, "503 without a JSON error: "+string(b))
					}
				default:
					bad.CompareAndSwap(nil, resp.Status+": "+string(b))
				}
				if down.Load() {
					n, _ := statuses.LoadOrStore(resp.StatusCode, new(atomic.Int64))
					n.(*atomic.Int64).Add(1)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	time.Sleep(time.Second)
	if err := c.StopServer(); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	time.Sleep(2 * time.Second)
	if code := call(t, plain, "GET", health+"/readyz", "", "", nil); code != 503 {
		t.Errorf("/readyz during the outage = %d, want 503", code)
	}
	time.Sleep(8 * time.Second)
	if err := c.StartServer(t.Context()); err != nil {
		t.Fatal(err)
	}
	down.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for call(t, plain, "GET", health+"/readyz", "", "", nil) != 200 {
		if time.Now().After(deadline) {
			t.Fatal("/readyz did not recover within 10 s of the database returning")
		}
		time.Sleep(200 * time.Millisecond)
	}
	before := acked.Load()
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	if v := bad.Load(); v != nil {
		t.Errorf("a client got %v", v)
	}
	if n, ok := statuses.Load(503); !ok || n.(*atomic.Int64).Load() == 0 {
		t.Error("no request answered 503 during the outage")
	}
	if acked.Load() == before {
		t.Error("no tap succeeded after the database returned")
	}
	var bal struct {
		Unlocked string `json:"effective_unlocked_qty"`
	}
	if code := call(t, plain, "GET", app+"/v0/wallet/balance", alice, "", &bal); code != 200 {
		t.Fatalf("balance: %d", code)
	}
	if want := acked.Load(); bal.Unlocked != strconv.FormatInt(want, 10)+".0000000000" {
		t.Errorf("balance %s, want %d (one coin per acknowledged tap)", bal.Unlocked, want)
	}
}
