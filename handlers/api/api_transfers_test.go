package api_test

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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/expiry"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// apiEnv is the full router on a fresh Postgres ledger, with tokens for
// any user name.
type apiEnv struct {
	t     *testing.T
	l     *ledger.Ledger
	clock *ledgertest.Clock
	srv   http.Handler
	key   ed25519.PrivateKey
	dbURL string
}

func newAPI(t *testing.T) *apiEnv {
	t.Helper()
	clock := ledgertest.NewClock()
	url := ledgertest.DBURL(t, store.Postgres)
	l := ledgertest.Open(t, url, ledgertest.Options{Clock: clock})
	t.Cleanup(func() {
		if !t.Failed() {
			ledgertest.Conserved(t, l)
		}
	})
	_, key, err := ed25519.GenerateKey(nil) // nil: crypto/rand
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{"k": key.Public()}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return &apiEnv{t: t, l: l, clock: clock, key: key, dbURL: url, srv: handlers.New(l, handlers.Config{Auth: v}, nil).Routes(nil)}
}

func (e *apiEnv) onboard(name string) coin.PartyID {
	e.t.Helper()
	p, err := users.Of(e.l).Onboard(context.Background(), name, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// do calls the router as user ("" for no token) and decodes the JSON body.
func (e *apiEnv) do(method, path, user string, body any) (int, map[string]any) {
	e.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		raw, _ = json.Marshal(b)
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		tok, err := web.SignDevToken(e.key, "k", "", "", user, time.Hour)
		if err != nil {
			e.t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	w := httptest.NewRecorder()
	e.srv.ServeHTTP(w, req)
	handlerstest.CheckSpec(e.t, req, raw, w.Code, w.Header(), w.Body.Bytes())
	out := map[string]any{}
	if w.Body.Len() > 0 {
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			e.t.Fatalf("%s %s: body %q is not a JSON object: %v", method, path, w.Body.String(), err)
		}
	}
	return w.Code, out
}

// expect checks a status and that the body has the spec's required fields
// (for errors without other fields given: "error").
func (e *apiEnv) expect(method, path, user string, body any, status int, fields ...string) map[string]any {
	e.t.Helper()
	got, out := e.do(method, path, user, body)
	if got != status {
		e.t.Fatalf("%s %s as %q = %d %v, want %d", method, path, user, got, out, status)
	}
	if status >= 400 && len(fields) == 0 {
		fields = append(fields, "error")
	}
	requireFields(e.t, out, fields...)
	return out
}

func requireFields(t *testing.T, m map[string]any, fields ...string) {
	t.Helper()
	for _, f := range fields {
		if _, ok := m[f]; !ok {
			t.Fatalf("response %v lacks required field %q", m, f)
		}
	}
}

var contractFields = []string{"template_id", "contract_id", "payload", "created_event_blob", "created_at"}

func requireContracts(t *testing.T, v any, n int) []map[string]any {
	t.Helper()
	list, ok := v.([]any)
	if !ok || len(list) != n {
		t.Fatalf("contracts = %v, want %d", v, n)
	}
	out := make([]map[string]any, 0, n)
	for _, c := range list {
		m := c.(map[string]any)
		requireFields(t, m, contractFields...)
		out = append(out, m)
	}
	return out
}

func offerBody(receiver coin.PartyID, amount, tracking string, expires time.Time) map[string]any {
	return map[string]any{"receiver_party_id": receiver, "amount": amount, "description": "for lunch", "expires_at": expires.UnixMicro(), "tracking_id": tracking}
}

func TestTransferOfferAPI(t *testing.T) {
	e := newAPI(t)
	alice, bob := e.onboard("alice"), e.onboard("bob")
	e.onboard("carol")
	ledgertest.Mint(t, e.l, alice, "100")
	exp := e.clock.Now().Add(time.Hour)

	// create: 200; any reuse of the tracking id 409 (as the spec says),
	// naming the existing offer; 400s, 401, 404.
	out := e.expect("POST", "/v0/wallet/transfer-offers", "alice", offerBody(bob, "10", "t1", exp), 200, "offer_contract_id")
	cid := out["offer_contract_id"].(string)
	out = e.expect("POST", "/v0/wallet/transfer-offers", "alice", offerBody(bob, "10", "t1", exp), 409, "error")
	if msg, _ := out["error"].(string); !strings.Contains(msg, cid) {
		t.Errorf("replay error %q does not name the offer %s", msg, cid)
	}
	e.expect("POST", "/v0/wallet/transfer-offers", "alice", offerBody(bob, "11", "t1", exp), 409)
	for name, body := range map[string]any{
		"unknown receiver": offerBody(coin.PartyID("nobody::"+alice.Namespace()), "1", "t-x", exp),
		"bad party":        offerBody("not-a-party", "1", "t-x", exp),
		"zero amount":      offerBody(bob, "0", "t-x", exp),
		"bad amount":       offerBody(bob, "1.5e3", "t-x", exp),
		"past expiry":      offerBody(bob, "1", "t-x", e.clock.Now().Add(-time.Minute)),
		"beyond balance":   offerBody(bob, "1000", "t-x", exp),
		"missing field":    map[string]any{"receiver_party_id": bob, "amount": "1"},
		"malformed":        `{"amount":`,
	} {
		if st, out := e.do("POST", "/v0/wallet/transfer-offers", "alice", body); st != 400 || out["error"] == nil {
			t.Errorf("%s: %d %v, want 400", name, st, out)
		}
	}
	_, out = e.do("POST", "/v0/wallet/transfer-offers", "alice", offerBody(coin.PartyID("nobody::"+alice.Namespace()), "1", "t-x", exp))
	if !strings.Contains(fmt.Sprint(out["error"]), "receiver_party_id") {
		t.Errorf("unknown receiver error = %v", out["error"])
	}
	e.expect("POST", "/v0/wallet/transfer-offers", "", offerBody(bob, "1", "t-x", exp), 401)
	e.expect("POST", "/v0/wallet/transfer-offers", "stranger", offerBody(bob, "1", "t-x", exp), 404)

	// 429: the same tracking id is being processed by another transaction.
	func() {
		db, err := sql.Open("pgx", e.dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "cmd:offer:"+string(alice)+":busy"); err != nil {
			t.Fatal(err)
		}
		e.expect("POST", "/v0/wallet/transfer-offers", "alice", offerBody(bob, "1", "busy", exp), 429)
	}()

	// list: both sides see it.
	for _, u := range []string{"alice", "bob"} {
		out = e.expect("GET", "/v0/wallet/transfer-offers", u, nil, 200, "offers")
		cs := requireContracts(t, out["offers"], 1)
		if cs[0]["template_id"] != ledger.TemplateTransferOffer || cs[0]["contract_id"] != cid {
			t.Errorf("offer = %v", cs[0])
		}
		p := cs[0]["payload"].(map[string]any)
		if p["trackingId"] != "t1" || p["amount"].(map[string]any)["unit"] != "AmuletUnit" {
			t.Errorf("payload = %v", p)
		}
	}
	out = e.expect("GET", "/v0/wallet/transfer-offers", "carol", nil, 200, "offers")
	requireContracts(t, out["offers"], 0)
	e.expect("GET", "/v0/wallet/transfer-offers", "stranger", nil, 404)

	// status: created, visible to sender and receiver, 404 otherwise.
	for _, u := range []string{"alice", "bob"} {
		out = e.expect("POST", "/v0/wallet/transfer-offers/t1/status", u, nil, 200, "status", "transaction_id", "contract_id")
		if out["status"] != "created" || out["contract_id"] != cid {
			t.Errorf("status = %v", out)
		}
	}
	e.expect("POST", "/v0/wallet/transfer-offers/t1/status", "carol", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/unknown/status", "alice", nil, 404)

	// accept: wrong party 403, stranger 404, unknown 404, then 200 and 404:
	// an offer no longer open is not found, as the spec and the real wallet
	// say (issue 22.4).
	e.expect("POST", "/v0/wallet/transfer-offers/"+cid+"/accept", "alice", nil, 403)
	e.expect("POST", "/v0/wallet/transfer-offers/"+cid+"/accept", "carol", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/00ff/accept", "bob", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/accept", "bob", map[string]any{}, 400)
	e.expect("POST", "/api/validator/v0/wallet/transfer-offers/"+cid+"/accept", "bob", nil, 200, "accepted_offer_contract_id")
	e.expect("POST", "/v0/wallet/transfer-offers/accept", "bob", map[string]any{"contract_id": cid}, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/"+cid+"/reject", "bob", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/"+cid+"/withdraw", "alice", nil, 404)
	out = e.expect("POST", "/v0/wallet/transfer-offers/t1/status", "alice", nil, 200, "status", "transaction_id", "contract_id")
	if out["status"] != "completed" {
		t.Errorf("status after accept = %v", out)
	}
	out = e.expect("GET", "/v0/wallet/balance", "bob", nil, 200)
	if out["effective_unlocked_qty"] != "10.0000000000" {
		t.Errorf("bob's balance = %v", out)
	}
	out = e.expect("GET", "/v0/wallet/accepted-transfer-offers", "bob", nil, 200, "accepted_offers")
	requireContracts(t, out["accepted_offers"], 0)
	e.expect("GET", "/v0/wallet/accepted-transfer-offers", "stranger", nil, 404)

	// reject (spec path) twice, withdraw (short form) by the wrong party and
	// the right one, accept after withdraw.
	e.expect("POST", "/v0/wallet/transfer-offers", "alice", offerBody(bob, "1", "t2", exp), 200)
	out = e.expect("POST", "/v0/wallet/transfer-offers", "alice", offerBody(bob, "2", "t3", exp), 200)
	c3 := out["offer_contract_id"].(string)
	c2 := e.mustOffer(alice, "t2")
	e.expect("POST", "/v0/wallet/transfer-offers/"+c2+"/reject", "alice", nil, 403)
	e.expect("POST", "/v0/wallet/transfer-offers/"+c2+"/reject", "bob", nil, 200)
	e.expect("POST", "/v0/wallet/transfer-offers/reject", "bob", map[string]any{"contract_id": c2}, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/"+c2+"/accept", "bob", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/"+c2+"/withdraw", "alice", nil, 404)
	out = e.expect("POST", "/v0/wallet/transfer-offers/t2/status", "alice", nil, 200, "status", "failure_kind")
	if out["status"] != "failed" || out["failure_kind"] != "rejected" {
		t.Errorf("rejected status = %v", out)
	}
	e.expect("POST", "/v0/wallet/transfer-offers/withdraw", "bob", map[string]any{"contract_id": c3}, 403)
	e.expect("POST", "/v0/wallet/transfer-offers/withdraw", "alice", map[string]any{"contract_id": c3}, 200)
	e.expect("POST", "/v0/wallet/transfer-offers/"+c3+"/accept", "bob", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/"+c3+"/reject", "bob", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/"+c3+"/withdraw", "alice", nil, 404)
	out = e.expect("POST", "/v0/wallet/transfer-offers/t3/status", "bob", nil, 200, "status", "failure_kind", "withdrawn_reason")
	if out["failure_kind"] != "withdrawn" || out["withdrawn_reason"] != ledger.WithdrawnBySender {
		t.Errorf("withdrawn status = %v", out)
	}

	// expiry: accept after expires_at is 404 and changes nothing; so is
	// every action once the automation has expired it.
	out = e.expect("POST", "/v0/wallet/transfer-offers", "alice", offerBody(bob, "1", "t4", e.clock.Now().Add(time.Minute)), 200)
	c4 := out["offer_contract_id"].(string)
	e.clock.Advance(2 * time.Minute)
	e.expect("POST", "/v0/wallet/transfer-offers/"+c4+"/accept", "bob", nil, 404)
	if n, err := expiry.New(e.l).Offers(context.Background()); err != nil || n != 1 {
		t.Errorf("expiry.Offers = %d, %v", n, err)
	}
	e.expect("POST", "/v0/wallet/transfer-offers/"+c4+"/accept", "bob", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/"+c4+"/reject", "bob", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-offers/"+c4+"/withdraw", "alice", nil, 404)
	out = e.expect("POST", "/v0/wallet/transfer-offers/t4/status", "alice", nil, 200, "status", "failure_kind")
	if out["failure_kind"] != "expired" {
		t.Errorf("expired status = %v", out)
	}

	// A sender who can no longer pay (an offer of more than the balance is
	// refused, so the funds leave after it, locked by an instruction): the
	// acceptance stands, the offer fails.
	out = e.expect("POST", "/v0/wallet/transfer-offers", "alice", offerBody(bob, "50", "t5", e.clock.Now().Add(time.Hour)), 200)
	if _, err := e.l.Instructions().Create(context.Background(), ledger.TransferInstructionRequest{Sender: alice, Receiver: bob,
		Amount: coin.MustParse("80"), ExecuteBefore: e.clock.Now().Add(time.Hour), TrackingID: "lock-80"}); err != nil {
		t.Fatal(err)
	}
	e.expect("POST", "/v0/wallet/transfer-offers/"+out["offer_contract_id"].(string)+"/accept", "bob", nil, 200, "accepted_offer_contract_id")
	out = e.expect("POST", "/v0/wallet/transfer-offers/t5/status", "alice", nil, 200, "status", "failure_kind", "withdrawn_reason")
	if out["failure_kind"] != "withdrawn" || !strings.HasPrefix(out["withdrawn_reason"].(string), "insufficient funds") {
		t.Errorf("unfunded status = %v", out)
	}
}

func (e *apiEnv) mustOffer(sender coin.PartyID, tracking string) string {
	e.t.Helper()
	o, err := pending.New(e.l).OfferStatus(context.Background(), sender, tracking)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(o.ContractID)
}

func TestPreapprovalAPI(t *testing.T) {
	e := newAPI(t)
	alice, bob := e.onboard("alice"), e.onboard("bob")
	e.onboard("carol")
	ledgertest.Mint(t, e.l, alice, "100")
	send := func(receiver coin.PartyID, amount, dedup string) map[string]any {
		return map[string]any{"receiver_party_id": receiver, "amount": amount, "deduplication_id": dedup, "description": "tip"}
	}

	e.expect("POST", "/v0/wallet/transfer-preapproval/send", "alice", send(bob, "1", "d0"), 400)
	out := e.expect("POST", "/v0/wallet/transfer-preapproval", "bob", nil, 200, "transfer_preapproval_contract_id")
	cid := out["transfer_preapproval_contract_id"]
	out = e.expect("POST", "/v0/wallet/transfer-preapproval", "bob", nil, 409, "transfer_preapproval_contract_id")
	if out["transfer_preapproval_contract_id"] != cid {
		t.Errorf("409 body = %v, want %v", out, cid)
	}
	e.expect("POST", "/v0/wallet/transfer-preapproval", "", nil, 401)
	e.expect("POST", "/v0/wallet/transfer-preapproval", "stranger", nil, 404)

	e.expect("POST", "/v0/wallet/transfer-preapproval/send", "alice", send(bob, "10", "d1"), 200)
	e.expect("POST", "/v0/wallet/transfer-preapproval/send", "alice", send(bob, "10", "d1"), 409)
	e.expect("POST", "/v0/wallet/transfer-preapproval/send", "alice", send(bob, "1000", "d2"), 400)
	e.expect("POST", "/v0/wallet/transfer-preapproval/send", "alice", map[string]any{"receiver_party_id": bob, "amount": "1"}, 400)
	e.expect("POST", "/v0/wallet/transfer-preapproval/send", "alice", send(bob, "-1", "d3"), 400)
	e.expect("POST", "/v0/wallet/transfer-preapproval/send", "stranger", send(bob, "1", "d4"), 404)
	e.expect("POST", "/v0/wallet/transfer-preapproval/send", "", send(bob, "1", "d4"), 401)
	out = e.expect("GET", "/v0/wallet/balance", "bob", nil, 200)
	if out["effective_unlocked_qty"] != "10.0000000000" {
		t.Errorf("bob's balance = %v", out)
	}

	// The operator (admin) is the featured provider: it earned a coupon.
	out = e.expect("GET", "/v0/wallet/app-reward-coupons", "admin", nil, 200, "app_reward_coupons")
	requireContracts(t, out["app_reward_coupons"], 1)
	out = e.expect("GET", "/v0/wallet/validator-reward-coupons", "alice", nil, 200, "validator_reward_coupons")
	requireContracts(t, out["validator_reward_coupons"], 0)
	out = e.expect("GET", "/v0/wallet/validator-liveness-activity-records", "alice", nil, 200, "validator_liveness_activity_records")
	requireContracts(t, out["validator_liveness_activity_records"], 0)
	e.expect("GET", "/v0/wallet/app-reward-coupons", "stranger", nil, 404)
	e.expect("GET", "/v0/wallet/app-reward-coupons", "", nil, 401)
	out = e.expect("GET", "/v0/feature-support", "", nil, 200, "token_standard", "transfer_preapproval_description")
	if out["token_standard"] != true || out["transfer_preapproval_description"] != true {
		t.Errorf("feature support = %v", out)
	}

	// validator admin endpoints.
	out = e.expect("GET", "/v0/admin/transfer-preapprovals", "admin", nil, 200, "contracts")
	list, _ := out["contracts"].([]any)
	if len(list) != 1 {
		t.Fatalf("contracts = %v", out)
	}
	requireFields(t, list[0].(map[string]any), "contract")
	out = e.expect("GET", "/v0/admin/transfer-preapprovals/by-party/"+string(bob), "admin", nil, 200, "transfer_preapproval")
	c := out["transfer_preapproval"].(map[string]any)["contract"].(map[string]any)
	requireFields(t, c, contractFields...)
	if c["template_id"] != ledger.TemplateTransferPreapproval || c["contract_id"] != cid {
		t.Errorf("preapproval = %v", c)
	}
	e.expect("GET", "/v0/admin/transfer-preapprovals/by-party/"+string(alice), "admin", nil, 404)
	e.expect("GET", "/v0/admin/transfer-preapprovals/by-party/"+string(bob), "alice", nil, 403)
	e.expect("GET", "/v0/admin/transfer-preapprovals", "alice", nil, 403)
	e.expect("GET", "/v0/admin/transfer-preapprovals", "", nil, 401)
	e.expect("DELETE", "/v0/admin/transfer-preapprovals/by-party/"+string(bob), "alice", nil, 403)
	e.expect("DELETE", "/v0/admin/transfer-preapprovals/by-party/"+string(bob), "admin", nil, 200)
	e.expect("DELETE", "/v0/admin/transfer-preapprovals/by-party/"+string(bob), "admin", nil, 404)
	e.expect("POST", "/v0/wallet/transfer-preapproval/send", "alice", send(bob, "1", "d5"), 400)
}

func TestTransactionsAPI(t *testing.T) {
	e := newAPI(t)
	e.onboard("alice")
	bob := e.onboard("bob")
	e.expect("POST", "/v0/wallet/tap", "alice", map[string]any{"amount": "1"}, 200)
	out := e.expect("POST", "/v0/wallet/transfer-offers", "alice", offerBody(bob, "10", "h1", e.clock.Now().Add(time.Hour)), 200)
	e.expect("POST", "/v0/wallet/transfer-offers/"+out["offer_contract_id"].(string)+"/accept", "bob", nil, 200)

	base := []string{"transaction_type", "transaction_subtype", "event_id", "date"}
	out = e.expect("POST", "/v0/wallet/transactions", "alice", map[string]any{"page_size": 10}, 200, "items")
	items := out["items"].([]any)
	// Newest first: the transfer, the tap, the onboarding notification.
	var kinds []string
	for _, it := range items {
		m := it.(map[string]any)
		requireFields(t, m, base...)
		requireFields(t, m["transaction_subtype"].(map[string]any), "template_id", "choice")
		kinds = append(kinds, m["transaction_type"].(string))
		switch m["transaction_type"] {
		case "transfer":
			requireFields(t, m, "provider", "sender", "receivers", "holding_fees", "amulet_price", "app_rewards_used", "validator_rewards_used", "sv_rewards_used")
			requireFields(t, m["sender"].(map[string]any), "party", "amount")
			if m["description"] != "for lunch" || m["transaction_subtype"].(map[string]any)["template_id"] != ledger.TemplateAcceptedTransferOffer {
				t.Errorf("transfer item = %v", m)
			}
		case "balance_change":
			requireFields(t, m, "receivers", "amulet_price")
		case "notification":
			requireFields(t, m, "details")
		}
	}
	if strings.Join(kinds, ",") != "transfer,balance_change,notification" {
		t.Errorf("kinds = %v", kinds)
	}
	// Paging: one by one gives the same items.
	var paged []any
	after := ""
	for {
		body := map[string]any{"page_size": 1}
		if after != "" {
			body["begin_after_id"] = after
		}
		out = e.expect("POST", "/v0/wallet/transactions", "alice", body, 200, "items")
		page := out["items"].([]any)
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		after = page[0].(map[string]any)["event_id"].(string)
	}
	if len(paged) != len(items) {
		t.Errorf("paged %d items, want %d", len(paged), len(items))
	}
	e.expect("POST", "/v0/wallet/transactions", "alice", map[string]any{"page_size": 1, "begin_after_id": "abc"}, 400)
	e.expect("POST", "/v0/wallet/transactions", "alice", map[string]any{}, 400)
	e.expect("POST", "/v0/wallet/transactions", "alice", map[string]any{"page_size": 0}, 400)
	e.expect("POST", "/v0/wallet/transactions", "stranger", map[string]any{"page_size": 1}, 404)
	e.expect("POST", "/v0/wallet/transactions", "", map[string]any{"page_size": 1}, 401)
}

// TestTransferOfferConcurrentTrackingID posts one tracking id 10 times at
// once through the router: exactly one offer exists afterwards, and every
// answer is 200 with it or 429 (in flight).
func TestTransferOfferConcurrentTrackingID(t *testing.T) {
	e := newAPI(t)
	ledgertest.Mint(t, e.l, e.onboard("alice"), "10")
	bob := e.onboard("bob")
	body := offerBody(bob, "5", "same", e.clock.Now().Add(time.Hour))
	type answer struct {
		status int
		cid    any
	}
	answers := make(chan answer, 10)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, _ := json.Marshal(body)
			req := httptest.NewRequest("POST", "/v0/wallet/transfer-offers", bytes.NewReader(raw))
			tok, _ := web.SignDevToken(e.key, "k", "", "", "alice", time.Hour)
			req.Header.Set("Authorization", "Bearer "+tok)
			w := httptest.NewRecorder()
			e.srv.ServeHTTP(w, req)
			var out map[string]any
			_ = json.Unmarshal(w.Body.Bytes(), &out)
			answers <- answer{w.Code, out["offer_contract_id"]}
		}()
	}
	wg.Wait()
	close(answers)
	cids := map[any]bool{}
	for a := range answers {
		switch a.status {
		case 200:
			cids[a.cid] = true
		case 409, 429:
		default:
			t.Errorf("answer %d, want 200, 409 or 429", a.status)
		}
	}
	out := e.expect("GET", "/v0/wallet/transfer-offers", "alice", nil, 200, "offers")
	offers := requireContracts(t, out["offers"], 1)
	if len(cids) > 1 || (len(cids) == 1 && !cids[offers[0]["contract_id"]]) {
		t.Errorf("answers named offers %v, want only %v", cids, offers[0]["contract_id"])
	}
}
