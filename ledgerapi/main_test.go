package ledgerapi_test

// The harness: a Ledger API server over a fresh ledger on each engine,
// called through the client generated from the spec (internal/client),
// with every exchange validated against the spec by kin-openapi.

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/ledgerapi"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
	"github.com/ccwallet/ccwallet/web"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

const (
	testKID      = "test-key"
	testAudience = "https://ccwallet.test"
	adminUser    = "admin" // ledgertest's wallet admin
)

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

// spec loads the Ledger API spec (testdata copy of shared/specs).
func spec(t testing.TB) routers.Router {
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromFile(filepath.Join("..", "apispec", "specs", "ledger-api-v2.yaml"))
		if err != nil {
			specErr = err
			return
		}
		doc.Servers = nil
		specRouter, specErr = legacy.NewRouter(doc, openapi3.DisableExamplesValidation())
	})
	if specErr != nil {
		t.Fatalf("load spec: %v", specErr)
	}
	return specRouter
}

// validating is a RoundTripper that checks every request it sends and
// every response it gets against the spec.
type validating struct {
	t    testing.TB
	next http.RoundTripper
}

func (v validating) RoundTrip(req *http.Request) (*http.Response, error) {
	v.t.Helper()
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := v.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	respBody, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(respBody))

	vreq := req.Clone(context.Background())
	vreq.URL = &url.URL{Path: req.URL.Path, RawQuery: req.URL.RawQuery}
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := spec(v.t).FindRoute(vreq)
	if err != nil {
		if resp.StatusCode != http.StatusNotImplemented && resp.StatusCode != http.StatusNotFound {
			v.t.Errorf("%s %s: not an operation of the spec: %v", req.Method, req.URL.Path, err)
		}
		return resp, nil
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: opts}
	if resp.StatusCode < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			v.t.Errorf("%s %s: request does not match the spec: %v\nbody: %s", req.Method, req.URL.Path, err, reqBody)
		}
	}
	status := resp.StatusCode
	if status == http.StatusBadRequest && strings.HasPrefix(resp.Header.Get("Content-Type"), jsonType) {
		// The spec declares 400 as text/plain, the body Canton cannot
		// decode; its other 400s (INVALID_ARGUMENT, ...) are
		// JsCantonErrors, the default response, as here.
		status = 599
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(respBody)), Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		v.t.Errorf("%s %s: %d response does not match the spec: %v\nbody: %s", req.Method, req.URL.Path, resp.StatusCode, err, respBody)
	}
	return resp, nil
}

// env is a Ledger API server over a fresh ledger.
type env struct {
	t      testing.TB
	l      *ledger.Ledger
	w      *workflows.Set
	url    string
	signer crypto.Signer
	clock  *ledgertest.Clock
	api    *ledgerapi.Server
}

func newEnv(t testing.TB, engine int, lim ...*web.Limiter) *env {
	t.Helper()
	clock := ledgertest.NewClock()
	l := ledgertest.New(t, ledgertest.Engines[engine], ledgertest.Options{Clock: clock})
	return newEnvOn(t, l, clock, lim...)
}

// newEnvOn is a Ledger API server over l, whose clock is clock.
func newEnvOn(t testing.TB, l *ledger.Ledger, clock *ledgertest.Clock, lim ...*web.Limiter) *env {
	t.Helper()
	var cfg ledgerapi.Config
	if len(lim) > 0 {
		cfg.Limiter = lim[0]
	}
	return newEnvWith(t, l, clock, cfg)
}

// newEnvConfig is newEnv with cfg (its Auth is the env's).
func newEnvConfig(t testing.TB, engine int, cfg ledgerapi.Config) *env {
	t.Helper()
	clock := ledgertest.NewClock()
	l := ledgertest.New(t, ledgertest.Engines[engine], ledgertest.Options{Clock: clock})
	return newEnvWith(t, l, clock, cfg)
}

// newEnvWith is a Ledger API server with cfg over l, whose clock is clock.
func newEnvWith(t testing.TB, l *ledger.Ledger, clock *ledgertest.Clock, cfg ledgerapi.Config) *env {
	t.Helper()
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{testKID: key.Public()}, Audience: testAudience}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Auth = v
	if cfg.Workflows == nil {
		cfg.Workflows = workflows.New(l)
	}
	api := ledgerapi.New(l, cfg, nil)
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(api.Wait) // before the ledger closes
	return &env{t: t, l: l, w: cfg.Workflows, url: srv.URL, signer: key, clock: clock, api: api}
}

// forEachEngine runs fn on a fresh server over each engine.
func forEachEngine(t *testing.T, fn func(t *testing.T, e *env)) {
	for i, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			fn(t, newEnv(t, i))
		})
	}
}

