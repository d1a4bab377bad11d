package ledgerapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/web"
)

// TestRestoreGate: while a development network is restored, the Ledger
// API turns requests away with 503, as the app port does, instead of
// reading a network half replaced. The request is made from a restore
// hook, which runs while the gate is closed.
func TestRestoreGate(t *testing.T) {
	e := newEnv(t, 0)
	e.user("alice", "10")
	tok, err := web.SignDevToken(e.signer, testKID, "", testAudience, "alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	get := func() int {
		req, _ := http.NewRequest("GET", e.url+"/v2/state/ledger-end", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	during := 0
	e.l.OnRestore(func() { during = get() })
	dev := devnet.New(e.l)
	if _, err := dev.Snapshot(t.Context(), "base"); err != nil {
		t.Fatal(err)
	}
	if err := dev.Restore(t.Context(), "base"); err != nil {
		t.Fatal(err)
	}
	if during != http.StatusServiceUnavailable {
		t.Errorf("a Ledger API request during a restore = %d, want 503", during)
	}
	if got := get(); got != http.StatusOK {
		t.Errorf("after the restore = %d, want 200", got)
	}
}
