package ledgerapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/web"
)

// TestImpersonationSeesItselfAsTheParty: an admin's ccwallet_act_as
// token reading its own user and rights (as the wallet SDK does to find
// the parties it may act as) sees the party it acts as, and only it.
// Before, it read the admin's own record: the validator's party as its
// primary party and ParticipantAdmin among its rights (issue 38's rerun).
func TestImpersonationSeesItselfAsTheParty(t *testing.T) {
	e := newEnv(t, 0)
	alice := e.user("alice", "10")
	tok, err := web.SignDevTokenActAs(e.signer, testKID, "", testAudience, "admin", string(alice), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string, out any) {
		t.Helper()
		req, _ := http.NewRequest("GET", e.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, b)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	var rights struct {
		Rights []map[string]map[string]struct {
			Value map[string]string `json:"value"`
		} `json:"rights"`
	}
	get("/v2/users/admin/rights", &rights)
	if len(rights.Rights) != 1 || rights.Rights[0]["kind"]["CanActAs"].Value["party"] != string(alice) {
		t.Errorf("impersonating alice, the token's own rights = %+v, want CanActAs alice alone", rights.Rights)
	}
	var user struct {
		User struct {
			PrimaryParty string `json:"primaryParty"`
		} `json:"user"`
	}
	get("/v2/users/admin", &user)
	if user.User.PrimaryParty != string(alice) {
		t.Errorf("impersonating alice, the token's own user has primary party %q, want alice's", user.User.PrimaryParty)
	}
}
