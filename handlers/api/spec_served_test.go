package api_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// specUnrouted are the operations of specFiles no route takes yet: none
// now. An operation the specs gain is unrouted until it is served or
// listed here, so the list stays the true answer to "what is not served".
var specUnrouted = []string{}

// TestSpecOperationsRouted: every operation of the specs we serve
// (specFiles, scan.yaml aside: its operations are scan's, not the
// validator's) has a route, bar exactly those of specUnrouted.
func TestSpecOperationsRouted(t *testing.T) {
	ss, err := handlerstest.LoadSpecs()
	if err != nil {
		t.Fatal(err)
	}
	e := newContractEnv(t, ledgertest.Engines[1])
	param := regexp.MustCompile(`\{[^}]+\}`)
	var unrouted []string
	for _, s := range ss {
		if s.Name == "scan.yaml" {
			continue
		}
		for path, item := range s.Doc.Paths.Map() {
			for method, op := range item.Operations() {
				if path == "/readyz" || path == "/livez" {
					continue // routed with the health checks cmd passes to Routes (serve_test.go)
				}
				req := httptest.NewRequest(method, param.ReplaceAllString(path, "x"), nil)
				req.Header.Set("Accept", "application/json")
				rec := httptest.NewRecorder()
				e.h.ServeHTTP(rec, req)
				// The catch-all's answers (unrouted.go): no route for the path,
				// or none for the method.
				body := rec.Body.String()
				if rec.Code == http.StatusNotFound && strings.Contains(body, "no such endpoint") ||
					rec.Code == http.StatusMethodNotAllowed && strings.Contains(body, "is not allowed on") {
					unrouted = append(unrouted, s.Name+"#"+op.OperationID)
				}
			}
		}
	}
	for _, op := range unrouted {
		if !slices.Contains(specUnrouted, op) {
			t.Errorf("%s has no route", op)
		}
	}
	for _, op := range specUnrouted {
		if !slices.Contains(unrouted, op) {
			t.Errorf("%s is routed now: take it off specUnrouted (and cover it in a contract test)", op)
		}
	}
	t.Logf("unrouted: %d operations", len(unrouted))
}
