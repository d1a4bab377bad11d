package api_test

import (
	"crypto"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// fuzzedEndpoints are the JSON endpoints that take a request body, with a
// valid-looking seed each.
var fuzzedEndpoints = []struct{ path, seed string }{
	{"/v0/admin/users", `{"name":"fuzz-user"}`},
	{"/v0/register", `{}`},
	{"/v0/wallet/tap", `{"amount":"1.5","command_id":"c"}`},
	{"/v0/wallet/transfer-offers", `{"receiver_party_id":"x::1220` + strings.Repeat("ab", 32) + `","amount":"1","description":"d","expires_at":1900000000000000,"tracking_id":"t"}`},
	{"/v0/wallet/transfer-offers/accept", `{"contract_id":"00"}`},
	{"/v0/wallet/transfer-offers/withdraw", `{"contract_id":"00"}`},
	{"/v0/wallet/transfer-preapproval/send", `{"receiver_party_id":"x","amount":"1","deduplication_id":"d"}`},
	{"/v0/wallet/transactions", `{"page_size":10}`},
	{"/v0/wallet/token-standard/transfers", `{"receiver_party_id":"x","amount":"1","description":"d","expires_at":1900000000000000,"tracking_id":"t"}`},
	{"/v0/wallet/buy-traffic-requests", `{"receiving_validator_party_id":"x","domain_id":"d","traffic_amount":200000,"tracking_id":"t","expires_at":1900000000000000}`},
	{"/registry/transfer-instruction/v1/transfer-factory", `{"choiceArguments":{},"excludeDebugFields":true}`},
	{"/registry/transfer-instruction/v1/00/choice-contexts/withdraw", `{"meta":{},"excludeDebugFields":false}`},
	{"/v0/admin/devnet/advance-rounds", `{"rounds":1}`},
	{"/v0/admin/devnet/reassignments", `{"contract_id":"00","target_synchronizer_id":"s"}`},
}

// FuzzJSONBodies sends arbitrary bodies to every JSON endpoint that takes
// one, as the validator operator (who has funds and every permission): no
// input may produce a 5xx, and conservation is checked when it ends.
func FuzzJSONBodies(f *testing.F) {
	e := newAPIEnvClock(f, store.SQLite, ledgertest.NewClock())
	ledgertest.Mint(f, e.l, e.l.Operator(), "1000")
	for i, ep := range fuzzedEndpoints {
		f.Add(uint8(i), ep.seed)
		f.Add(uint8(i), strings.Replace(ep.seed, `"1"`, `"-1.00000000001"`, 1))
		f.Add(uint8(i), strings.Replace(ep.seed, `"1"`, `1e400`, 1))
		// A NUL in text, which Postgres cannot store (seen as a 500 once).
		f.Add(uint8(i), strings.NewReplacer(`"d"`, `"d\u0000"`, `"t"`, `"\u0000t"`, `"c"`, `"c\u0000"`).Replace(ep.seed))
	}
	f.Add(uint8(0), `{"name":`+strings.Repeat(`"a"`, 1)+`}`)
	f.Add(uint8(0), strings.Repeat("[", 10000))
	tok, err := web.SignDevToken(e.key, "k1", "test", handlerstest.Audience, "admin", time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		ep := fuzzedEndpoints[int(which)%len(fuzzedEndpoints)]
		status, resp := e.doToken("POST", ep.path, tok, body)
		if status >= 500 {
			t.Fatalf("POST %s %q: %d %s", ep.path, body, status, resp)
		}
	})
}

// TestOversizedBody: a body over the limit is refused with 413 and a
// JSON error, before anything is decoded.
func TestOversizedBody(t *testing.T) {
	e := newAPIEnvClock(t, store.SQLite, ledgertest.NewClock())
	tok, err := web.SignDevToken(e.key, "k1", "test", handlerstest.Audience, "admin", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"name":"` + strings.Repeat("a", 2<<20) + `"}`
	status, resp := e.doToken("POST", "/v0/admin/users", tok, body)
	if status != 413 || !strings.Contains(resp, `"error"`) {
		t.Errorf("2 MiB body: %d %s, want 413 with an error body", status, resp)
	}
}

// TestRateLimitPerUser: past their budget a user gets 429 with
// Retry-After; another user is unaffected.
func TestRateLimitPerUser(t *testing.T) {
	e := newAPIEnvClock(t, store.SQLite, ledgertest.NewClock())
	v, err := web.NewVerifier(web.AuthConfig{Audience: handlerstest.Audience, Issuer: "test", StaticKeys: map[string]crypto.PublicKey{"k1": e.key.Public()}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := handlers.New(e.l, handlers.Config{Auth: v, Limiter: web.NewLimiter(web.RateLimit{Burst: 3, Per: time.Hour})}, nil).Routes(nil)
	get := func(user string) *httptest.ResponseRecorder {
		tok, _ := web.SignDevToken(e.key, "k1", "test", handlerstest.Audience, user, time.Hour)
		r := httptest.NewRequest("GET", "/v0/wallet/user-status", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for i := range 3 {
		if w := get("alice"); w.Code != 200 {
			t.Fatalf("request %d: %d", i+1, w.Code)
		}
	}
	w := get("alice")
	if w.Code != 429 || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), `"error"`) {
		t.Errorf("4th request: %d %q %s; want 429 with Retry-After and an error body", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := get("bob"); w.Code != 200 {
		t.Errorf("bob: %d; one user's limit must not affect another", w.Code)
	}
}
