package api_test

// The contract test of issue 3: every operation the issue lists runs
// through the full router, on Postgres and SQLite, and every exchange is
// validated against shared/specs with kin-openapi (specCheck). It records
// which operations and statuses it exercised and fails when one the issue
// lists, or an error status the spec declares for it, was not, so it
// cannot silently go stale when an operation is added or a route removed.

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// issue3Operations are the operations of issue 3's "Every operation below"
// list (and its registry paragraph), as "spec file#operationId".
var issue3Operations = []string{
	// wallet-external.yaml
	"wallet-external.yaml#createTransferOffer",
	"wallet-external.yaml#listTransferOffers",
	"wallet-external.yaml#getTransferOfferStatus",
	"wallet-external.yaml#createBuyTrafficRequest",
	"wallet-external.yaml#getBuyTrafficRequestStatus",
	// wallet-internal.yaml
	"wallet-internal.yaml#getBalance",
	"wallet-internal.yaml#list",
	"wallet-internal.yaml#tap",
	"wallet-internal.yaml#userStatus",
	"wallet-internal.yaml#listTransactions",
	"wallet-internal.yaml#acceptTransferOffer",
	"wallet-internal.yaml#rejectTransferOffer",
	"wallet-internal.yaml#withdrawTransferOffer",
	"wallet-internal.yaml#listAcceptedTransferOffers",
	"wallet-internal.yaml#createTransferPreapproval",
	"wallet-internal.yaml#transferPreapprovalSend",
	"wallet-internal.yaml#createTokenStandardTransfer",
	"wallet-internal.yaml#listTokenStandardTransfers",
	"wallet-internal.yaml#acceptTokenStandardTransfer",
	"wallet-internal.yaml#rejectTokenStandardTransfer",
	"wallet-internal.yaml#withdrawTokenStandardTransfer",
	"wallet-internal.yaml#listAppRewardCoupons",
	"wallet-internal.yaml#listValidatorRewardCoupons",
	"wallet-internal.yaml#listValidatorLivenessActivityRecords",
	"wallet-internal.yaml#featureSupport",
	// validator-internal.yaml
	"validator-internal.yaml#lookupTransferPreapprovalByParty",
	"validator-internal.yaml#cancelTransferPreapprovalByParty",
	"validator-internal.yaml#listTransferPreapprovals",
	// transfer-instruction-v1.yaml
	"transfer-instruction-v1.yaml#getTransferFactory",
	"transfer-instruction-v1.yaml#getTransferInstructionAcceptContext",
	"transfer-instruction-v1.yaml#getTransferInstructionRejectContext",
	"transfer-instruction-v1.yaml#getTransferInstructionWithdrawContext",
	// token-metadata-v1.yaml
	"token-metadata-v1.yaml#getRegistryInfo",
	"token-metadata-v1.yaml#listInstruments",
	"token-metadata-v1.yaml#getInstrument",
}

// unreachableStatuses are the error statuses a listed operation declares
// that no request can produce here, with the reason. Server errors (5xx)
// are never required.
var unreachableStatuses = map[string]string{
	"wallet-internal.yaml#userStatus 404":                 "a caller without a wallet gets 200 with user_onboarded false, as the real wallet answers",
	"transfer-instruction-v1.yaml#getTransferFactory 404": "the factory (ExternalPartyAmuletRules) is created at bootstrap and never archived",
	"token-metadata-v1.yaml#getRegistryInfo 404":          "the registry always has its info",
	"token-metadata-v1.yaml#listInstruments 404":          "the list always exists; past its end it is an empty 200 page",
}

// requiredAliases are the mission's paths (not in the specs) the contract
// test must have exercised beside the spec's.
var requiredAliases = []string{
	"GET /v0/wallet/coins",
	"POST /v0/wallet/transfer-offers/accept",
	"POST /v0/wallet/transfer-offers/reject",
	"POST /v0/wallet/transfer-offers/withdraw",
	"/api/validator prefix",
	"/v0/scan-proxy prefix",
}

// contractEnv is the full router over a fresh ledger of one engine, and
// the record of what the exchanges exercised.
type contractEnv struct {
	t      *testing.T
	engine store.Dialect
	l      *ledger.Ledger
	w      *workflows.Set
	clock  *ledgertest.Clock
	h      http.Handler
	key    ed25519.PrivateKey
	dbURL  string
	tokens map[string]string

	mu      sync.Mutex
	seen    map[string]map[int]bool // "file#operationId" -> statuses
	aliases map[string]bool
}

func newContractEnv(t *testing.T, engine store.Dialect) *contractEnv {
	t.Helper()
	clock := ledgertest.NewClock()
	u := ledgertest.DBURL(t, engine)
	l := ledgertest.Open(t, u, ledgertest.Options{Clock: clock})
	t.Cleanup(func() {
		if !t.Failed() {
			ledgertest.Conserved(t, l)
		}
	})
	_, key, err := ed25519.GenerateKey(nil) // nil: crypto/rand
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{handlerstest.KID: key.Public()}, Audience: handlerstest.Audience}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	w := workflows.New(l)
	return &contractEnv{
		t: t, engine: engine, l: l, w: w, clock: clock, key: key, dbURL: u, tokens: map[string]string{},
		h:    handlers.New(l, handlers.Config{Auth: v, Workflows: w}, nil).Routes(nil),
		seen: map[string]map[int]bool{}, aliases: map[string]bool{},
	}
}

