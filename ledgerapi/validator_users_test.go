package ledgerapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/validators"
)

// TestCompletionsPerValidator: the same user id on two validators of one
// network (serve --localnet's app user and app provider) names two
// users. Carol on each validator may act as alice (a party of the app
// user; the app provider's admin grants it too); each submits command c1
// as alice: neither is a duplicate of the other, and each reads only its
// own completion, with its own user id.
func TestCompletionsPerValidator(t *testing.T) {
	for i, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			ctx := context.Background()
			e1 := newEnv(t, i)
			pv, err := validators.Add(ctx, e1.l, "app-provider-1", []string{adminUser})
			if err != nil {
				t.Fatal(err)
			}
			e2 := newEnvOn(t, pv, e1.clock)
			alice := e1.user("alice", "")
			e1.user("carol", "")
			e2.user("carol", "")
			for _, e := range []*env{e1, e2} {
				r, err := e.as(adminUser).PostV2UsersUserIdRightsWithBodyWithResponse(ctx, "carol", jsonType, body(t,
					map[string]any{"userId": "carol", "rights": []any{rightJSON("CanActAs", alice)}, "identityProviderId": ""}))
				if err != nil || r.StatusCode() != http.StatusOK {
					t.Fatalf("grant carol alice: %v %s", err, r.Body)
				}
			}
			ping := func(id string) map[string]any {
				return map[string]any{"CreateCommand": map[string]any{"templateId": "#AdminWorkflows:Canton.Internal.Ping:Ping",
					"createArguments": map[string]any{"id": id, "initiator": alice, "responder": alice}}}
			}
			e1.mustCommand("carol", "c1", alice, ping("app-user"), nil)
			e2.mustCommand("carol", "c1", alice, ping("app-provider"), nil)
			for _, e := range []*env{e1, e2} {
				cs := e.completions("carol", []coin.PartyID{alice}, 0, 0)
				if len(cs) != 1 || cs[0].UserID != "carol" || cs[0].CommandID != "c1" {
					t.Errorf("carol's completions on %s: %+v, want her one", e.l.Operator(), cs)
				}
			}
			// A replay on one validator is still its duplicate.
			code, b := e2.command("carol", "c1", alice, ping("app-provider"), nil)
			wantCode(t, "the replay", code, b, http.StatusConflict, "DUPLICATE_COMMAND")
		})
	}
}
