package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// TestAsyncSubmissionsSurviveAKill: alice submits one-step sends to bob
// through the JSON Ledger API's async submit, the wallet is killed with
// SIGKILL right after the answers, and restarted on the same Postgres.
// Durable asynchronous submissions (ledgerApiDurableAsync: true)
// keep each answered submission before answering, so the restarted
// wallet runs the ones the kill interrupted by itself: without any
// resubmission bob comes to hold exactly one amount per answered
// command, and resubmitting each (submit-and-wait, Canton's contract
// when no completion came) is then DUPLICATE_COMMAND (409) every time.
func TestAsyncSubmissionsSurviveAKill(t *testing.T) {
	t.Parallel()
	bin, dbURL, dir := crashEnv(t)
	srv := startCrashServerWith(t, bin, dbURL, dir, durableValues)
	lapi := lastLedgerAPI(t, dir)
	c := &http.Client{Timeout: 20 * time.Second}
	admin := devToken(t, bin, "admin")
	party := func(name string) string {
		t.Helper()
		code, body, err := postJSON(c, srv.url+"/v0/admin/users", admin, fmt.Sprintf(`{"name":%q}`, name))
		if err != nil || code != http.StatusOK {
			t.Fatalf("onboard %s: %d %s %v", name, code, body, err)
		}
		var r struct {
			PartyID string `json:"party_id"`
		}
		must(t, json.Unmarshal([]byte(body), &r))
		return r.PartyID
	}
	alice := party("alice")
	party("bob")
	aliceTok, bobTok := devToken(t, bin, "alice"), devToken(t, bin, "bob")
	if code, body, err := postJSON(c, srv.url+"/v0/wallet/tap", aliceTok, `{"amount":"1000"}`); err != nil || code != http.StatusOK {
		t.Fatalf("tap: %d %s %v", code, body, err)
	}
	code, body, err := postJSON(c, srv.url+"/v0/wallet/transfer-preapproval", bobTok, "")
	if err != nil || code != http.StatusOK {
		t.Fatalf("preapproval: %d %s %v", code, body, err)
	}
	var pre struct {
		CID string `json:"transfer_preapproval_contract_id"`
	}
	must(t, json.Unmarshal([]byte(body), &pre))

	const n = 60
	send := func(i int) string {
		b, _ := json.Marshal(map[string]any{
			"commands": []any{map[string]any{"ExerciseCommand": map[string]any{
				"templateId": "#splice-amulet:Splice.AmuletRules:TransferPreapproval", "contractId": pre.CID, "choice": "TransferPreapproval_Send",
				"choiceArgument": map[string]any{"context": map[string]any{}, "inputs": []any{}, "amount": "1.5", "sender": alice, "description": "async"},
			}}},
			"commandId": fmt.Sprintf("async-kill-%d", i), "userId": "alice", "actAs": []string{alice},
		})
		return string(b)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	answered, was := 0, make([]bool, n)
	for i := range n {
		wg.Go(func() {
			code, _, err := postJSON(c, lapi+"/v2/commands/async/submit", aliceTok, send(i))
			if err == nil && code == http.StatusOK {
				mu.Lock()
				answered++
				was[i] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := srv.cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown at all
		t.Fatal(err)
	}
	_ = srv.cmd.Wait()
	if answered == 0 {
		t.Fatal("no async submission was answered before the kill")
	}

	srv = startCrashServerWith(t, bin, dbURL, dir, durableValues)
	lapi = lastLedgerAPI(t, dir)
	balance := func() coin.Amount {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.url+"/v0/wallet/balance", nil)
		req.Header.Set("Authorization", "Bearer "+bobTok)
		resp, err := c.Do(req)
		must(t, err)
		defer resp.Body.Close()
		var bal struct {
			Unlocked string `json:"effective_unlocked_qty"`
		}
		must(t, json.NewDecoder(resp.Body).Decode(&bal))
		got, err := coin.ParseAmount(bal.Unlocked)
		must(t, err)
		return got
	}
	// 1.5 for each answered submission, run before the kill or resumed
	// after it (a kept one is taken over once its process is gone 10 s).
	want := coin.MustParse("1.5").MulInt(int64(answered))
	got := balance()
	for deadline := time.Now().Add(90 * time.Second); !got.Equal(want) && time.Now().Before(deadline); got = balance() {
		time.Sleep(500 * time.Millisecond)
	}
	if !got.Equal(want) {
		t.Fatalf("without resubmission bob holds %s, want exactly %s (%d answered submissions)", got, want, answered)
	}
	for i := range n {
		code, body, err := postJSON(c, lapi+"/v2/commands/submit-and-wait", aliceTok, send(i))
		switch {
		case err != nil:
			t.Fatalf("resubmit %d: %v", i, err)
		case code == http.StatusOK && was[i]:
			t.Errorf("resubmit %d applied again: an answered submission was lost", i)
		case code != http.StatusOK && code != http.StatusConflict:
			t.Errorf("resubmit %d: %d %s, want 409 (applied before) or 200 (never answered)", i, code, body)
		}
	}
	for i := range n {
		if code, body, err := postJSON(c, lapi+"/v2/commands/submit-and-wait", aliceTok, send(i)); err != nil || code != http.StatusConflict {
			t.Errorf("second resubmission of %d: %d %s %v, want 409 DUPLICATE_COMMAND", i, code, body, err)
		}
	}
	if got, want := balance(), coin.MustParse("90"); !got.Equal(want) { // 60 × 1.5, each exactly once
		t.Errorf("bob holds %s, want exactly %s", got, want)
	}
}

// durableValues turn durable asynchronous submissions on (off by
// default: docs/operator.md).
const durableValues = "rateLimit: {burst: 0}\nledgerApiDurableAsync: true\n"

// lastLedgerAPI is the JSON Ledger API's URL the wallet last logged in dir
// (startCrashServer appends to one log across restarts).
func lastLedgerAPI(t *testing.T, dir string) string {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(dir, "crash.log"))
	must(t, err)
	m := ledgerAPIRe.FindAllSubmatch(log, -1)
	if m == nil {
		t.Fatalf("the wallet logged no Ledger API address:\n%s", log)
	}
	return "http://" + string(m[len(m)-1][1])
}
