package handlerstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// The contract-test machinery: every request a handler test makes through
// the full router can be checked against the public specs in shared/specs
// with kin-openapi, request and response. Reuse SpecCheck (or APIClient)
// in any handler test.

// SpecFiles are the specs whose operations we serve.
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
			return repoSpecsDir()
		}
		dir = parent
	}
}

// repoSpecsDir is the repository's apispec/specs, found walking up from
// the working directory (a test runs in its package's directory) rather
// than from this file's compiled path, which -trimpath (make's GOFLAGS)
// leaves relative.
func repoSpecsDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "apispec", "specs"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory, so no apispec/specs")
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
			// SpecCheck strips it from requests.
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

// FindOperation returns the spec route serving req (path without the
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

// SpecCheck validates one exchange against the specs: the request (when
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

// RecordingTB collects what SpecCheck reports, to test the harness.
type RecordingTB struct {
	testing.TB
	Errs []string
}

func (r *RecordingTB) Helper() {}

func (r *RecordingTB) Logf(string, ...any) {}

func (r *RecordingTB) Errorf(f string, a ...any) { r.Errs = append(r.Errs, fmt.Sprintf(f, a...)) }

func (r *RecordingTB) Fatalf(f string, a ...any) { r.Errs = append(r.Errs, fmt.Sprintf(f, a...)) }

// CheckSpec is SpecCheck for exchanges that may use the mission's aliases,
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

// DeclaredAsError reports whether the operation's response for status is
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

// UndeclaredResponseFields lists the JSON paths of the fields of body that
// the operation's response schema for status does not declare: a typo in
// an optional field name passes schema validation, not this.
func UndeclaredResponseFields(op *openapi3.Operation, status int, body []byte) []string {
	r := op.Responses.Status(status)
	if r == nil || r.Value == nil {
		return nil
	}
	mt := r.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil // the schema validation reports it
	}
	return undeclaredFields(mt.Schema, v, "$")
}

// undeclaredFields walks v along s, through allOf, oneOf and anyOf.
func undeclaredFields(s *openapi3.SchemaRef, v any, at string) []string {
	if s == nil || s.Value == nil {
		return nil
	}
	var out []string
	switch v := v.(type) {
	case map[string]any:
		props, extra, free := objectShape(s.Value)
		for k, val := range v {
			switch {
			case props[k] != nil:
				out = append(out, undeclaredFields(props[k], val, at+"."+k)...)
			case extra != nil:
				out = append(out, undeclaredFields(extra, val, at+"."+k)...)
			case !free:
				out = append(out, at+"."+k)
			}
		}
	case []any:
		for i, item := range v {
			out = append(out, undeclaredFields(s.Value.Items, item, fmt.Sprintf("%s[%d]", at, i))...)
		}
	}
	slices.Sort(out)
	return out
}

// objectShape is what an object of schema s may hold: its declared
// properties (over all its compositions), the schema of additional
// properties if one is given, and whether anything goes (a schema
// declaring no properties, or additionalProperties: true).
func objectShape(s *openapi3.Schema) (props map[string]*openapi3.SchemaRef, extra *openapi3.SchemaRef, free bool) {
	props = map[string]*openapi3.SchemaRef{}
	var walk func(s *openapi3.Schema)
	walk = func(s *openapi3.Schema) {
		for k, p := range s.Properties {
			if props[k] == nil {
				props[k] = p
			}
		}
		if s.AdditionalProperties.Schema != nil {
			extra = s.AdditionalProperties.Schema
		}
		if s.AdditionalProperties.Has != nil && *s.AdditionalProperties.Has {
			free = true
		}
		composed := len(s.AllOf) + len(s.OneOf) + len(s.AnyOf)
		if len(s.Properties) == 0 && composed == 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			free = true
		}
		for _, refs := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, r := range refs {
				if r != nil && r.Value != nil {
					walk(r.Value)
				}
			}
		}
	}
	walk(s)
	return props, extra, free
}
