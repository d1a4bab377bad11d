package handlers_test

// The contract-test harness: every request a handler test makes through the
// full router can be checked against the public specs in shared/specs with
// kin-openapi, request and response. Reuse specCheck (or apiClient) in any
// handler test.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// specFiles are the specs whose operations we serve.
var SpecFiles = []string{
	"wallet-external.yaml", "wallet-internal.yaml", "validator-internal.yaml",
	"transfer-instruction-v1.yaml", "token-metadata-v1.yaml", "scan.yaml",
	"scan-proxy.yaml", "allocation-instruction-v1.yaml", "allocation-v1.yaml",
	"ans-external.yaml",
}

// specRefPrefixes are how the copied specs refer to the common specs and
// to scan.yaml (scan-proxy.yaml does) in the Splice repository; the copies
// sit side by side (specs/SOURCE.md).
var specRefPrefixes = []string{"../../../../common/src/main/openapi/", "../../../../scan/src/main/openapi/"}

type LoadedSpec struct {
	Name   string
	Router routers.Router
	Doc    *openapi3.T
}

var (
	specsOnce sync.Once
	specs     []LoadedSpec
	specsErr  error
)

// specsDir finds the specs: $CCWALLET_SPECS_DIR, else the first
// shared/specs walking up from the working directory (the project's
// reference copy, when the checkout sits beside it), else the verbatim
// copy in apispec/specs (served by the app too), so a lone clone tests the same contracts.
func specsDir() (string, error) {
	if d := os.Getenv("CCWALLET_SPECS_DIR"); d != "" {
		return d, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		cand := filepath.Join(dir, "shared", "specs")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Abs(filepath.Join("..", "apispec", "specs"))
		}
		dir = parent
	}
}

func LoadSpecs() ([]LoadedSpec, error) {
	specsOnce.Do(func() {
		dir, err := specsDir()
		if err != nil {
			specsErr = err
			return
		}
		for _, name := range SpecFiles {
			loader := openapi3.NewLoader()
			loader.IsExternalRefsAllowed = true
			// Every file, the common specs included, gets its refs rewritten
			// as it is read.
			loader.ReadFromURIFunc = func(_ *openapi3.Loader, loc *url.URL) ([]byte, error) {
				data, err := os.ReadFile(loc.Path)
				for _, prefix := range specRefPrefixes {
					data = bytes.ReplaceAll(data, []byte(prefix), []byte("./"))
				}
				return data, err
			}
			doc, err := loader.LoadFromURI(&url.URL{Path: filepath.Join(dir, name)})
			if err != nil {
				specsErr = fmt.Errorf("load %s: %w", name, err)
				return
			}
			patchSpec(doc)
			// Paths are matched without the servers' /api/validator prefix;
			// specCheck strips it from requests.
			doc.Servers = nil
			r, err := legacy.NewRouter(doc, openapi3.DisableExamplesValidation())
			if err != nil {
				specsErr = fmt.Errorf("router for %s: %w", name, err)
				return
			}
			specs = append(specs, LoadedSpec{Name: name, Router: r, Doc: doc})
		}
	})
	return specs, specsErr
}

// patchSpec fixes what makes the specs ambiguous for a strict validator,
// without changing the wire format they describe.
func patchSpec(doc *openapi3.T) {
	if doc.Components == nil {
		return
	}
	// TransferInstructionFailed (and AllocationInstructionResultFailed)
	// is meant to be the empty object ("cannot
	// define an empty object for some reason"); with additional properties
	// open it also matches the Pending shape, and oneOf needs exactly one.
	for _, name := range []string{"TransferInstructionFailed", "AllocationInstructionResultFailed"} {
		if s, ok := doc.Components.Schemas[name]; ok && s.Value != nil {
			no := false
			s.Value.AdditionalProperties = openapi3.AdditionalProperties{Has: &no}
		}
	}
}

// findOperation returns the spec route serving req (path without the
// /api/validator prefix), if any.
func FindOperation(req *http.Request) (*routers.Route, map[string]string, string, error) {
	ss, err := LoadSpecs()
	if err != nil {
		return nil, nil, "", err
	}
	for _, s := range ss {
		route, params, err := s.Router.FindRoute(req)
		if err == nil {
			return route, params, s.Name, nil
		}
	}
	return nil, nil, "", nil
}

// specCheck validates one exchange against the specs: the request (when
// the server accepted it) and the response, whose status must be declared
// by the operation unless allowUndeclared. Every error status must carry
// {"error": string}. It fails the test when no spec operation matches.
func SpecCheck(t testing.TB, req *http.Request, reqBody []byte, status int, header http.Header, respBody []byte) {
	t.Helper()
	vreq := req.Clone(context.Background())
	// The specs' paths have neither the /api/validator server prefix nor
	// the validator's /v0/scan-proxy prefix of the registry APIs.
	path := strings.TrimPrefix(req.URL.Path, "/api/validator")
	if strings.HasPrefix(path, "/v0/scan-proxy/registry/") {
		path = strings.TrimPrefix(path, "/v0/scan-proxy")
	}
	vreq.URL = &url.URL{Path: path, RawQuery: req.URL.RawQuery}
	vreq.RequestURI = ""
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, name, err := FindOperation(vreq)
	if err != nil {
		t.Fatalf("load specs: %v", err)
	}
	if route == nil {
		t.Errorf("%s %s: no operation in the specs", req.Method, req.URL.Path)
		return
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: opts}
	ctx := context.Background()
	if status < 400 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			t.Errorf("%s %s (%s %s): request does not match the spec:\n%v", req.Method, req.URL.Path, name, route.Operation.OperationID, err)
		}
	}
	declared := route.Operation.Responses.Status(status) != nil || route.Operation.Responses.Default() != nil
	if status >= 400 && !declared || status >= 400 && DeclaredAsError(route.Operation, status) {
		// Errors are {"error": string}, except where the spec gives a
		// status another body (createTransferPreapproval's 409).
		var e map[string]any
		if err := json.Unmarshal(respBody, &e); err != nil || len(e) != 1 {
			t.Errorf("%s %s: %d body %q is not {\"error\": string}", req.Method, req.URL.Path, status, respBody)
		} else if _, ok := e["error"].(string); !ok {
			t.Errorf("%s %s: %d body %q is not {\"error\": string}", req.Method, req.URL.Path, status, respBody)
		}
	}
	if !declared {
		// The specs leave some statuses out (403 for another party's
		// object, 409 for a reassignment); the body shape was checked above.
		t.Logf("%s %s: status %d is not declared by %s", req.Method, req.URL.Path, status, route.Operation.OperationID)
		return
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(respBody)), Options: opts,
	}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s %s (%s %s): %d response does not match the spec:\n%v\nbody: %s", req.Method, req.URL.Path, name, route.Operation.OperationID, status, err, respBody)
	}
}

