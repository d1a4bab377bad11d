package api_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/web"
)

// servedDocs fetches GET /openapi and every app document over HTTP, as a
// client generator would, resolving refs against the same server, and
// returns each document's operations as "METHOD /path".
func servedDocs(t *testing.T, h http.Handler) map[string][]string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL + "/openapi")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var index struct {
		Documents []struct {
			Name, URL, Listener string
			Extension           bool
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&index); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi = %d, %v", res.StatusCode, err)
	}
	out := map[string][]string{}
	for _, d := range index.Documents {
		if d.Listener != "app" {
			continue
		}
		loader := openapi3.NewLoader()
		loader.IsExternalRefsAllowed = true
		u, _ := url.Parse(srv.URL + d.URL)
		doc, err := loader.LoadFromURI(u)
		if err != nil {
			t.Fatalf("load %s: %v", d.URL, err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			t.Fatalf("%s does not validate: %v", d.Name, err)
		}
		for p, item := range doc.Paths.Map() {
			for m, op := range item.Operations() {
				out[d.Name] = append(out[d.Name], m+" "+p)
				if _, ext := op.Extensions["x-ccwallet-extension"]; ext != d.Extension {
					t.Errorf("%s %s %s: extension mark %v", d.Name, m, p, ext)
				}
			}
		}
	}
	return out
}

// TestOpenAPIDocsServed: the documents load and validate from the app,
// and each holds exactly the operations the app routes: nothing of
// specUnrouted, everything else of the spec.
func TestOpenAPIDocsServed(t *testing.T) {
	e := newContractEnv(t, ledgertest.Engines[1])
	docs := servedDocs(t, e.h)
	if len(docs["wallet-internal.yaml"]) < 20 || len(docs["ccwallet.yaml"]) < 20 {
		t.Fatalf("served too few operations: %v", docs)
	}
	ss, err := handlerstest.LoadSpecs()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.Name == "scan.yaml" {
			continue
		}
		for p, item := range s.Doc.Paths.Map() {
			if p == "/readyz" || p == "/livez" {
				continue // routed with the health checks cmd passes to Routes
			}
			for m, op := range item.Operations() {
				served := slices.Contains(docs[s.Name], m+" "+p)
				unrouted := slices.Contains(specUnrouted, s.Name+"#"+op.OperationID)
				if served == unrouted {
					t.Errorf("%s %s %s: served %v, listed unrouted %v", s.Name, m, p, served, unrouted)
				}
			}
		}
	}
	if r := httptest.NewRecorder(); true {
		e.h.ServeHTTP(r, httptest.NewRequest("GET", "/openapi/ledger-api-v2.yaml", nil))
		if r.Code != http.StatusNotFound || !strings.Contains(r.Body.String(), "/docs/openapi") {
			t.Errorf("ledger API document on the app = %d %s", r.Code, r.Body)
		}
		r = httptest.NewRecorder()
		e.h.ServeHTTP(r, httptest.NewRequest("GET", "/openapi/..%2Fgo.mod", nil))
		if r.Code != http.StatusNotFound {
			t.Errorf("GET /openapi/../go.mod = %d", r.Code)
		}
	}
}

// routeRe finds the API routes registered in the handlers' source.
var routeRe = regexp.MustCompile(`mux\.Handle\("((?:GET|POST|PUT|PATCH|DELETE) (?:/v0|/registry|/api)[^"]*)"`)

// TestEveryRouteDocumented: every API route of the app is an operation of
// a served document (the public specs' or ccwallet.yaml's extensions), so
// the documents stay the whole truth as routes are added.
func TestEveryRouteDocumented(t *testing.T) {
	e := newContractEnv(t, ledgertest.Engines[1])
	docs := servedDocs(t, e.h)
	param := regexp.MustCompile(`\{[^}]+\}`)
	known := map[string]bool{}
	for _, ops := range docs {
		for _, op := range ops {
			known[param.ReplaceAllString(op, "{}")] = true
		}
	}
	files, _ := filepath.Glob("*.go") // the JSON APIs' route table (api.go)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range routeRe.FindAllStringSubmatch(string(src), -1) {
			n++
			if !known[param.ReplaceAllString(m[1], "{}")] {
				t.Errorf("%s: route %q is in no served OpenAPI document; describe it in apispec/ccwallet.yaml", f, m[1])
			}
		}
	}
	if n < 50 {
		t.Fatalf("found only %d routes in the source", n)
	}
}

// TestSessionCallsAPI: the web wallet's session calls the JSON API (the
// API explorer) only with its CSRF token in the header and from the same
// origin; the cookie alone does not authenticate.
func TestSessionCallsAPI(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{handlerstest.KID: key.Public()}, Audience: handlerstest.Audience}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	e := handlerstest.NewUIEnvWith(t, ledgertest.Engines[0], func(c *handlers.Config) { c.Auth = v })
	b := e.Browser(t)
	csrf := b.Onboarded("alice")
	handlerstest.MustHave(t, b.Get("/api-explorer"), http.StatusOK, `data-testid="op-wallet-internal-getBalance"`, `data-testid="doc-ccwallet.yaml"`, "explorer.js")

	ok := b.Do("GET", "/v0/wallet/balance", nil, map[string]string{"X-CSRF-Token": csrf})
	handlerstest.MustHave(t, ok, http.StatusOK, `"effective_unlocked_qty"`)
	for name, hdr := range map[string]map[string]string{
		"cookie alone":    nil,
		"wrong token":     {"X-CSRF-Token": csrf + "x"},
		"cross-site page": {"X-CSRF-Token": csrf, "Sec-Fetch-Site": "cross-site"},
	} {
		r := b.Do("GET", "/v0/wallet/balance", nil, hdr)
		if r.Status != http.StatusUnauthorized && r.Status != http.StatusForbidden {
			t.Errorf("%s: GET /v0/wallet/balance = %d, want 401 or 403: %s", name, r.Status, r.Body)
		}
	}
	// A session without a party is refused as a token's user would be.
	if r := b.Do("GET", "/v0/admin/jobs", nil, map[string]string{"X-CSRF-Token": csrf}); r.Status != http.StatusForbidden {
		t.Errorf("alice's session on an admin endpoint = %d, want 403", r.Status)
	}
	// After logout the session is gone: the same token no longer works.
	handlerstest.MustHave(t, b.Post("/logout", url.Values{"csrf_token": {csrf}}), http.StatusSeeOther)
	if r := b.Do("GET", "/v0/wallet/balance", nil, map[string]string{"X-CSRF-Token": csrf}); r.Status != http.StatusUnauthorized {
		t.Errorf("after logout = %d, want 401", r.Status)
	}
}
