package ledgerapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/web"
)

// TestImpersonationDropsAdminRights: an admin's ccwallet_act_as token
// acts as its party and only as it: it lists no users, grants no rights
// and sees no admin right of its own. Before, it kept every admin right.
func TestImpersonationDropsAdminRights(t *testing.T) {
	e := newEnv(t, 0)
	alice := e.user("alice", "10")
	e.user("bob", "")
	call := func(actAs, method, path, body string) int {
		t.Helper()
		tok, err := web.SignDevTokenActAs(e.signer, testKID, "", testAudience, "admin", actAs, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(method, e.url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	grant := `{"userId":"bob","identityProviderId":"","rights":[{"kind":{"CanReadAsAnyParty":{"value":{}}}}]}`
	if got := call("", "GET", "/v2/users", ""); got != http.StatusOK {
		t.Fatalf("the admin's own token lists users: %d", got)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v2/users", ""},
		{"POST", "/v2/users/bob/rights", grant},
		{"GET", "/v2/users/bob", ""},
	} {
		if got := call(string(alice), c.method, c.path, c.body); got != http.StatusForbidden {
			t.Errorf("impersonating alice, %s %s = %d, want 403", c.method, c.path, got)
		}
	}
}
