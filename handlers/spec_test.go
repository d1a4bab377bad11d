package handlers_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The public specs every JSON response is checked against. They live in
// the project's shared/specs, found by walking up from the test's
// directory (or named by CCWALLET_SPECS).
var specFiles = []string{"wallet-external.yaml", "wallet-internal.yaml", "validator-internal.yaml"}

var (
	specsOnce sync.Once
	specDocs  []*openapi3.T
	specsErr  error
)

func findSpecDir() (string, error) {
	if d := os.Getenv("CCWALLET_SPECS"); d != "" {
		return d, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		for _, cand := range []string{filepath.Join(dir, "shared", "specs"), filepath.Join(dir, "specs")} {
			if _, err := os.Stat(filepath.Join(cand, "wallet-internal.yaml")); err == nil {
				return cand, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// specs loads the specs once. Their $refs point into the Splice source
// tree (../../../../common/src/main/openapi/common-external.yaml); the
// copies sit side by side, so every reference resolves by file name.
func specs(t *testing.T) []*openapi3.T {
	t.Helper()
	specsOnce.Do(func() {
		dir, err := findSpecDir()
		if err != nil {
			specsErr = err
			return
		}
		for _, f := range specFiles {
			loader := openapi3.NewLoader()
			loader.IsExternalRefsAllowed = true
			loader.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
				return os.ReadFile(filepath.Join(dir, path.Base(u.Path)))
			}
			doc, err := loader.LoadFromFile(filepath.Join(dir, f))
			if err != nil {
				specsErr = err
				return
			}
			specDocs = append(specDocs, doc)
		}
	})
	if specsErr != nil {
		t.Fatalf("load the public specs (shared/specs; or set CCWALLET_SPECS): %v", specsErr)
	}
	return specDocs
}

func matchTemplate(tmpl, p string) bool {
	ts, ps := strings.Split(strings.Trim(tmpl, "/"), "/"), strings.Split(strings.Trim(p, "/"), "/")
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		if strings.HasPrefix(ts[i], "{") && strings.HasSuffix(ts[i], "}") {
			if ps[i] == "" {
				return false
			}
			continue
		}
		if ts[i] != ps[i] {
			return false
		}
	}
	return true
}

// checkSpec validates a response body against the schema the specs declare
// for the operation and status, when they declare one, and the request body
// of a successful call against the operation's request schema. Literal
// paths win over templated ones, as in the router.
func checkSpec(t *testing.T, method, rawPath string, reqBody []byte, status int, body []byte) {
	t.Helper()
	p := strings.TrimPrefix(strings.SplitN(rawPath, "?", 2)[0], "/api/validator")
	var op *openapi3.Operation
	var opPath string
	for _, doc := range specs(t) {
		for tmpl, item := range doc.Paths.Map() {
			if !matchTemplate(tmpl, p) {
				continue
			}
			if o := item.GetOperation(method); o != nil && (op == nil || !strings.Contains(tmpl, "{")) {
				op, opPath = o, tmpl
			}
		}
	}
	if op == nil {
		return // a mission alias without a spec entry
	}
	if rb := op.RequestBody; status < 300 && rb != nil && rb.Value != nil && len(reqBody) > 0 {
		if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
			var v any
			if err := json.Unmarshal(reqBody, &v); err != nil || mt.Schema.Value.VisitJSON(v) != nil {
				t.Errorf("%s %s (%s): accepted a request the spec refuses: %s", method, rawPath, op.OperationID, reqBody)
			}
		}
	}
	resp := op.Responses.Status(status)
	if resp == nil || resp.Value == nil {
		return // a status the spec does not declare; errors are checked by expect
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("%s %s (%s) %d: body is not JSON: %v", method, rawPath, opPath, status, err)
		return
	}
	if err := mt.Schema.Value.VisitJSON(v); err != nil {
		t.Errorf("%s %s (%s %s) %d: response does not match the spec: %v\nbody: %s", method, rawPath, op.OperationID, opPath, status, err, body)
	}
}
