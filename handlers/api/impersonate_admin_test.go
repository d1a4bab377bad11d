package api_test

import (
	"net/http"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
)

// TestImpersonationDropsAdminEndpoints: an admin's ccwallet_act_as token
// reaches no admin endpoint of the JSON APIs; the admin's own token does.
// Before, it kept every admin right.
func TestImpersonationDropsAdminEndpoints(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		_, alice := a.User("alice", "10")
		if r := a.As("admin").DoOwn("GET", "/v0/admin/users", nil); r.Status != http.StatusOK {
			t.Fatalf("the admin's own token: %d %s", r.Status, r.Body)
		}
		as := a.ActingAs("admin", alice)
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/v0/admin/users", nil},
			{"POST", "/v0/admin/users", map[string]any{"name": "mallory"}},
		} {
			if r := as.DoOwn(c.method, c.path, c.body); r.Status != http.StatusForbidden {
				t.Errorf("impersonating alice, %s %s = %d %s, want 403", c.method, c.path, r.Status, r.Body)
			}
		}
	})
}
