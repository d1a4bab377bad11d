package ledgerapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
)

// TestPreferredPackages: the preferred package of a known name is the
// one this ledger knows, by id and version, on its synchronizer; an
// unknown name has none (GET) or is PACKAGE_NAMES_NOT_FOUND (POST);
// asking for parties one may not read as is refused.
func TestPreferredPackages(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", ""), e.user("bob", "")
		get := func(user, name string, parties ...string) *client.GetV2InteractiveSubmissionPreferredPackageVersionResponse {
			t.Helper()
			params := &client.GetV2InteractiveSubmissionPreferredPackageVersionParams{PackageName: name}
			if len(parties) > 0 {
				params.Parties = &parties
			}
			resp, err := e.as(user).GetV2InteractiveSubmissionPreferredPackageVersionWithResponse(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		resp := get("alice", "splice-api-token-holding-v1", string(alice))
		if resp.JSON200 == nil || resp.JSON200.PackagePreference == nil || resp.JSON200.PackagePreference.PackageReference == nil {
			t.Fatalf("holding-v1: %d %s", resp.StatusCode(), resp.Body)
		}
		ref := resp.JSON200.PackagePreference.PackageReference
		if ref.PackageId != "718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b" || ref.PackageVersion != "1.0.0" ||
			resp.JSON200.PackagePreference.SynchronizerId != e.l.SynchronizerID() {
			t.Errorf("holding-v1: %s", resp.Body)
		}
		if resp := get("alice", "no-such-package"); resp.JSON200 == nil || resp.JSON200.PackagePreference != nil {
			t.Errorf("an unknown package: %d %s", resp.StatusCode(), resp.Body)
		}
		denied := get("alice", "splice-amulet", string(bob))
		wantError(t, "reading as bob", http.StatusForbidden, denied.HTTPResponse, denied.JSONDefault, "PERMISSION_DENIED")

		post := func(names ...string) *client.PostV2InteractiveSubmissionPreferredPackagesResponse {
			t.Helper()
			var reqs []map[string]any
			for _, n := range names {
				reqs = append(reqs, map[string]any{"parties": []coin.PartyID{alice}, "packageName": n})
			}
			resp, err := e.as("alice").PostV2InteractiveSubmissionPreferredPackagesWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
				"packageVettingRequirements": reqs, "synchronizerId": e.l.SynchronizerID()}))
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		many := post("splice-amulet", "splice-api-token-transfer-instruction-v1")
		if many.JSON200 == nil || many.JSON200.PackageReferences == nil || len(*many.JSON200.PackageReferences) != 2 ||
			(*many.JSON200.PackageReferences)[0].PackageName != "splice-amulet" {
			t.Fatalf("two packages: %d %s", many.StatusCode(), many.Body)
		}
		unknown := post("splice-amulet", "no-such-package")
		wantError(t, "an unknown package", http.StatusNotFound, unknown.HTTPResponse, unknown.JSONDefault, "PACKAGE_NAMES_NOT_FOUND")
	})
}
