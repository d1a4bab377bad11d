package api_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// foundationEnv is a ledger behind the full router, with a token minter.
type foundationEnv struct {
	t   *testing.T
	l   *ledger.Ledger
	h   http.Handler
	key ed25519.PrivateKey
}

func newFoundationEnv(t *testing.T, engine store.Dialect) *foundationEnv {
	t.Helper()
	l := ledgertest.New(t, engine)
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{Audience: handlerstest.Audience, Issuer: "test", StaticKeys: map[string]crypto.PublicKey{"k1": key.Public()}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &foundationEnv{t: t, l: l, key: key, h: handlers.New(l, handlers.Config{Auth: v}, nil).Routes(web.NewHealthHandler(web.HealthConfig{}))}
}

func (e *foundationEnv) token(user string) string {
	tok, err := web.SignDevToken(e.key, "k1", "test", handlerstest.Audience, user, time.Hour)
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// do sends a request as user ("" for none) and returns status and body.
func (e *foundationEnv) do(method, path, user, body string) (int, string) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		req.Header.Set("Authorization", "Bearer "+e.token(user))
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// decode unmarshals a JSON body into a map, failing on anything else.
func decode(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", body, err)
	}
	return m
}

func TestFoundationAPI(t *testing.T) {
	e := newFoundationEnv(t, store.Postgres)
	otherKey := func() string {
		_, k, _ := ed25519.GenerateKey(rand.Reader)
		tok, _ := web.SignDevToken(k, "k1", "test", handlerstest.Audience, "admin", time.Hour)
		return tok
	}()

	steps := []struct {
		name, method, path, user, body string
		status                         int
		wantField                      string // a field the body must have
	}{
		{"public validator info", "GET", "/v0/validator-user", "", "", 200, "party_id"},
		{"same under /api/validator", "GET", "/api/validator/v0/validator-user", "", "", 200, "user_name"},
		{"onboard without token", "POST", "/v0/admin/users", "", `{"name":"alice"}`, 401, "error"},
		{"onboard as non-admin", "POST", "/v0/admin/users", "mallory", `{"name":"alice"}`, 403, "error"},
		{"onboard malformed json", "POST", "/v0/admin/users", "admin", `{"name":`, 400, "error"},
		{"onboard empty name", "POST", "/v0/admin/users", "admin", `{"name":"  "}`, 400, "error"},
		{"onboard bad party id", "POST", "/v0/admin/users", "admin", `{"name":"x","party_id":"nope"}`, 400, "error"},
		{"onboard unknown party", "POST", "/v0/admin/users", "admin", `{"name":"x","party_id":"ghost::1220` + strings.Repeat("ab", 32) + `"}`, 404, "error"},
		{"onboard alice", "POST", "/v0/admin/users", "admin", `{"name":"alice"}`, 200, "party_id"},
		{"onboard alice again", "POST", "/v0/admin/users", "admin", `{"name":"alice"}`, 200, "party_id"},
		{"list users", "GET", "/v0/admin/users", "admin", "", 200, "usernames"},
		{"list users as alice", "GET", "/v0/admin/users", "alice", "", 403, "error"},
		{"register bob", "POST", "/v0/register", "bob", "", 200, "party_id"},
		{"status of stranger", "GET", "/v0/wallet/user-status", "carol", "", 200, "user_onboarded"},
		{"balance of stranger", "GET", "/v0/wallet/balance", "carol", "", 404, "error"},
		{"tap zero", "POST", "/v0/wallet/tap", "alice", `{"amount":"0"}`, 400, "error"},
		{"tap negative", "POST", "/v0/wallet/tap", "alice", `{"amount":"-5"}`, 400, "error"},
		{"tap 11 decimals", "POST", "/v0/wallet/tap", "alice", `{"amount":"1.00000000001"}`, 400, "error"},
		{"tap not a number", "POST", "/v0/wallet/tap", "alice", `{"amount":"ten"}`, 400, "error"},
		{"tap json number", "POST", "/v0/wallet/tap", "alice", `{"amount":10}`, 400, "error"},
		{"tap missing amount", "POST", "/v0/wallet/tap", "alice", `{}`, 400, "error"},
		{"tap by stranger", "POST", "/v0/wallet/tap", "carol", `{"amount":"1"}`, 404, "error"},
		{"tap", "POST", "/v0/wallet/tap", "alice", `{"amount":"10","command_id":"c1"}`, 200, "contract_id"},
		{"tap replay", "POST", "/v0/wallet/tap", "alice", `{"amount":"10","command_id":"c1"}`, 200, "contract_id"},
		{"balance", "GET", "/v0/wallet/balance", "alice", "", 200, "effective_unlocked_qty"},
		{"amulets", "GET", "/v0/wallet/amulets", "alice", "", 200, "amulets"},
		{"coins alias", "GET", "/v0/wallet/coins", "alice", "", 200, "locked_amulets"},
		{"offboard missing username", "POST", "/v0/admin/users/offboard", "admin", "", 400, "error"},
		{"offboard unknown", "POST", "/v0/admin/users/offboard?username=nobody", "admin", "", 404, "error"},
		{"offboard bob", "POST", "/v0/admin/users/offboard?username=bob", "admin", "", 200, ""},
		{"bob's balance after offboarding", "GET", "/v0/wallet/balance", "bob", "", 404, "error"},
		{"unknown endpoint", "GET", "/v0/wallet/nope", "alice", "", 404, "error"},
		{"readyz on app port", "GET", "/api/validator/readyz", "", "", 200, "status"},
	}
	for _, s := range steps {
		status, body := e.do(s.method, s.path, s.user, s.body)
		if status != s.status {
			t.Errorf("%s: status %d, want %d (body %s)", s.name, status, s.status, body)
			continue
		}
		if s.wantField != "" {
			if _, ok := decode(t, body)[s.wantField]; !ok {
				t.Errorf("%s: body %s lacks %q", s.name, body, s.wantField)
			}
		}
	}

	// A token signed by another key is refused, even for the admin.
	req := httptest.NewRequest("GET", "/v0/admin/users", nil)
	req.Header.Set("Authorization", "Bearer "+otherKey)
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != 401 {
		t.Errorf("token of another key: %d, want 401", rec.Code)
	}

	// Alice tapped 10 USD once (the replay minted nothing): 2000 CC.
	_, body := e.do("GET", "/v0/wallet/balance", "alice", "")
	if got := decode(t, body)["effective_unlocked_qty"]; got != "2000.0000000000" {
		t.Errorf("balance = %v, want 2000.0000000000", got)
	}
	_, body = e.do("GET", "/v0/wallet/user-status", "alice", "")
	st := decode(t, body)
	if st["user_onboarded"] != true || st["user_wallet_installed"] != true || !strings.HasPrefix(st["party_id"].(string), "alice::1220") {
		t.Errorf("user status = %v", st)
	}
	_, body = e.do("GET", "/v0/wallet/amulets", "alice", "")
	var list struct {
		Amulets []struct {
			Contract struct {
				Contract struct {
					TemplateID       string `json:"template_id"`
					CreatedEventBlob string `json:"created_event_blob"`
				} `json:"contract"`
				DomainID string `json:"domain_id"`
			} `json:"contract"`
			EffectiveAmount string `json:"effective_amount"`
		} `json:"amulets"`
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list.Amulets) != 1 {
		t.Fatalf("amulets = %s (%v)", body, err)
	}
	a := list.Amulets[0]
	if a.EffectiveAmount != "2000.0000000000" || a.Contract.DomainID != e.l.SynchronizerID() || a.Contract.Contract.TemplateID != ledger.TemplateAmulet {
		t.Errorf("amulet = %+v", a)
	}
	if _, _, err := e.l.VerifyBlob(a.Contract.Contract.CreatedEventBlob); err != nil {
		t.Errorf("blob of our own holding: %v", err)
	}
	forged := []byte(a.Contract.Contract.CreatedEventBlob)
	forged[len(forged)/2] ^= 1
	if _, _, err := e.l.VerifyBlob(string(forged)); err == nil {
		t.Error("a tampered blob was accepted")
	}
	s := ledgertest.Conserved(t, e.l)
	if !s.Minted.Equal(coin.MustParse("2000")) {
		t.Errorf("minted %s: failed requests must change nothing", s.Minted)
	}
	_ = context.Background
}