// client is an apiClient acting as user ("" for none).
func (e *contractEnv) client(user string) handlerstest.APIClient {
	e.t.Helper()
	c := handlerstest.APIClient{T: e.t, H: e.h}
	if user == "" {
		return c
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tokens[user] == "" {
		tok, err := web.SignDevToken(e.key, handlerstest.KID, "", handlerstest.Audience, user, time.Hour)
		if err != nil {
			e.t.Fatal(err)
		}
		e.tokens[user] = tok
	}
	c.Token = e.tokens[user]
	return c
}

// specPath is the path the specs know req by: without the servers'
// /api/validator prefix and the validator's /v0/scan-proxy registry proxy
// (as specCheck strips them).
func specPath(p string) string {
	p = strings.TrimPrefix(p, "/api/validator")
	if strings.HasPrefix(p, "/v0/scan-proxy/registry/") {
		p = strings.TrimPrefix(p, "/v0/scan-proxy")
	}
	return p
}

// record notes that an exchange of req's operation answered status, and
// fails the test when a success answer has a field the spec does not
// declare (kin-openapi lets those through: the specs leave objects open).
func (e *contractEnv) record(req *http.Request, body []byte, status int, respBody []byte) {
	e.t.Helper()
	probe := httptest.NewRequest(req.Method, specPath(req.URL.Path), bytes.NewReader(body))
	probe.URL.RawQuery = req.URL.RawQuery
	route, _, name, err := handlerstest.FindOperation(probe)
	if err != nil || route == nil {
		e.t.Errorf("%s %s: no spec operation (%v)", req.Method, req.URL.Path, err)
		return
	}
	op := name + "#" + route.Operation.OperationID
	if status/100 == 2 {
		if extra := handlerstest.UndeclaredResponseFields(route.Operation, status, respBody); len(extra) > 0 {
			e.t.Errorf("%s %s (%s): %d response has fields the spec does not declare: %v\nbody: %s", req.Method, req.URL.Path, op, status, extra, respBody)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.seen[op] == nil {
		e.seen[op] = map[int]bool{}
	}
	e.seen[op][status] = true
	if strings.HasPrefix(req.URL.Path, "/api/validator/") {
		e.aliases["/api/validator prefix"] = true
	}
	if strings.Contains(req.URL.Path, "/v0/scan-proxy/registry/") {
		e.aliases["/v0/scan-proxy prefix"] = true
	}
}

// call sends a request of a spec operation as user, validates request and
// response against the spec and records the operation.
func (e *contractEnv) call(user, method, path string, body any) handlerstest.APIResponse {
	e.t.Helper()
	req, raw, rec := e.client(user).Exchange(method, path, body)
	handlerstest.SpecCheck(e.t, req, raw, rec.Code, rec.Header(), rec.Body.Bytes())
	e.record(req, raw, rec.Code, rec.Body.Bytes())
	return handlerstest.APIResponse{Status: rec.Code, Body: rec.Body.Bytes()}
}

// expect is call that fails the test unless the answer has status.
func (e *contractEnv) expect(user, method, path string, body any, status int) handlerstest.APIResponse {
	e.t.Helper()
	r := e.call(user, method, path, body)
	if r.Status != status {
		e.t.Fatalf("%s %s as %q = %d %s, want %d", method, path, user, r.Status, r.Body, status)
	}
	return r
}

// alias sends a request to one of the mission's paths (label names it),
// then validates the answer as if the spec's request (specMethod,
// specURL, specBody) had been sent, and records that operation.
func (e *contractEnv) alias(label, user, method, path string, body any, specMethod, specURL string, specBody any, status int) handlerstest.APIResponse {
	e.t.Helper()
	_, _, rec := e.client(user).Exchange(method, path, body)
	if rec.Code != status {
		e.t.Fatalf("%s (%s %s) as %q = %d %s, want %d", label, method, path, user, rec.Code, rec.Body, status)
	}
	var raw []byte
	if specBody != nil {
		var err error
		if raw, err = json.Marshal(specBody); err != nil {
			e.t.Fatal(err)
		}
	}
	sreq := httptest.NewRequest(specMethod, specURL, bytes.NewReader(raw))
	if raw != nil {
		sreq.Header.Set("Content-Type", "application/json")
	}
	handlerstest.SpecCheck(e.t, sreq, raw, rec.Code, rec.Header(), rec.Body.Bytes())
	e.record(sreq, raw, rec.Code, rec.Body.Bytes())
	e.mu.Lock()
	e.aliases[label] = true
	e.mu.Unlock()
	return handlerstest.APIResponse{Status: rec.Code, Body: rec.Body.Bytes()}
}

// prefixed calls a read-only operation at the root and under
// /api/validator and fails unless both answer the same.
func (e *contractEnv) prefixed(user, method, path string, body any, status int) handlerstest.APIResponse {
	e.t.Helper()
	r := e.expect(user, method, path, body, status)
	e.same(method+" "+path+" under /api/validator", r, e.expect(user, method, "/api/validator"+path, body, status))
	return r
}

// same fails unless two answers are identical.
func (e *contractEnv) same(what string, want, got handlerstest.APIResponse) {
	e.t.Helper()
	if want.Status != got.Status || !bytes.Equal(want.Body, got.Body) {
		e.t.Errorf("%s: answered %d %s, want the same as %d %s", what, got.Status, got.Body, want.Status, want.Body)
	}
}

// inFlight runs fn while another transaction holds command key, as a
// request with the same id still being processed does. Postgres only:
// SQLite serialises writers, so a command is never seen in flight there.
func (e *contractEnv) inFlight(key string, fn func()) {
	e.t.Helper()
	if e.engine != store.Postgres {
		return
	}
	db, err := sql.Open("pgx", e.dbURL)
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		e.t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "cmd:"+key); err != nil {
		e.t.Fatal(err)
	}
	fn()
}

// concurrently runs fn n times at once and returns the answers.
func concurrently(n int, fn func() handlerstest.APIResponse) []handlerstest.APIResponse {
	out := make([]handlerstest.APIResponse, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = fn()
		}()
	}
	wg.Wait()
	return out
}

// field decodes the answer and returns one string field.
func field(t *testing.T, r handlerstest.APIResponse, name string) string {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	s, _ := m[name].(string)
	if s == "" {
		t.Fatalf("answer %s has no %q", r.Body, name)
	}
	return s
}

// listLen decodes the answer and returns the length of its list field.
func listLen(t *testing.T, r handlerstest.APIResponse, name string) int {
	t.Helper()
	var m map[string][]json.RawMessage
	r.JSON(t, &m)
	list, ok := m[name]
	if !ok {
		t.Fatalf("answer %s has no list %q", r.Body, name)
	}
	return len(list)
}

// TestContractEveryOperation runs every operation of issue 3 through the
// full router, validating each exchange against the specs, and fails when
// an operation, a declared error status or a mission alias was not
// exercised.
func TestContractEveryOperation(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			e := newContractEnv(t, engine)
			runContract(t, e)
			e.checkCoverage(t)
		})
	}
}

