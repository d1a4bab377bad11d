package ledgerapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestSupportedFromRouteTable: an operation not served answers 501 with
// what is, read from the route table: each path once with its methods,
// every route, and what a submission may be.
func TestSupportedFromRouteTable(t *testing.T) {
	e := newEnv(t, 0)
	e.user("alice", "")
	r, err := e.as("alice").GetV2IdpsWithResponse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "identity providers", http.StatusNotImplemented, r.HTTPResponse, r.JSONDefault, "UNSUPPORTED_OPERATION")
	cause := r.JSONDefault.Cause
	for _, route := range []string{"GET /v2/version", "GET|POST /v2/parties", "GET|POST /v2/users", "GET|PATCH|DELETE /v2/users/{userId}",
		"GET|POST|PATCH /v2/users/{userId}/rights", "GET /v2/updates/transaction-tree-by-id/{updateId}",
		"POST /v2/commands/submit-and-wait (one ExerciseCommand of TransferFactory_Transfer", "POST /v2/commands/completions",
		"POST /v2/interactive-submission/execute"} {
		if !strings.Contains(cause, route) {
			t.Errorf("the 501 answer lacks %q:\n%s", route, cause)
		}
	}
	if strings.Contains(cause, "/docs/openapi") {
		t.Errorf("the 501 answer lists a path outside the Ledger API:\n%s", cause)
	}
}