// as returns a generated client acting as user ("" for no token).
func (e *env) as(user string) *client.ClientWithResponses {
	e.t.Helper()
	opts := []client.ClientOption{client.WithHTTPClient(&http.Client{Transport: completing{e, user, validating{e.t, http.DefaultTransport}}})}
	if user != "" {
		tok, err := web.SignDevToken(e.signer, testKID, "", testAudience, user, time.Hour)
		if err != nil {
			e.t.Fatal(err)
		}
		opts = append(opts, client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+tok)
			return nil
		}))
	}
	c, err := client.NewClientWithResponses(e.url, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// user onboards name with amount coin (none when empty).
func (e *env) user(name, amount string) coin.PartyID {
	e.t.Helper()
	p, err := users.Of(e.l).Onboard(context.Background(), name, "")
	if err != nil {
		e.t.Fatal(err)
	}
	if amount != "" {
		ledgertest.Mint(e.t, e.l, p, amount)
	}
	return p
}

// body is a JSON request body.
func body(t testing.TB, v any) io.Reader {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

const jsonType = "application/json"

// wantError checks a JsCantonError answer.
func wantError(t testing.TB, what string, status int, got *http.Response, cerr *client.JsCantonError, code string) {
	t.Helper()
	if got.StatusCode != status {
		t.Errorf("%s: status %d, want %d", what, got.StatusCode, status)
	}
	if cerr == nil {
		t.Errorf("%s: no JsCantonError body", what)
		return
	}
	if cerr.Code != code {
		t.Errorf("%s: code %s (%s), want %s", what, cerr.Code, cerr.Cause, code)
	}
	if cerr.Cause == "" || cerr.GrpcCodeValue == nil || cerr.ErrorCategory <= 0 {
		t.Errorf("%s: incomplete error %+v", what, cerr)
	}
}

// filter is an eventFormat for party with identifier filters.
func filter(party coin.PartyID, filters ...map[string]any) map[string]any {
	cum := []map[string]any{}
	for _, f := range filters {
		cum = append(cum, map[string]any{"identifierFilter": f})
	}
	return map[string]any{"filtersByParty": map[string]any{string(party): map[string]any{"cumulative": cum}}, "verbose": false}
}

func interfaceFilter(id string, view, blob bool) map[string]any {
	return map[string]any{"InterfaceFilter": map[string]any{"value": map[string]any{"interfaceId": id, "includeInterfaceView": view, "includeCreatedEventBlob": blob}}}
}

func templateFilter(id string, blob bool) map[string]any {
	return map[string]any{"TemplateFilter": map[string]any{"value": map[string]any{"templateId": id, "includeCreatedEventBlob": blob}}}
}

// createdEvent is the part of CreatedEvent the tests read.
type createdEvent struct {
	Offset           int64           `json:"offset"`
	ContractID       string          `json:"contractId"`
	TemplateID       string          `json:"templateId"`
	PackageName      string          `json:"packageName"`
	CreateArgument   json.RawMessage `json:"createArgument"`
	CreatedEventBlob string          `json:"createdEventBlob"`
	InterfaceViews   []struct {
		InterfaceID string          `json:"interfaceId"`
		ViewValue   json.RawMessage `json:"viewValue"`
	} `json:"interfaceViews"`
	WitnessParties []string `json:"witnessParties"`
	Signatories    []string `json:"signatories"`
	Observers      []string `json:"observers"`
	CreatedAt      string   `json:"createdAt"`
}

// acs reads the active contracts as user with eventFormat at offset.
func (e *env) acs(user string, format map[string]any, at int64) []createdEvent {
	e.t.Helper()
	resp, err := e.as(user).PostV2StateActiveContractsWithBodyWithResponse(context.Background(), nil, jsonType,
		body(e.t, map[string]any{"eventFormat": format, "verbose": false, "activeAtOffset": at}))
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode() != http.StatusOK {
		e.t.Fatalf("active contracts: %d %s", resp.StatusCode(), resp.Body)
	}
	var entries []struct {
		ContractEntry struct {
			JsActiveContract *struct {
				CreatedEvent createdEvent `json:"createdEvent"`
			} `json:"JsActiveContract"`
		} `json:"contractEntry"`
	}
	if err := json.Unmarshal(resp.Body, &entries); err != nil {
		e.t.Fatal(err)
	}
	var out []createdEvent
	for _, en := range entries {
		if en.ContractEntry.JsActiveContract == nil {
			e.t.Fatalf("entry without JsActiveContract: %s", resp.Body)
		}
		out = append(out, en.ContractEntry.JsActiveContract.CreatedEvent)
	}
	return out
}

// ledgerEnd reads the ledger end.
func (e *env) ledgerEnd() int64 {
	e.t.Helper()
	resp, err := e.as(adminUser).GetV2StateLedgerEndWithResponse(context.Background())
	if err != nil || resp.JSON200 == nil {
		e.t.Fatalf("ledger end: %v %s", err, resp.Body)
	}
	return resp.JSON200.Offset
}

// templateSuffix is the Module:Entity of a "#pkg:Module:Entity" id.
func templateSuffix(id string) string {
	_, rest, _ := strings.Cut(id, ":")
	return rest
}