// apiClient calls a handler through httptest as one user.
type APIClient struct {
	T     testing.TB
	H     http.Handler
	Token string
}

// response is a recorded answer.
type APIResponse struct {
	Status int
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r APIResponse) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Error returns the {"error"} message.
func (r APIResponse) Error() string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	return e.Error
}

func (c APIClient) Exchange(method, path string, body any) (*http.Request, []byte, *httptest.ResponseRecorder) {
	c.T.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			c.T.Fatal(err)
		}
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	rec := httptest.NewRecorder()
	c.H.ServeHTTP(rec, req.Clone(context.Background()))
	return req, raw, rec
}

// do sends a request for an operation of the specs and checks both sides
// against it (specCheck).
func (c APIClient) Do(method, path string, body any) APIResponse {
	c.T.Helper()
	req, raw, rec := c.Exchange(method, path, body)
	SpecCheck(c.T, req, raw, rec.Code, rec.Header(), rec.Body.Bytes())
	return APIResponse{Status: rec.Code, Body: rec.Body.Bytes()}
}

// doOwn sends a request to one of our own endpoints, not in the specs; an
// error answer must still be {"error": string}.
func (c APIClient) DoOwn(method, path string, body any) APIResponse {
	c.T.Helper()
	_, _, rec := c.Exchange(method, path, body)
	if rec.Code >= 400 {
		var e struct {
			Error *string `json:"error"`
		}
		if json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Error == nil {
			c.T.Errorf("%s %s: %d body %q is not {\"error\": string}", method, path, rec.Code, rec.Body.Bytes())
		}
	}
	return APIResponse{Status: rec.Code, Body: rec.Body.Bytes()}
}

// TestSpecsLoad proves the harness itself: every spec loads and routes.
func TestSpecsLoad(t *testing.T) {
	ss, err := LoadSpecs()
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != len(SpecFiles) {
		t.Fatalf("loaded %d specs, want %d", len(ss), len(SpecFiles))
	}
	for _, p := range []string{"/v0/wallet/token-standard/transfers", "/api/validator/v0/wallet/buy-traffic-requests", "/registry/transfer-instruction/v1/transfer-factory"} {
		req := httptest.NewRequest(http.MethodPost, strings.TrimPrefix(p, "/api/validator"), nil)
		if route, _, _, err := FindOperation(req); err != nil || route == nil {
			t.Errorf("POST %s: no route (%v)", p, err)
		}
	}
}

// recordingTB collects what specCheck reports, to test the harness.
type RecordingTB struct {
	testing.TB
	Errs []string
}

func (r *RecordingTB) Helper()                   {}
func (r *RecordingTB) Logf(string, ...any)       {}
func (r *RecordingTB) Errorf(f string, a ...any) { r.Errs = append(r.Errs, fmt.Sprintf(f, a...)) }
func (r *RecordingTB) Fatalf(f string, a ...any) { r.Errs = append(r.Errs, fmt.Sprintf(f, a...)) }

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
			rec := &RecordingTB{TB: t}
			req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.req))
			if c.req != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			h := http.Header{"Content-Type": {"application/json"}}
			SpecCheck(rec, req, []byte(c.req), c.status, h, []byte(c.resp))
			if got := len(rec.Errs) > 0; got != c.wantErr {
				t.Errorf("errors = %q, want errors: %v", rec.Errs, c.wantErr)
			}
		})
	}
}

// checkSpec is specCheck for exchanges that may use the mission's aliases,
// paths the specs do not have; those are skipped.
func CheckSpec(t testing.TB, req *http.Request, reqBody []byte, status int, header http.Header, body []byte) {
	t.Helper()
	probe := req.Clone(context.Background())
	probe.URL = &url.URL{Path: strings.TrimPrefix(req.URL.Path, "/api/validator"), RawQuery: req.URL.RawQuery}
	probe.RequestURI = ""
	probe.Body = io.NopCloser(bytes.NewReader(reqBody))
	if route, _, _, err := FindOperation(probe); err == nil && route == nil {
		return // a mission alias without a spec entry
	}
	SpecCheck(t, req, reqBody, status, header, body)
}

// declaredAsError reports whether the operation's response for status is
// the common ErrorResponse (or has no schema).
func DeclaredAsError(op *openapi3.Operation, status int) bool {
	r := op.Responses.Status(status)
	if r == nil || r.Value == nil {
		return true
	}
	mt := r.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return true
	}
	_, hasError := mt.Schema.Value.Properties["error"]
	return hasError
}
