package ledgerapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
	"github.com/ccwallet/ccwallet/web"
)

// TestIdentity: version, participant id, parties and users with rights,
// each for the callers allowed and refused for the others.
func TestIdentity(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice := e.user("alice", "")
		admin, al := e.as(adminUser), e.as("alice")

		v, err := al.GetV2VersionWithResponse(ctx)
		if err != nil || v.JSON200 == nil || v.JSON200.Version == "" {
			t.Fatalf("version: %v %s", err, v.Body)
		}
		pid, err := al.GetV2PartiesParticipantIdWithResponse(ctx)
		if err != nil || pid.JSON200 == nil || pid.JSON200.ParticipantId != e.l.ParticipantID() {
			t.Fatalf("participant id: %v %s", err, pid.Body)
		}

		// Rights: alice acts as her party; the admin is ParticipantAdmin.
		rights := func(c *client.ClientWithResponses, user string) []map[string]map[string]map[string]string {
			t.Helper()
			r, err := c.GetV2UsersUserIdRightsWithResponse(ctx, user)
			if err != nil || r.StatusCode() != http.StatusOK {
				t.Fatalf("rights of %s: %v %s", user, err, r.Body)
			}
			var out struct {
				Rights []struct {
					Kind map[string]map[string]map[string]string `json:"kind"`
				} `json:"rights"`
			}
			if err := json.Unmarshal(r.Body, &out); err != nil {
				t.Fatal(err)
			}
			var ks []map[string]map[string]map[string]string
			for _, r := range out.Rights {
				ks = append(ks, r.Kind)
			}
			return ks
		}
		if got := rights(al, "alice"); len(got) != 1 || got[0]["CanActAs"]["value"]["party"] != string(alice) {
			t.Errorf("alice's rights: %v", got)
		}
		if got := rights(admin, adminUser); len(got) != 2 || got[1]["ParticipantAdmin"] == nil || got[0]["CanActAs"]["value"]["party"] != string(e.l.Operator()) {
			t.Errorf("admin's rights: %v", got)
		}

		// Alice may not read another user, list parties or users, or
		// allocate.
		r1, _ := al.GetV2UsersUserIdRightsWithResponse(ctx, adminUser)
		wantError(t, "alice reads admin's rights", http.StatusForbidden, r1.HTTPResponse, r1.JSONDefault, "PERMISSION_DENIED")
		r2, _ := al.GetV2PartiesWithResponse(ctx, nil)
		wantError(t, "alice lists parties", http.StatusForbidden, r2.HTTPResponse, r2.JSONDefault, "PERMISSION_DENIED")
		r3, _ := al.GetV2UsersWithResponse(ctx, nil)
		wantError(t, "alice lists users", http.StatusForbidden, r3.HTTPResponse, r3.JSONDefault, "PERMISSION_DENIED")
		r4, _ := al.PostV2PartiesWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{"partyIdHint": "mallory", "identityProviderId": ""}))
		wantError(t, "alice allocates", http.StatusForbidden, r4.HTTPResponse, r4.JSONDefault, "PERMISSION_DENIED")

		// No token, or a user the ledger does not know.
		r5, _ := e.as("").GetV2VersionWithResponse(ctx)
		wantError(t, "no token", http.StatusUnauthorized, r5.HTTPResponse, r5.JSONDefault, "UNAUTHENTICATED")
		r6, _ := e.as("stranger").GetV2StateLedgerEndWithResponse(ctx)
		wantError(t, "unknown user", http.StatusForbidden, r6.HTTPResponse, r6.JSONDefault, "PERMISSION_DENIED")
		r7, _ := admin.GetV2UsersUserIdWithResponse(ctx, "nobody")
		wantError(t, "unknown user looked up", http.StatusNotFound, r7.HTTPResponse, r7.JSONDefault, "USER_NOT_FOUND")

		// The admin allocates a party and creates a user acting as it.
		ap, err := admin.PostV2PartiesWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{"partyIdHint": "bob-1", "identityProviderId": ""}))
		if err != nil || ap.JSON200 == nil || ap.JSON200.PartyDetails == nil {
			t.Fatalf("allocate: %v %s", err, ap.Body)
		}
		bob := ap.JSON200.PartyDetails.Party
		again, _ := admin.PostV2PartiesWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{"partyIdHint": "bob-1", "identityProviderId": ""}))
		wantError(t, "allocate twice", http.StatusConflict, again.HTTPResponse, again.JSONDefault, "PARTY_ALREADY_EXISTS")
		cu, err := admin.PostV2UsersWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
			"user":   map[string]any{"id": "bob", "primaryParty": "", "isDeactivated": false, "identityProviderId": ""},
			"rights": []any{map[string]any{"kind": map[string]any{"CanActAs": map[string]any{"value": map[string]any{"party": bob}}}}},
		}))
		if err != nil || cu.JSON200 == nil || cu.JSON200.User == nil || cu.JSON200.User.PrimaryParty != bob {
			t.Fatalf("create user: %v %s", err, cu.Body)
		}
		if got := rights(e.as("bob"), "bob"); len(got) != 1 || got[0]["CanActAs"]["value"]["party"] != bob {
			t.Errorf("bob's rights: %v", got)
		}
		dup, _ := admin.PostV2UsersWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
			"user": map[string]any{"id": "bob", "primaryParty": bob, "isDeactivated": false, "identityProviderId": ""}}))
		wantError(t, "create user twice", http.StatusConflict, dup.HTTPResponse, dup.JSONDefault, "USER_ALREADY_EXISTS")
		adm, _ := admin.PostV2UsersWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
			"user":   map[string]any{"id": "carol", "primaryParty": "", "isDeactivated": false, "identityProviderId": ""},
			"rights": []any{map[string]any{"kind": map[string]any{"IdentityProviderAdmin": map[string]any{"value": map[string]any{}}}}},
		}))
		wantError(t, "grant a right not served", http.StatusBadRequest, adm.HTTPResponse, adm.JSONDefault, "INVALID_ARGUMENT")

		// Lists page by token.
		lu, err := admin.GetV2UsersWithResponse(ctx, &client.GetV2UsersParams{PageSize: ptr(int32(1))})
		if err != nil || lu.JSON200 == nil || lu.JSON200.Users == nil || len(*lu.JSON200.Users) != 1 || lu.JSON200.NextPageToken == "" {
			t.Fatalf("users page 1: %v %s", err, lu.Body)
		}
		seen := map[string]bool{}
		for tok := ""; ; {
			p, err := admin.GetV2UsersWithResponse(ctx, &client.GetV2UsersParams{PageSize: ptr(int32(1)), PageToken: &tok})
			if err != nil || p.JSON200 == nil {
				t.Fatalf("users page: %v %s", err, p.Body)
			}
			for _, u := range *p.JSON200.Users {
				seen[u.Id] = true
			}
			if tok = p.JSON200.NextPageToken; tok == "" {
				break
			}
		}
		if !seen["alice"] || !seen["bob"] || !seen[adminUser] || len(seen) != 3 {
			t.Errorf("users seen page by page: %v", seen)
		}
		lp, err := admin.GetV2PartiesWithResponse(ctx, nil)
		if err != nil || lp.JSON200 == nil {
			t.Fatalf("parties: %v %s", err, lp.Body)
		}
		found := map[string]bool{}
		for _, p := range *lp.JSON200.PartyDetails {
			found[p.Party] = p.IsLocal
		}
		if !found[bob] || !found[string(alice)] {
			t.Errorf("parties %v lack bob or alice", found)
		}

		gp, err := al.GetV2PartiesPartyWithResponse(ctx, string(alice), nil)
		if err != nil || gp.JSON200 == nil || gp.JSON200.PartyDetails == nil || len(*gp.JSON200.PartyDetails) != 1 || (*gp.JSON200.PartyDetails)[0].Party != string(alice) {
			t.Errorf("alice's party: %v %s", err, gp.Body)
		}
		gb, _ := al.GetV2PartiesPartyWithResponse(ctx, bob, nil)
		wantError(t, "alice looks bob's party up", http.StatusForbidden, gb.HTTPResponse, gb.JSONDefault, "PERMISSION_DENIED")
		pk, err := al.GetV2PackagesWithResponse(ctx)
		if err != nil || pk.JSON200 == nil || pk.JSON200.PackageIds == nil || !slices.Contains(*pk.JSON200.PackageIds, "718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b") {
			t.Errorf("packages lack the Holding interface's: %v %s", err, pk.Body)
		}

		cs, err := al.GetV2StateConnectedSynchronizersWithResponse(ctx, &client.GetV2StateConnectedSynchronizersParams{Party: string(alice)})
		if err != nil || cs.JSON200 == nil || len(*cs.JSON200.ConnectedSynchronizers) != 1 || (*cs.JSON200.ConnectedSynchronizers)[0].SynchronizerId != e.l.SynchronizerID() {
			t.Fatalf("connected synchronizers: %v %s", err, cs.Body)
		}
		cs2, _ := al.GetV2StateConnectedSynchronizersWithResponse(ctx, &client.GetV2StateConnectedSynchronizersParams{Party: bob})
		wantError(t, "alice asks for bob's synchronizers", http.StatusForbidden, cs2.HTTPResponse, cs2.JSONDefault, "PERMISSION_DENIED")
	})
}

