package ledgerapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
)

// rightJSON is a Right in the JSON API's encoding.
func rightJSON(kind string, party coin.PartyID) map[string]any {
	v := map[string]any{}
	if party != "" {
		v["party"] = party
	}
	return map[string]any{"kind": map[string]any{kind: map[string]any{"value": v}}}
}

// TestUserRightsManagement: an admin grants and revokes rights
// (POST/PATCH /v2/users/{id}/rights), deactivates (PATCH /v2/users/{id})
// and deletes users; each change takes effect on the user's next call;
// only admins may, the body's user must be the path's, unknown users and
// parties and rights that cannot be granted are refused.
func TestUserRightsManagement(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", ""), e.user("bob", "")
		readAlice := func(user string) int {
			t.Helper()
			r, err := e.as(user).GetV2StateConnectedSynchronizersWithResponse(ctx, &client.GetV2StateConnectedSynchronizersParams{Party: string(alice)})
			if err != nil {
				t.Fatal(err)
			}
			return r.StatusCode()
		}
		rights := func(method, user, path string, req map[string]any) (int, []byte) {
			t.Helper()
			var code int
			var b []byte
			if method == http.MethodPost {
				r, err := e.as(user).PostV2UsersUserIdRightsWithBodyWithResponse(ctx, path, jsonType, body(t, req))
				if err != nil {
					t.Fatal(err)
				}
				code, b = r.StatusCode(), r.Body
			} else {
				r, err := e.as(user).PatchV2UsersUserIdRightsWithBodyWithResponse(ctx, path, jsonType, body(t, req))
				if err != nil {
					t.Fatal(err)
				}
				code, b = r.StatusCode(), r.Body
			}
			return code, b
		}
		change := func(method, path string, rs ...map[string]any) []any {
			t.Helper()
			code, b := rights(method, adminUser, path, map[string]any{"userId": path, "rights": rs, "identityProviderId": ""})
			if code != http.StatusOK {
				t.Fatalf("%s rights of %s: %d %s", method, path, code, b)
			}
			var out map[string][]any
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			return append(out["newlyGrantedRights"], out["newlyRevokedRights"]...)
		}
		listRights := func(user string) string {
			t.Helper()
			r, err := e.as(adminUser).GetV2UsersUserIdRightsWithResponse(ctx, user)
			if err != nil || r.StatusCode() != http.StatusOK {
				t.Fatalf("rights of %s: %v %s", user, err, r.Body)
			}
			return string(r.Body)
		}

		// CanReadAs alice lets bob read as her, not act; revoked, not read.
		if code := readAlice("bob"); code != http.StatusForbidden {
			t.Fatalf("bob reads as alice before the grant: %d", code)
		}
		if got := change(http.MethodPost, "bob", rightJSON("CanReadAs", alice)); len(got) != 1 {
			t.Errorf("newly granted %v, want the one", got)
		}
		if got := change(http.MethodPost, "bob", rightJSON("CanReadAs", alice)); len(got) != 0 {
			t.Errorf("granted again: newly %v, want none", got)
		}
		if code := readAlice("bob"); code != http.StatusOK {
			t.Errorf("bob reads as alice after the grant: %d", code)
		}
		sub, _ := e.as("bob").PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, preapprovalSend(string(coin.NewContractID()), alice, alice, "c1")))
		wantError(t, "bob acts as alice with CanReadAs", http.StatusForbidden, sub.HTTPResponse, sub.JSONDefault, "PERMISSION_DENIED")
		if got := change(http.MethodPatch, "bob", rightJSON("CanReadAs", alice)); len(got) != 1 {
			t.Errorf("newly revoked %v, want the one", got)
		}
		if code := readAlice("bob"); code != http.StatusForbidden {
			t.Errorf("bob reads as alice after the revocation: %d", code)
		}

		// A default right revoked and granted back leaves the defaults.
		before := listRights("alice")
		change(http.MethodPatch, "alice", rightJSON("CanActAs", alice))
		if code := readAlice("alice"); code != http.StatusForbidden {
			t.Errorf("alice reads as herself without CanActAs: %d", code)
		}
		change(http.MethodPost, "alice", rightJSON("CanActAs", alice))
		if code, after := readAlice("alice"), listRights("alice"); code != http.StatusOK || after != before {
			t.Errorf("alice after the grant back: %d, rights %s, want %s", code, after, before)
		}
		change(http.MethodPost, "bob", rightJSON("ParticipantAdmin", ""))
		if r, _ := e.as("bob").GetV2UsersWithResponse(ctx, nil); r.StatusCode() != http.StatusOK {
			t.Errorf("bob lists users as ParticipantAdmin: %d", r.StatusCode())
		}
		change(http.MethodPatch, "bob", rightJSON("ParticipantAdmin", ""))

		// Refusals.
		for _, c := range []struct {
			what, user, path string
			req              map[string]any
			code             int
			id               string
		}{
			{"not an admin", "alice", "bob", map[string]any{"userId": "bob", "rights": []any{rightJSON("CanReadAs", alice)}, "identityProviderId": ""}, http.StatusForbidden, ""},
			{"path and body differ", adminUser, "bob", map[string]any{"userId": "alice", "rights": []any{}, "identityProviderId": ""}, http.StatusBadRequest, "INVALID_ARGUMENT"},
			{"unknown user", adminUser, "nobody", map[string]any{"userId": "nobody", "rights": []any{rightJSON("CanReadAs", alice)}, "identityProviderId": ""}, http.StatusNotFound, "USER_NOT_FOUND"},
			{"unknown party", adminUser, "bob", map[string]any{"userId": "bob", "rights": []any{rightJSON("CanReadAs", "nobody::1220"+coinHex)}, "identityProviderId": ""}, http.StatusNotFound, "PARTY_NOT_KNOWN_ON_LEDGER"},
			{"a right not served", adminUser, "bob", map[string]any{"userId": "bob", "rights": []any{rightJSON("IdentityProviderAdmin", "")}, "identityProviderId": ""}, http.StatusBadRequest, "INVALID_ARGUMENT"},
		} {
			code, b := rights(http.MethodPost, c.user, c.path, c.req)
			var ce struct {
				Code string `json:"code"`
			}
			json.Unmarshal(b, &ce)
			if code != c.code || c.id != "" && ce.Code != c.id {
				t.Errorf("%s: %d %s, want %d %s", c.what, code, b, c.code, c.id)
			}
		}

		// Deactivated, bob can do nothing; active again, he can.
		update := func(path string, user map[string]any, paths ...string) (int, []byte) {
			t.Helper()
			r, err := e.as(adminUser).PatchV2UsersUserIdWithBodyWithResponse(ctx, path, jsonType, body(t, map[string]any{
				"user": user, "updateMask": map[string]any{"paths": paths, "unknownFields": map[string]any{"fields": map[string]any{}}},
			}))
			if err != nil {
				t.Fatal(err)
			}
			return r.StatusCode(), r.Body
		}
		bobUser := func(deactivated bool, party coin.PartyID) map[string]any {
			return map[string]any{"id": "bob", "primaryParty": party, "isDeactivated": deactivated, "identityProviderId": "",
				"metadata": map[string]any{"resourceVersion": "", "annotations": map[string]any{}}}
		}
		if code, b := update("bob", bobUser(true, bob), "is_deactivated"); code != http.StatusOK || !json.Valid(b) {
			t.Fatalf("deactivate bob: %d %s", code, b)
		}
		if r, _ := e.as("bob").GetV2UsersUserIdWithResponse(ctx, "bob"); r.StatusCode() != http.StatusForbidden {
			t.Errorf("deactivated bob reads himself: %d", r.StatusCode())
		}
		if r, _ := e.as(adminUser).GetV2UsersUserIdWithResponse(ctx, "bob"); r.JSON200 == nil || !r.JSON200.User.IsDeactivated {
			t.Errorf("bob as the admin sees him: %s", r.Body)
		}
		if code, b := update("bob", bobUser(false, bob), "is_deactivated"); code != http.StatusOK {
			t.Fatalf("activate bob: %d %s", code, b)
		}
		if r, _ := e.as("bob").GetV2UsersUserIdWithResponse(ctx, "bob"); r.StatusCode() != http.StatusOK {
			t.Errorf("bob active again: %d", r.StatusCode())
		}
		if code, b := update("bob", bobUser(false, alice), "primary_party"); code != http.StatusBadRequest {
			t.Errorf("bob's primary party to alice: %d %s", code, b)
		}
		if code, b := update("alice", bobUser(false, bob), "is_deactivated"); code != http.StatusBadRequest {
			t.Errorf("path alice, body bob: %d %s", code, b)
		}

		// Deleted, bob is gone.
		if r, _ := e.as(adminUser).DeleteV2UsersUserIdWithResponse(ctx, adminUser); r.StatusCode() != http.StatusBadRequest {
			t.Errorf("the admin deletes itself: %d %s", r.StatusCode(), r.Body)
		}
		if r, err := e.as(adminUser).DeleteV2UsersUserIdWithResponse(ctx, "bob"); err != nil || r.StatusCode() != http.StatusOK {
			t.Fatalf("delete bob: %v %s", err, r.Body)
		}
		if r, _ := e.as(adminUser).GetV2UsersUserIdWithResponse(ctx, "bob"); r.StatusCode() != http.StatusNotFound {
			t.Errorf("bob after the delete: %d %s", r.StatusCode(), r.Body)
		}
		if r, _ := e.as("bob").GetV2UsersUserIdWithResponse(ctx, "bob"); r.StatusCode() != http.StatusForbidden {
			t.Errorf("deleted bob calls: %d", r.StatusCode())
		}
	})
}

// coinHex is 64 hex digits, a party id's fingerprint.
const coinHex = "0000000000000000000000000000000000000000000000000000000000000000"
