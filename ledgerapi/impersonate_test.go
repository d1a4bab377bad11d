package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/web"
)

// TestImpersonationToken: on a development network an admin's token with
// ccwallet_act_as reads (and acts) as that party, which the admin's own
// token may not (ParticipantAdmin grants no party rights); a user's such
// token is refused.
func TestImpersonationToken(t *testing.T) {
	e := newEnv(t, 0)
	alice := e.user("alice", "10")
	e.user("bob", "")
	acs := func(user, actAs string) int {
		t.Helper()
		tok, err := web.SignDevTokenActAs(e.signer, testKID, "", testAudience, user, actAs, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(map[string]any{"eventFormat": filter(alice), "activeAtOffset": e.ledgerEnd()})
		req, _ := http.NewRequest("POST", e.url+"/v2/state/active-contracts", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := acs("admin", ""); got != http.StatusForbidden {
		t.Errorf("admin reading alice's contracts = %d, want 403", got)
	}
	if got := acs("admin", string(alice)); got != http.StatusOK {
		t.Errorf("admin acting as alice = %d, want 200", got)
	}
	if got := acs("bob", string(alice)); got != http.StatusForbidden {
		t.Errorf("bob acting as alice = %d, want 403", got)
	}
}
