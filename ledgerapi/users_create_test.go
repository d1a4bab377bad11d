package ledgerapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestCreateUserWithRights is the wallet SDK's multi-user setup: an admin
// creates users with the rights the SDK's createUser gives
// (ParticipantAdmin) and grants a master user CanReadAsAnyParty and
// CanExecuteAsAnyParty, as Canton 3.4 does; the master user then executes
// a transaction an external party it has no act-as right for prepared
// and signed. Each created user has exactly its rights; a right that
// cannot be granted creates no user.
func TestCreateUserWithRights(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		admin := e.as(adminUser)
		create := func(id string, rights ...map[string]any) (int, []byte) {
			t.Helper()
			r, err := admin.PostV2UsersWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
				"user":   map[string]any{"id": id, "primaryParty": "", "isDeactivated": false, "identityProviderId": ""},
				"rights": rights,
			}))
			if err != nil {
				t.Fatal(err)
			}
			return r.StatusCode(), r.Body
		}
		if code, b := create("ops", rightJSON("ParticipantAdmin", "")); code != http.StatusOK {
			t.Fatalf("create a user with ParticipantAdmin: %d %s", code, b)
		}
		if r, _ := e.as("ops").GetV2UsersWithResponse(ctx, nil); r.StatusCode() != http.StatusOK {
			t.Errorf("the new admin lists users: %d %s", r.StatusCode(), r.Body)
		}
		if code, b := create("master", rightJSON("ParticipantAdmin", ""), rightJSON("CanReadAsAnyParty", "")); code != http.StatusOK {
			t.Fatalf("create the master user: %d %s", code, b)
		}
		// The older spec the generated client checks against lacks
		// CanExecuteAsAnyParty (3.3 and 3.4 have it): sent unchecked.
		if code, b := e.post(adminUser, "/v2/users/master/rights", map[string]any{
			"userId": "master", "identityProviderId": "", "rights": []any{rightJSON("CanExecuteAsAnyParty", "")},
		}); code != http.StatusOK {
			t.Fatalf("grant CanExecuteAsAnyParty: %d %s", code, b)
		}
		code, rights := e.do(adminUser, http.MethodGet, "/v2/users/master/rights", nil)
		if code != http.StatusOK {
			t.Fatalf("master's rights: %d %s", code, rights)
		}
		for _, kind := range []string{"ParticipantAdmin", "CanReadAsAnyParty", "CanExecuteAsAnyParty", "CanActAs"} {
			if !strings.Contains(string(rights), `"`+kind+`"`) {
				t.Errorf("master's rights %s lack %s", rights, kind)
			}
		}

		// The master user executes what alice (external) prepared and
		// signed; bob, without the right, may not.
		alice := e.external("alice", "100")
		bob := e.user("bob", "")
		cmd, disclose := e.transferCommand(alice.party, bob, "10", nil)
		p := e.mustPrepare(alice, "master-exec", cmd, disclose)
		sigs := signatures(alice.party, alice.key, p.hash)
		if resp := e.execute("bob", p.raw, sigs); resp.StatusCode() != http.StatusForbidden {
			t.Errorf("bob executes for alice: %d %s", resp.StatusCode(), resp.Body)
		}
		if resp := e.execute("master", p.raw, sigs); resp.StatusCode() != http.StatusOK {
			t.Errorf("the master user executes for alice: %d %s", resp.StatusCode(), resp.Body)
		}

		// A right not served creates nobody.
		code, b := create("carol", rightJSON("IdentityProviderAdmin", ""))
		if code != http.StatusBadRequest {
			t.Errorf("create with IdentityProviderAdmin: %d %s", code, b)
		}
		if g, _ := admin.GetV2UsersUserIdWithResponse(ctx, "carol"); g.StatusCode() != http.StatusNotFound {
			t.Errorf("carol exists after a refused create: %d %s", g.StatusCode(), g.Body)
		}
	})
}