func ptr[T any](v T) *T { return &v }

// TestRateLimit: a user past its request rate gets Canton's
// PARTICIPANT_BACKPRESSURE with a Retry-After; other users go on.
func TestRateLimit(t *testing.T) {
	e := newEnv(t, 1, web.NewLimiter(web.RateLimit{Burst: 3, Per: time.Hour}))
	e.user("alice", "")
	al := e.as("alice")
	for i := range 3 {
		if r, err := al.GetV2StateLedgerEndWithResponse(context.Background()); err != nil || r.StatusCode() != http.StatusOK {
			t.Fatalf("request %d: %v %s", i, err, r.Body)
		}
	}
	r, _ := al.GetV2StateLedgerEndWithResponse(context.Background())
	wantError(t, "4th request", http.StatusConflict, r.HTTPResponse, r.JSONDefault, "PARTICIPANT_BACKPRESSURE")
	if r.HTTPResponse.Header.Get("Retry-After") == "" || r.JSONDefault == nil || r.JSONDefault.RetryInfo == nil {
		t.Errorf("no retry advice: %v %s", r.HTTPResponse.Header, r.Body)
	}
	if r, err := e.as(adminUser).GetV2StateLedgerEndWithResponse(context.Background()); err != nil || r.StatusCode() != http.StatusOK {
		t.Errorf("another user: %v %s", err, r.Body)
	}
}
