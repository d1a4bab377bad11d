package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// crashServer is one ccwallet process on a database, killed with SIGKILL.
type crashServer struct {
	cmd *exec.Cmd
	url string
}

func startCrashServer(t *testing.T, bin, dbURL, dir string) *crashServer {
	t.Helper()
	return startCrashServerWith(t, bin, dbURL, dir, "rateLimit: {burst: 0}\n")
}

// startCrashServerWith starts the wallet with the given values file.
func startCrashServerWith(t *testing.T, bin, dbURL, dir, values string) *crashServer {
	t.Helper()
	cfg := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(cfg, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--config", cfg, "--db", dbURL, "--listen", "127.0.0.1:0",
		"--health-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--ledger-api-listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "WALLET_NETWORK=devnet")
	logf, err := os.OpenFile(filepath.Join(dir, "crash.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	t.Cleanup(func() {
		// A failed test says what the wallet logged last: a CI run
		// keeps nothing else of it.
		if log, err := os.ReadFile(logf.Name()); err == nil && t.Failed() {
			lines := strings.Split(strings.TrimSpace(string(log)), "\n")
			t.Logf("the wallet's last log lines:\n%s", strings.Join(lines[max(0, len(lines)-60):], "\n"))
		}
	})
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := readyRe.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- strings.TrimSuffix(m[1], "/")
			}
		}
	}()
	select {
	case u := <-urlc:
		return &crashServer{cmd: cmd, url: u}
	case <-time.After(60 * time.Second):
		log, _ := os.ReadFile(filepath.Join(dir, "crash.log"))
		t.Fatalf("wallet did not start:\n%s", log)
	}
	return nil
}

func devToken(t *testing.T, bin, user string) string {
	t.Helper()
	out, err := exec.Command(bin, "token", "--user", user).Output()
	if err != nil {
		t.Fatalf("ccwallet token: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func postJSON(c *http.Client, url, token, body string) (int, string, error) {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// TestKillNineUnderLoad kills the server with SIGKILL while clients send
// one-step transfers, restarts it on the same database, and checks that
// every acknowledged transfer is in the history exactly once, that
// retrying any request with its deduplication id never transfers twice,
// and that the ledger's supply is conserved: nothing is half-applied.
func TestKillNineUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bin, dbURL, dir := crashEnv(t)
	srv := startCrashServer(t, bin, dbURL, dir)
	c := &http.Client{Timeout: 20 * time.Second}
	admin := devToken(t, bin, "admin")
	const users = 6
	tokens := make([]string, users)
	parties := make([]string, users)
	for i := range users {
		name := fmt.Sprintf("crash-%d", i)
		code, body, err := postJSON(c, srv.url+"/v0/admin/users", admin, fmt.Sprintf(`{"name":%q}`, name))
		if err != nil || code != 200 {
			t.Fatalf("onboard %s: %d %s %v", name, code, body, err)
		}
		var r struct {
			PartyID string `json:"party_id"`
		}
		_ = json.Unmarshal([]byte(body), &r)
		parties[i], tokens[i] = r.PartyID, devToken(t, bin, name)
		if code, body, err := postJSON(c, srv.url+"/v0/wallet/tap", tokens[i], `{"amount":"50"}`); err != nil || code != 200 {
			t.Fatalf("tap: %d %s %v", code, body, err)
		}
		if code, body, err := postJSON(c, srv.url+"/v0/wallet/transfer-preapproval", tokens[i], ""); err != nil || code != 200 {
			t.Fatalf("preapproval: %d %s %v", code, body, err)
		}
	}

	type send struct {
		from int
		body string
	}
	var mu sync.Mutex
	var acked, unknown []send
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				s := send{from: w, body: fmt.Sprintf(`{"receiver_party_id":%q,"amount":"0.5","deduplication_id":"w%d-%d"}`, parties[(w+1)%users], w, i)}
				code, _, err := postJSON(c, srv.url+"/v0/wallet/transfer-preapproval/send", tokens[w], s.body)
				mu.Lock()
				switch {
				case err != nil:
					unknown = append(unknown, s) // the crash: committed or not
				case code == 200:
					acked = append(acked, s)
				default:
					unknown = append(unknown, s)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	if err := srv.cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown at all
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	_ = srv.cmd.Wait()
	if len(acked) == 0 {
		t.Fatal("no transfer was acknowledged before the crash")
	}

	srv = startCrashServer(t, bin, dbURL, dir)
	// Every acknowledged transfer is refused as a duplicate when retried.
	for _, s := range acked {
		code, body, err := postJSON(c, srv.url+"/v0/wallet/transfer-preapproval/send", tokens[s.from], s.body)
		if err != nil || code != 409 {
			t.Errorf("retry of an acknowledged transfer: %d %s %v, want 409", code, body, err)
		}
	}
	// A request whose answer was lost is settled by retrying it: it either
	// happened (409) or happens now (200), never twice.
	settled := len(acked)
	for _, s := range unknown {
		code, body, err := postJSON(c, srv.url+"/v0/wallet/transfer-preapproval/send", tokens[s.from], s.body)
		if err != nil || code != 200 && code != 409 {
			t.Errorf("retry of an unanswered transfer: %d %s %v", code, body, err)
		}
		settled++
	}

	// The history holds each settled transfer exactly once. Every page is
	// read: a fast machine settles over 500 sends a user, and each user's
	// history holds its receipts too.
	sent := 0
	for i := range users {
		for after := ""; ; {
			code, body, err := postJSON(c, srv.url+"/v0/wallet/transactions", tokens[i], fmt.Sprintf(`{"page_size":1000,"begin_after_id":%q}`, after))
			if err != nil || code != 200 {
				t.Fatalf("transactions: %d %v", code, err)
			}
			var h struct {
				Items []struct {
					EventID string                  `json:"event_id"`
					Subtype struct{ Choice string } `json:"transaction_subtype"`
					Sender  *struct{ Party string } `json:"sender"`
				} `json:"items"`
			}
			if err := json.Unmarshal([]byte(body), &h); err != nil {
				t.Fatal(err)
			}
			for _, it := range h.Items {
				if it.Sender != nil && it.Sender.Party == parties[i] && it.Subtype.Choice == "TransferPreapproval_Send" {
					sent++
				}
			}
			if len(h.Items) == 0 {
				break
			}
			after = h.Items[len(h.Items)-1].EventID
		}
	}
	if sent != settled {
		t.Errorf("%d transfers in the senders' histories, %d settled (%d acknowledged before the crash)", sent, settled, len(acked))
	}

	db, err := store.Open(ctx, store.Config{URL: dbURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := ledgertest.OpenLedger(ctx, db, ledger.Config{AdminUsers: []string{"admin"}, DevNet: true})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := l.CheckConservation(ctx); err != nil {
		t.Errorf("after the crash: %v", err)
	} else {
		t.Logf("%d acknowledged, %d settled after restart; supply %s", len(acked), settled, s.Live)
	}
}