func runContract(t *testing.T, e *contractEnv) {
	ctx := context.Background()
	onboard := func(name string) coin.PartyID {
		p, err := users.Of(e.l).Onboard(ctx, name, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	alice, bob, carol := onboard("alice"), onboard("bob"), onboard("carol")
	ledgertest.Mint(t, e.l, alice, "5000")
	const stranger = "stranger" // has a token, no wallet
	exp := e.clock.Now().Add(time.Hour)
	unknownCID := string(coin.NewContractID())

	// featureSupport, userStatus: no wallet needed.
	e.prefixed("", "GET", "/v0/feature-support", nil, 200)
	var us struct {
		UserOnboarded bool   `json:"user_onboarded"`
		PartyID       string `json:"party_id"`
	}
	e.prefixed("alice", "GET", "/v0/wallet/user-status", nil, 200).JSON(t, &us)
	if !us.UserOnboarded || us.PartyID != string(alice) {
		t.Errorf("alice's user status = %+v", us)
	}
	e.expect(stranger, "GET", "/v0/wallet/user-status", nil, 200).JSON(t, &us)
	if us.UserOnboarded {
		t.Errorf("stranger's user status = %+v", us)
	}

	// tap: 200, the same command id again gives the same holding, 400, 404, 429.
	e.expect("alice", "POST", "/v0/wallet/tap", map[string]any{"amount": "1"}, 200)
	first := field(t, e.expect("alice", "POST", "/v0/wallet/tap", map[string]any{"amount": "1", "command_id": "tap-1"}, 200), "contract_id")
	if again := field(t, e.expect("alice", "POST", "/v0/wallet/tap", map[string]any{"amount": "1", "command_id": "tap-1"}, 200), "contract_id"); again != first {
		t.Errorf("tap replay gave %s, want %s", again, first)
	}
	e.expect("alice", "POST", "/v0/wallet/tap", map[string]any{"amount": "x"}, 400)
	e.expect(stranger, "POST", "/v0/wallet/tap", map[string]any{"amount": "1"}, 404)
	e.inFlight("tap:"+string(alice)+":busy", func() {
		e.expect("alice", "POST", "/v0/wallet/tap", map[string]any{"amount": "1", "command_id": "busy"}, 429)
	})

	// getBalance, list (/v0/wallet/amulets and the mission's /v0/wallet/coins).
	e.prefixed("alice", "GET", "/v0/wallet/balance", nil, 200)
	e.expect(stranger, "GET", "/v0/wallet/balance", nil, 404)
	amulets := e.prefixed("alice", "GET", "/v0/wallet/amulets", nil, 200)
	if n := listLen(t, amulets, "amulets"); n != 3 {
		t.Errorf("alice has %d holdings, want 3 (mint, two taps)", n)
	}
	e.same("GET /v0/wallet/coins", amulets, e.alias("GET /v0/wallet/coins", "alice", "GET", "/v0/wallet/coins", nil, "GET", "/v0/wallet/amulets", nil, 200))
	e.same("GET /v0/wallet/coins without a wallet", e.expect(stranger, "GET", "/v0/wallet/amulets", nil, 404),
		e.alias("GET /v0/wallet/coins", stranger, "GET", "/v0/wallet/coins", nil, "GET", "/v0/wallet/amulets", nil, 404))

	// createTransferOffer: 200, any retry with the tracking id 409 (an
	// identical one too, as the spec says), 400, 404, 429.
	offer := func(receiver coin.PartyID, amount, tracking string) map[string]any {
		return map[string]any{"receiver_party_id": receiver, "amount": amount, "description": "lunch", "expires_at": exp.UnixMicro(), "tracking_id": tracking}
	}
	const offers = "/v0/wallet/transfer-offers"
	createOffer := func(tracking string) string {
		return field(t, e.expect("alice", "POST", offers, offer(bob, "10", tracking), 200), "offer_contract_id")
	}
	o1 := createOffer("o1")
	if again := e.expect("alice", "POST", offers, offer(bob, "10", "o1"), 409); !strings.Contains(string(again.Body), o1) {
		t.Errorf("offer retry answered %s, want a 409 naming %s", again.Body, o1)
	}
	e.expect("alice", "POST", offers, offer(bob, "11", "o1"), 409)
	e.expect("alice", "POST", offers, offer(bob, "0", "o-bad"), 400)
	e.expect("alice", "POST", offers, `{"amount":`, 400)
	e.expect(stranger, "POST", offers, offer(bob, "1", "o-x"), 404)
	e.inFlight("offer:"+string(alice)+":busy", func() {
		e.expect("alice", "POST", offers, offer(bob, "1", "busy"), 429)
	})

	// listTransferOffers, getTransferOfferStatus.
	for _, u := range []string{"alice", "bob"} {
		if n := listLen(t, e.prefixed(u, "GET", offers, nil, 200), "offers"); n != 1 {
			t.Errorf("%s sees %d offers, want 1", u, n)
		}
	}
	e.expect(stranger, "GET", offers, nil, 404)

	// One tracking id sent ten times at once creates one offer; every
	// other answer is a 409 naming it or a 429 (in flight).
	answers := concurrently(10, func() handlerstest.APIResponse { return e.call("alice", "POST", offers, offer(bob, "3", "conc")) })
	named := map[string]bool{}
	for _, r := range answers {
		switch r.Status {
		case 200:
			named[field(t, r, "offer_contract_id")] = true
		case 409, 429:
		default:
			t.Errorf("concurrent create = %d %s, want 200, 409 or 429", r.Status, r.Body)
		}
	}
	conc := field(t, e.expect("alice", "POST", offers+"/conc/status", nil, 200), "contract_id")
	if len(named) != 1 || !named[conc] {
		t.Errorf("concurrent creates named %v, want only %s", named, conc)
	}
	if n := listLen(t, e.expect("alice", "GET", offers, nil, 200), "offers"); n != 2 {
		t.Errorf("%d open offers after the concurrent creates, want 2", n)
	}

	if s := field(t, e.prefixed("bob", "POST", offers+"/o1/status", nil, 200), "status"); s != ledger.OfferCreated {
		t.Errorf("o1 status = %s", s)
	}
	e.expect("alice", "POST", offers+"/unknown/status", nil, 404)

	// acceptTransferOffer, rejectTransferOffer, withdrawTransferOffer: the
	// spec's paths and the mission's short forms (contract id in the body).
	type move struct{ name, actor string }
	for _, m := range []move{{"accept", "bob"}, {"reject", "bob"}, {"withdraw", "alice"}} {
		short := "POST " + offers + "/" + m.name
		byPath := createOffer(m.name + "-path")
		byBody := createOffer(m.name + "-body")
		spec := e.expect(m.actor, "POST", offers+"/"+byPath+"/"+m.name, nil, 200)
		alias := e.alias(short, m.actor, "POST", offers+"/"+m.name, map[string]any{"contract_id": byBody}, "POST", offers+"/"+byBody+"/"+m.name, nil, 200)
		if m.name == "accept" && (field(t, spec, "accepted_offer_contract_id") == "" || field(t, alias, "accepted_offer_contract_id") == "") {
			t.Errorf("accept answers %s and %s", spec.Body, alias.Body)
		}
		// On a finished offer and an unknown one, both forms answer alike:
		// 404, the spec's only error (issue 22.4).
		for _, cid := range []string{byPath, unknownCID} {
			want := e.call(m.actor, "POST", offers+"/"+cid+"/"+m.name, nil)
			e.same(short+" on "+cid, want, e.alias(short, m.actor, "POST", offers+"/"+m.name, map[string]any{"contract_id": cid}, "POST", offers+"/"+cid+"/"+m.name, nil, want.Status))
			if want.Status != http.StatusNotFound {
				t.Errorf("%s on %s = %d %s, want 404", m.name, cid, want.Status, want.Body)
			}
		}
	}
	e.expect("alice", "POST", offers+"/"+o1+"/accept", nil, 403)
	e.expect("carol", "POST", offers+"/"+o1+"/accept", nil, 404)
	e.expect("bob", "POST", offers+"/"+o1+"/accept", nil, 200)
	for tracking, want := range map[string]string{"o1": ledger.OfferCompleted, "accept-body": ledger.OfferCompleted, "reject-path": ledger.OfferFailed, "withdraw-body": ledger.OfferFailed} {
		if s := field(t, e.expect("alice", "POST", offers+"/"+tracking+"/status", nil, 200), "status"); s != want {
			t.Errorf("%s status = %s, want %s", tracking, s, want)
		}
	}
	// Acceptance completes in the same transaction: none is left waiting.
	if n := listLen(t, e.prefixed("bob", "GET", "/v0/wallet/accepted-transfer-offers", nil, 200), "accepted_offers"); n != 0 {
		t.Errorf("%d accepted offers left", n)
	}
	e.expect(stranger, "GET", "/v0/wallet/accepted-transfer-offers", nil, 404)

	// createTransferPreapproval: 200, 409 with the same body, 404, 429.
	const pre = "/v0/wallet/transfer-preapproval"
	send := func(receiver coin.PartyID, amount, dedup string) map[string]any {
		return map[string]any{"receiver_party_id": receiver, "amount": amount, "deduplication_id": dedup, "description": "tip"}
	}
	e.expect("alice", "POST", pre+"/send", send(bob, "1", "d0"), 400) // bob has no preapproval yet
	preCID := field(t, e.expect("bob", "POST", pre, nil, 200), "transfer_preapproval_contract_id")
	if again := field(t, e.expect("bob", "POST", pre, nil, 409), "transfer_preapproval_contract_id"); again != preCID {
		t.Errorf("409 names %s, want %s", again, preCID)
	}
	e.expect(stranger, "POST", pre, nil, 404)
	e.inFlight("preapproval:"+string(carol), func() {
		e.expect("carol", "POST", pre, nil, 429)
	})
	e.expect("carol", "POST", pre, nil, 200)

	// transferPreapprovalSend: one success per deduplication id (the rest
	// after the 24 hours, at the end).
	e.expect("alice", "POST", pre+"/send", send(bob, "10", "d1"), 200)
	e.expect("alice", "POST", pre+"/send", send(bob, "10", "d1"), 409)
	e.expect("alice", "POST", pre+"/send", send(bob, "1", "d2"), 200)
	e.expect("alice", "POST", pre+"/send", map[string]any{"receiver_party_id": bob, "amount": "1"}, 400)
	e.expect(stranger, "POST", pre+"/send", send(bob, "1", "d3"), 404)

	// validator-internal: the operator's preapprovals.
	const byParty = "/v0/admin/transfer-preapprovals/by-party/"
	if n := listLen(t, e.prefixed("admin", "GET", "/v0/admin/transfer-preapprovals", nil, 200), "contracts"); n != 2 {
		t.Errorf("%d preapprovals listed, want 2", n)
	}
	e.prefixed("admin", "GET", byParty+string(bob), nil, 200)
	e.expect("admin", "GET", byParty+string(alice), nil, 404)
	e.expect("alice", "GET", byParty+string(bob), nil, 403)
	e.expect("admin", "DELETE", byParty+string(carol), nil, 200)
	e.expect("admin", "DELETE", byParty+string(carol), nil, 404)

	// Token-standard transfers: create (200, 409, 400, 404, 429), list,
	// accept, reject, withdraw; to carol, whose preapproval is gone, they
	// wait as instructions, to bob, who has one, they complete at once.
	const ts = "/v0/wallet/token-standard/transfers"
	transfer := func(receiver coin.PartyID, tracking string) map[string]any {
		return map[string]any{"receiver_party_id": receiver, "amount": "5", "description": "rent", "expires_at": exp.UnixMicro(), "tracking_id": tracking}
	}
	createTI := func(tracking string) string {
		var res tiResult
		e.expect("alice", "POST", ts, transfer(carol, tracking), 200).JSON(t, &res)
		if res.Output.TransferInstructionCID == "" {
			t.Fatalf("create %s gave no instruction", tracking)
		}
		return res.Output.TransferInstructionCID
	}
	var direct tiResult
	e.expect("alice", "POST", ts, map[string]any{"receiver_party_id": bob, "amount": "5", "description": "rent", "expires_at": exp.UnixMicro(), "tracking_id": "x-direct"}, 200).JSON(t, &direct)
	if direct.Output.TransferInstructionCID != "" || len(direct.Output.ReceiverHoldingCIDs) != 1 {
		t.Errorf("transfer to a preapproved receiver = %+v, want completed", direct)
	}
	x1 := createTI("x1")
	e.expect("alice", "POST", ts, transfer(carol, "x1"), 409)
	e.expect("alice", "POST", ts, map[string]any{"receiver_party_id": bob, "amount": "1"}, 400)
	e.expect("alice", "POST", ts, transfer(coin.PartyID("ghost::"+alice.Namespace()), "x-ghost"), 404)
	e.expect(stranger, "POST", ts, transfer(carol, "x-s"), 404)
	e.inFlight("token-transfer:"+string(alice)+":busy", func() {
		e.expect("alice", "POST", ts, transfer(carol, "busy"), 429)
	})
	x2, x3, x4 := createTI("x2"), createTI("x3"), createTI("x4")
	if n := listLen(t, e.prefixed("carol", "GET", ts, nil, 200), "transfers"); n != 4 {
		t.Errorf("carol sees %d transfers, want 4", n)
	}
	e.expect(stranger, "GET", ts, nil, 404)

	// The registry's choice contexts on a pending instruction, at the root
	// and through the validator's scan proxy.
	const ti = "/registry/transfer-instruction/v1/"
	for _, m := range []string{"accept", "reject", "withdraw"} {
		path := ti + x4 + "/choice-contexts/" + m
		r := e.expect("", "POST", path, map[string]any{"meta": map[string]string{"k": "v"}}, 200)
		e.same(path+" via the scan proxy", r, e.expect(stranger, "POST", "/api/validator/v0/scan-proxy"+path, map[string]any{"meta": map[string]string{"k": "v"}}, 200))
		if r := e.expect("", "POST", path, map[string]any{"excludeDebugFields": true}, 200); bytes.Contains(r.Body, []byte(`"debug`)) {
			t.Errorf("%s with excludeDebugFields: %s", m, r.Body)
		}
		e.expect("", "POST", ti+"xyz/choice-contexts/"+m, map[string]any{}, 400)
		e.expect("", "POST", ti+x4+"/choice-contexts/"+m, "{", 400)
		e.expect("", "POST", ti+unknownCID+"/choice-contexts/"+m, map[string]any{}, 404)
	}

	// While a contract to disclose is being reassigned between
	// synchronizers the contexts answer 409 (the mission's status; the spec
	// does not list it), and 200 again once it has arrived.
	rules := string(e.l.RulesContractID())
	reassign := map[string]any{"contract_id": rules, "target_synchronizer_id": "global-domain::1220feedfeed"}
	if r := e.client("admin").DoOwn("POST", "/v0/admin/devnet/reassignments", reassign); r.Status != 200 {
		t.Fatalf("reassign = %d %s", r.Status, r.Body)
	}
	for _, m := range []string{"accept", "reject", "withdraw"} {
		if r := e.expect("", "POST", ti+x4+"/choice-contexts/"+m, map[string]any{}, 409); !strings.Contains(r.Error(), "reassigned") {
			t.Errorf("%s context during a reassignment: %s", m, r.Body)
		}
	}
	if r := e.client("admin").DoOwn("POST", "/v0/admin/devnet/reassignments/"+rules+"/complete", nil); r.Status != 200 {
		t.Fatalf("complete reassignment = %d %s", r.Status, r.Body)
	}
	e.expect("", "POST", ti+x4+"/choice-contexts/withdraw", map[string]any{}, 200)

	// The wallet's moves; then the finished instruction has no context.
	for _, c := range []struct{ cid, move, actor string }{{x1, "accept", "carol"}, {x2, "reject", "carol"}, {x3, "withdraw", "alice"}} {
		var res tiResult
		e.expect(c.actor, "POST", ts+"/"+c.cid+"/"+c.move, nil, 200).JSON(t, &res)
		if len(res.Output.ReceiverHoldingCIDs)+len(res.SenderChangeCIDs) == 0 {
			t.Errorf("%s gave no holdings: %+v", c.move, res)
		}
		// A finished instruction is archived: not found, as the spec's
		// only error status says (offers too).
		e.expect(c.actor, "POST", ts+"/"+c.cid+"/"+c.move, nil, 404)
		e.expect(c.actor, "POST", ts+"/"+unknownCID+"/"+c.move, nil, 404)
		e.expect("", "POST", ti+c.cid+"/choice-contexts/"+c.move, map[string]any{}, 404)
	}
	e.expect("alice", "POST", ts+"/"+x4+"/accept", nil, 403)

	// getTransferFactory.
	dso := string(e.l.DSO())
	factoryArgs := map[string]any{
		"expectedAdmin": dso,
		"transfer": map[string]any{
			"sender": alice, "receiver": bob, "amount": "5.0000000000",
			"instrumentId":     map[string]any{"admin": dso, "id": ledger.InstrumentID},
			"requestedAt":      ledger.FormatTime(e.clock.Now()),
			"executeBefore":    ledger.FormatTime(exp),
			"inputHoldingCids": []string{}, "meta": map[string]any{"values": map[string]string{}},
		},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
	}
	const factory = ti + "transfer-factory"
	e.same("transfer factory via the scan proxy", e.expect("", "POST", factory, map[string]any{"choiceArguments": factoryArgs}, 200),
		e.expect(stranger, "POST", "/v0/scan-proxy"+factory, map[string]any{"choiceArguments": factoryArgs}, 200))
	e.expect("", "POST", factory, map[string]any{}, 400)

	// Token metadata.
	const md = "/registry/metadata/v1"
	for _, p := range []string{md + "/info", md + "/instruments", md + "/instruments/" + ledger.InstrumentID} {
		e.same(p+" via the scan proxy", e.expect("", "GET", p, nil, 200), e.expect(stranger, "GET", "/v0/scan-proxy"+p, nil, 200))
	}
	e.expect("", "GET", md+"/instruments?pageSize=1", nil, 200)
	e.expect("", "GET", md+"/instruments/Bitcoin", nil, 404)

	// createBuyTrafficRequest (200, 409, 400, 429), getBuyTrafficRequestStatus.
	const bt = "/v0/wallet/buy-traffic-requests"
	traffic := func(bytes int64, tracking string) map[string]any {
		return map[string]any{"receiving_validator_party_id": e.l.Operator(), "domain_id": e.l.SynchronizerID(), "traffic_amount": bytes, "tracking_id": tracking, "expires_at": exp.UnixMicro()}
	}
	field(t, e.expect("alice", "POST", bt, traffic(200_000, "b1"), 200), "request_contract_id")
	e.expect("alice", "POST", bt, traffic(200_000, "b1"), 409)
	e.expect("alice", "POST", bt, traffic(199_999, "b2"), 400)
	e.inFlight("buy-traffic:"+string(alice)+":busy", func() {
		e.expect("alice", "POST", bt, traffic(200_000, "busy"), 429)
	})
	if s := field(t, e.prefixed("alice", "POST", bt+"/b1/status", nil, 200), "status"); s != "completed" {
		t.Errorf("b1 status = %s", s)
	}
	e.expect("alice", "POST", bt+"/b2/status", nil, 404)
	// Ten at once with one tracking id buy once.
	trafficBefore, err := e.w.Traffic.TrafficStatus(ctx, e.l.Operator())
	if err != nil {
		t.Fatal(err)
	}
	okCount := 0
	for _, r := range concurrently(10, func() handlerstest.APIResponse { return e.call("alice", "POST", bt, traffic(200_000, "b-conc")) }) {
		switch r.Status {
		case 200:
			okCount++
		case 409, 429:
		default:
			t.Errorf("concurrent buy = %d %s, want 200, 409 or 429", r.Status, r.Body)
		}
	}
	trafficAfter, err := e.w.Traffic.TrafficStatus(ctx, e.l.Operator())
	if err != nil {
		t.Fatal(err)
	}
	if okCount != 1 || trafficAfter.NumPurchases != trafficBefore.NumPurchases+1 {
		t.Errorf("concurrent buys: %d succeeded, purchases %d -> %d; want one", okCount, trafficBefore.NumPurchases, trafficAfter.NumPurchases)
	}
	e.expect("bob", "POST", bt+"/b1/status", nil, 404)

	// listTransactions, paged one by one.
	all := listLen(t, e.prefixed("alice", "POST", "/v0/wallet/transactions", map[string]any{"page_size": 100}, 200), "items")
	paged, after := 0, ""
	for {
		body := map[string]any{"page_size": 1}
		if after != "" {
			body["begin_after_id"] = after
		}
		var page struct {
			Items []struct {
				EventID string `json:"event_id"`
			} `json:"items"`
		}
		e.expect("alice", "POST", "/v0/wallet/transactions", body, 200).JSON(t, &page)
		if len(page.Items) == 0 {
			break
		}
		paged++
		after = page.Items[0].EventID
	}
	if paged != all || all < 10 {
		t.Errorf("paged %d items, the whole list has %d", paged, all)
	}
	e.expect(stranger, "POST", "/v0/wallet/transactions", map[string]any{"page_size": 1}, 404)

	// Reward coupons: the operator provides the preapprovals, so it paid
	// their fees (validator rewards) and is the featured provider of the
	// preapproved sends (app rewards).
	for _, c := range []struct {
		path, field string
		admin       bool
	}{
		{"/v0/wallet/app-reward-coupons", "app_reward_coupons", true},
		{"/v0/wallet/validator-reward-coupons", "validator_reward_coupons", true},
		{"/v0/wallet/validator-liveness-activity-records", "validator_liveness_activity_records", false},
	} {
		if n := listLen(t, e.prefixed("admin", "GET", c.path, nil, 200), c.field); c.admin && n == 0 {
			t.Errorf("%s: the operator has none", c.path)
		}
		e.expect("alice", "GET", c.path, nil, 200)
		e.expect(stranger, "GET", c.path, nil, 404)
	}

	// A deduplication id is free again after the 24 hours.
	e.clock.Advance(commands.DeduplicationWindow*time.Second + time.Minute)
	e.expect("alice", "POST", pre+"/send", send(bob, "1", "d1"), 200)
	e.expect("alice", "POST", pre+"/send", send(bob, "1", "d1"), 409)
}

// declaredStatuses lists, per "file#operationId", the statuses the specs
// declare.
func declaredStatuses(t testing.TB) map[string][]int {
	t.Helper()
	ss, err := handlerstest.LoadSpecs()
	if err != nil {
		t.Fatalf("load specs: %v", err)
	}
	declared := map[string][]int{}
	for _, s := range ss {
		for _, item := range s.Doc.Paths.Map() {
			for _, op := range item.Operations() {
				for code := range op.Responses.Map() {
					if n, err := strconv.Atoi(code); err == nil {
						declared[s.Name+"#"+op.OperationID] = append(declared[s.Name+"#"+op.OperationID], n)
					}
				}
			}
		}
	}
	return declared
}

// checkCoverage fails t unless every listed operation answered a 2xx and
// every error status its spec declares (bar 5xx and the unreachable ones),
// and every mission alias was exercised.
func (e *contractEnv) checkCoverage(t testing.TB) {
	t.Helper()
	e.checkOperations(t, issue3Operations, unreachableStatuses)
	for _, a := range requiredAliases {
		if !e.aliases[a] {
			t.Errorf("mission alias %s was not exercised", a)
		}
	}
}

// checkOperations fails t unless every operation of ops answered a 2xx
// and every error status its spec declares (bar 5xx and the unreachable
// ones), and logs what was exercised.
func (e *contractEnv) checkOperations(t testing.TB, ops []string, unreachable map[string]string) {
	t.Helper()
	declared := declaredStatuses(t)
	for key := range unreachable {
		op, code, _ := strings.Cut(key, " ")
		n, _ := strconv.Atoi(code)
		if !slices.Contains(ops, op) || !slices.Contains(declared[op], n) {
			t.Errorf("unreachableStatuses names %q, not a declared status of a listed operation", key)
		}
	}
	for _, op := range ops {
		codes, ok := declared[op]
		if !ok {
			t.Errorf("%s: no such operation in the specs", op)
			continue
		}
		seen := e.seen[op]
		ok2xx := false
		for s := range seen {
			ok2xx = ok2xx || s/100 == 2
		}
		if !ok2xx {
			t.Errorf("%s: never answered a success", op)
		}
		for _, c := range codes {
			key := fmt.Sprintf("%s %d", op, c)
			switch {
			case c < 400 || c >= 500, unreachable[key] != "":
			case c == http.StatusTooManyRequests && e.engine != store.Postgres:
				// SQLite serialises writers: nothing is ever in flight.
			case !seen[c]:
				t.Errorf("%s: declared status %d was not exercised", op, c)
			}
		}
	}
	var report []string
	for _, op := range ops {
		var codes []int
		for c := range e.seen[op] {
			codes = append(codes, c)
		}
		slices.Sort(codes)
		report = append(report, fmt.Sprintf("%s %v", op, codes))
	}
	t.Logf("exercised:\n%s", strings.Join(report, "\n"))
}

// TestContractCoverageCheck proves checkCoverage fails on what it must: a
// listed operation never called, a declared error status never produced,
// a mission alias never used.
func TestContractCoverageCheck(t *testing.T) {
	declared := declaredStatuses(t)
	full := func() *contractEnv {
		e := &contractEnv{engine: store.Postgres, seen: map[string]map[int]bool{}, aliases: map[string]bool{}}
		for _, op := range issue3Operations {
			e.seen[op] = map[int]bool{}
			for _, c := range declared[op] {
				e.seen[op][c] = true
			}
		}
		for _, a := range requiredAliases {
			e.aliases[a] = true
		}
		return e
	}
	cases := []struct {
		name string
		edit func(e *contractEnv)
		want []string // substrings of the expected errors, one each
	}{
		{"everything", func(*contractEnv) {}, nil},
		{"an operation never called", func(e *contractEnv) { delete(e.seen, "wallet-internal.yaml#featureSupport") },
			[]string{"featureSupport: never answered a success"}},
		{"only errors", func(e *contractEnv) { delete(e.seen["wallet-internal.yaml#getBalance"], 200) },
			[]string{"getBalance: never answered a success"}},
		{"a declared status missed", func(e *contractEnv) { delete(e.seen["wallet-external.yaml#createBuyTrafficRequest"], 429) },
			[]string{"createBuyTrafficRequest: declared status 429"}},
		{"429 is not required on SQLite", func(e *contractEnv) {
			e.engine = store.SQLite
			delete(e.seen["wallet-external.yaml#createBuyTrafficRequest"], 429)
		}, nil},
		{"an unreachable status is not required", func(e *contractEnv) { delete(e.seen["wallet-internal.yaml#userStatus"], 404) }, nil},
		{"an alias missed", func(e *contractEnv) { delete(e.aliases, "GET /v0/wallet/coins") },
			[]string{"alias GET /v0/wallet/coins"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := full()
			c.edit(e)
			rec := &handlerstest.RecordingTB{TB: t}
			e.checkCoverage(rec)
			if len(rec.Errs) != len(c.want) {
				t.Fatalf("errors = %q, want %d", rec.Errs, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(rec.Errs[i], w) {
					t.Errorf("error %q does not mention %q", rec.Errs[i], w)
				}
			}
		})
	}
}
