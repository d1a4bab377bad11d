package handlerstest_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
)

// TestSpecsLoad proves the harness itself: every spec loads and routes.
func TestSpecsLoad(t *testing.T) {
	ss, err := handlerstest.LoadSpecs()
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != len(handlerstest.SpecFiles) {
		t.Fatalf("loaded %d specs, want %d", len(ss), len(handlerstest.SpecFiles))
	}
	for _, p := range []string{"/v0/wallet/token-standard/transfers", "/api/validator/v0/wallet/buy-traffic-requests", "/registry/transfer-instruction/v1/transfer-factory"} {
		req := httptest.NewRequest(http.MethodPost, strings.TrimPrefix(p, "/api/validator"), nil)
		if route, _, _, err := handlerstest.FindOperation(req); err != nil || route == nil {
			t.Errorf("POST %s: no route (%v)", p, err)
		}
	}
}

// TestSpecCheckCatchesMismatches proves specCheck fails on what it must.
func TestSpecCheckCatchesMismatches(t *testing.T) {
	const create = "/api/validator/v0/wallet/token-standard/transfers"
	okReq := `{"receiver_party_id":"b::1220","amount":"1","description":"","expires_at":1,"tracking_id":"t"}`
	cases := []struct {
		name, method, path, req string
		status                  int
		resp                    string
		wantErr                 bool
	}{
		{"valid", "POST", create, okReq, 200, `{"output":{"transfer_instruction_cid":"c"},"sender_change_cids":[],"meta":{}}`, false},
		{"valid failed output", "POST", create, okReq, 200, `{"output":{},"sender_change_cids":[],"meta":{}}`, false},
		{"missing required response field", "POST", create, okReq, 200, `{"output":{"transfer_instruction_cid":"c"},"meta":{}}`, true},
		{"wrong response type", "POST", create, okReq, 200, `{"output":{"transfer_instruction_cid":1},"sender_change_cids":[],"meta":{}}`, true},
		{"accepted an invalid request", "POST", create, `{"amount":"1"}`, 200, `{"output":{},"sender_change_cids":[],"meta":{}}`, true},
		{"rejected an invalid request", "POST", create, `{"amount":"1"}`, 400, `{"error":"receiver_party_id: is required"}`, false},
		{"error body shape", "POST", create, okReq, 409, `{"message":"dup"}`, true},
		{"unknown operation", "POST", "/v0/wallet/nothing-here", "{}", 200, `{}`, true},
		{"registry without prefix", "GET", "/registry/metadata/v1/info", "", 200, `{"adminId":"dso","supportedApis":{"x":1}}`, false},
		{"registry bad response", "GET", "/registry/metadata/v1/info", "", 200, `{"supportedApis":{"x":1}}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &handlerstest.RecordingTB{TB: t}
			req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.req))
			if c.req != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			h := http.Header{"Content-Type": {"application/json"}}
			handlerstest.SpecCheck(rec, req, []byte(c.req), c.status, h, []byte(c.resp))
			if got := len(rec.Errs) > 0; got != c.wantErr {
				t.Errorf("errors = %q, want errors: %v", rec.Errs, c.wantErr)
			}
		})
	}
}

// TestUndeclaredFields proves the undeclared-field check: optional fields
// misspelt are caught, free-form objects (a contract's payload) are not.
func TestUndeclaredFields(t *testing.T) {
	cases := []struct {
		name, method, path, body string
		want                     []string
	}{
		{"status ok", "POST", "/v0/wallet/transfer-offers/t/status", `{"status":"failed","failure_kind":"withdrawn","withdrawn_reason":"x"}`, nil},
		{"status misspelt", "POST", "/v0/wallet/transfer-offers/t/status", `{"status":"failed","failure_kind":"rejected","failure_reason":"x"}`, []string{"$.failure_reason"}},
		{"free payload", "GET", "/v0/wallet/transfer-offers", `{"offers":[{"template_id":"t","contract_id":"c","payload":{"any":{"thing":1}},"created_event_blob":"","created_at":"x"}]}`, nil},
		{"nested extra", "GET", "/v0/wallet/transfer-offers", `{"offers":[{"template_id":"t","contract_id":"c","payload":{},"created_event_blob":"","created_at":"x","domain":"d"}]}`, []string{"$.offers[0].domain"}},
		{"oneOf output", "POST", "/v0/wallet/token-standard/transfers", `{"output":{"transfer_instruction_cid":"c","receiver_cid":"x"},"sender_change_cids":[],"meta":{}}`, []string{"$.output.receiver_cid"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			route, _, _, err := handlerstest.FindOperation(httptest.NewRequest(c.method, c.path, nil))
			if err != nil || route == nil {
				t.Fatalf("no route: %v", err)
			}
			got := handlerstest.UndeclaredResponseFields(route.Operation, 200, []byte(c.body))
			if !slices.Equal(got, c.want) {
				t.Errorf("= %v, want %v", got, c.want)
			}
		})
	}
}
