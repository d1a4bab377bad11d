package api_test

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	extparty "github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// newAPIEnvClock is newAPIEnv with a controllable clock.
func newAPIEnvClock(t testing.TB, engine store.Dialect, clock *ledgertest.Clock) *foundationEnv {
	t.Helper()
	l := ledgertest.New(t, engine, ledgertest.Options{Clock: clock})
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{Audience: handlerstest.Audience, Issuer: "test", StaticKeys: map[string]crypto.PublicKey{"k1": key.Public()}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tt, _ := t.(*testing.T)
	return &foundationEnv{t: tt, l: l, key: key, h: handlers.New(l, handlers.Config{Auth: v}, nil).Routes(nil)}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// call sends a request and decodes the answer, failing unless the status
// is want.
func (e *foundationEnv) call(method, path, user string, body any, want int, out any) {
	e.t.Helper()
	b := ""
	if body != nil {
		b = mustJSON(e.t, body)
	}
	status, resp := e.do(method, path, user, b)
	if status != want {
		e.t.Fatalf("%s %s: status %d, want %d (body %s)", method, path, status, want, resp)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(resp), out); err != nil {
			e.t.Fatalf("%s %s: %v in %s", method, path, err, resp)
		}
	}
}

type prepared struct {
	Transaction string `json:"transaction"`
	TxHash      string `json:"tx_hash"`
	ExpiresAt   string `json:"expires_at"`
}

type submitted struct {
	Kind       string `json:"kind"`
	UpdateID   string `json:"update_id"`
	ContractID string `json:"contract_id"`
}

func sign(t *testing.T, key ed25519.PrivateKey, hash string) string {
	t.Helper()
	sig, err := extparty.SignHash(key, hash)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func submissionBody(party string, key ed25519.PrivateKey, p prepared, sig string) map[string]any {
	return map[string]any{"submission": map[string]any{
		"party_id": party, "transaction": p.Transaction, "signed_tx_hash": sig,
		"public_key": hex.EncodeToString(key.Public().(ed25519.PublicKey)),
	}}
}

// onboardExternal runs topology generate/sign/submit over HTTP.
func onboardExternal(e *foundationEnv, hint string) (string, ed25519.PrivateKey) {
	t := e.t
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	var gen struct {
		PartyID     string `json:"party_id"`
		TopologyTxs []struct {
			TopologyTx string `json:"topology_tx"`
			Hash       string `json:"hash"`
		} `json:"topology_txs"`
	}
	e.call("POST", "/v0/admin/external-party/topology/generate", "admin", map[string]any{"party_hint": hint, "public_key": hex.EncodeToString(pub)}, 200, &gen)
	if len(gen.TopologyTxs) != 3 || gen.PartyID != hint+"::"+coin.Fingerprint(pub) {
		t.Fatalf("generate = %+v", gen)
	}
	signed := []map[string]string{}
	for _, tx := range gen.TopologyTxs {
		signed = append(signed, map[string]string{"topology_tx": tx.TopologyTx, "signed_hash": sign(t, key, tx.Hash)})
	}
	req := map[string]any{"public_key": hex.EncodeToString(pub), "signed_topology_txs": signed}
	// A wrong signature creates nothing.
	bad := map[string]any{"public_key": hex.EncodeToString(pub), "signed_topology_txs": []map[string]string{
		signed[0], signed[1], {"topology_tx": signed[2]["topology_tx"], "signed_hash": signed[0]["signed_hash"]}}}
	e.call("POST", "/v0/admin/external-party/topology/submit", "admin", bad, 400, nil)
	e.call("POST", "/v0/admin/external-party/topology/submit", "alice", req, 403, nil)
	var sub struct {
		PartyID string `json:"party_id"`
	}
	e.call("POST", "/v0/admin/external-party/topology/submit", "admin", req, 200, &sub)
	if sub.PartyID != gen.PartyID {
		t.Fatalf("submit = %s, want %s", sub.PartyID, gen.PartyID)
	}
	e.call("POST", "/v0/admin/external-party/topology/submit", "admin", req, 409, nil)
	return sub.PartyID, key
}

func TestExternalPartyAPI(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			e := newAPIEnvClock(t, engine, clock)
			e.t = t
			ext, key := onboardExternal(e, "ext-alice")
			var bob struct {
				PartyID string `json:"party_id"`
			}
			e.call("POST", "/v0/admin/users", "admin", map[string]string{"name": "bob"}, 200, &bob)
			ledgertest.Mint(t, e.l, coin.PartyID(ext), "1000")

			transfer := map[string]any{"sender_party_id": ext, "receiver_party_id": bob.PartyID, "amount": "10.5", "description": "rent"}
			var last prepared
			var lastRes submitted
			for i := 0; i < 3; i++ {
				e.call("POST", "/v0/admin/external-party/transfer/prepare", "admin", transfer, 200, &last)
				e.call("POST", "/v0/admin/external-party/submit", "admin", submissionBody(ext, key, last, sign(t, key, last.TxHash)), 200, &lastRes)
				if lastRes.Kind != extparty.KindExternalTransfer || lastRes.UpdateID == "" {
					t.Fatalf("submit = %+v", lastRes)
				}
			}
			var bal map[string]any
			e.call("GET", "/v0/wallet/balance", "bob", nil, 200, &bal)
			if bal["effective_unlocked_qty"] != "31.5000000000" {
				t.Fatalf("bob's balance = %v, want 31.5", bal)
			}
			var xb map[string]any
			e.call("GET", "/v0/admin/external-party/balance?party_id="+ext, "admin", nil, 200, &xb)
			for _, f := range []string{"party_id", "total_unlocked_coin", "total_locked_coin", "total_coin_holdings", "accumulated_holding_fees_unlocked",
				"accumulated_holding_fees_locked", "accumulated_holding_fees_total", "total_available_coin", "computed_as_of_round"} {
				if _, ok := xb[f]; !ok {
					t.Errorf("balance lacks %s: %v", f, xb)
				}
			}
			unlocked := coin.MustParse(xb["total_unlocked_coin"].(string))
			if avail := coin.MustParse(xb["total_available_coin"].(string)); !avail.Equal(unlocked.Sub(coin.MustParse(xb["accumulated_holding_fees_unlocked"].(string)))) ||
				unlocked.Cmp(coin.MustParse("968.5")) > 0 || !unlocked.IsPositive() {
				t.Errorf("balance = %v", xb)
			}

			// Tampering: each refused, nothing moves.
			var p, other prepared
			e.call("POST", "/v0/admin/external-party/transfer/prepare", "admin", transfer, 200, &p)
			e.call("POST", "/v0/admin/external-party/transfer/prepare", "admin", transfer, 200, &other)
			_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
			good := sign(t, key, p.TxHash)
			flipped := []byte(good)
			if flipped[0] == '0' {
				flipped[0] = '1'
			} else {
				flipped[0] = '0'
			}
			hashFlipped, _ := hex.DecodeString(p.TxHash)
			hashFlipped[3] ^= 0x10
			for name, body := range map[string]map[string]any{
				"bit flipped in the signature":      submissionBody(ext, key, p, string(flipped)),
				"signature of a bit-flipped hash":   submissionBody(ext, key, p, sign(t, key, hex.EncodeToString(hashFlipped))),
				"signature by another key":          submissionBody(ext, key, p, sign(t, otherKey, p.TxHash)),
				"another key claimed":               submissionBody(ext, otherKey, p, sign(t, otherKey, p.TxHash)),
				"signature for another transaction": submissionBody(ext, key, p, sign(t, key, other.TxHash)),
				"no submission":                     {},
			} {
				if status, resp := e.do("POST", "/v0/admin/external-party/submit", "admin", mustJSON(t, body)); status != 400 {
					t.Errorf("%s: status %d (%s), want 400", name, status, resp)
				}
			}
			// The replay answers the first result and moves nothing.
			var again submitted
			e.call("POST", "/v0/admin/external-party/submit", "admin", submissionBody(ext, key, last, sign(t, key, last.TxHash)), 200, &again)
			if again != lastRes {
				t.Errorf("replay = %+v, want %+v", again, lastRes)
			}
			clock.Advance(extparty.DefaultPreparedTTL + time.Second)
			if status, resp := e.do("POST", "/v0/admin/external-party/submit", "admin", mustJSON(t, submissionBody(ext, key, p, good))); status != 409 || !strings.Contains(resp, "expired") {
				t.Errorf("expired: %d %s, want 409", status, resp)
			}
			e.call("GET", "/v0/wallet/balance", "bob", nil, 200, &bal)
			if bal["effective_unlocked_qty"] != "31.5000000000" {
				t.Fatalf("bob's balance after refused submissions = %v, want 31.5", bal)
			}

			// Balance errors and admin-only access.
			e.call("GET", "/v0/admin/external-party/balance", "admin", nil, 400, nil)
			e.call("GET", "/v0/admin/external-party/balance?party_id=nope", "admin", nil, 400, nil)
			e.call("GET", "/v0/admin/external-party/balance?party_id=ghost::1220"+strings.Repeat("ab", 32), "admin", nil, 404, nil)
			e.call("GET", "/v0/admin/external-party/balance?party_id="+ext, "bob", nil, 403, nil)
			e.call("POST", "/v0/admin/external-party/transfer/prepare", "bob", transfer, 403, nil)
			e.call("POST", "/v0/admin/external-party/transfer/prepare", "admin", map[string]any{"sender_party_id": bob.PartyID, "receiver_party_id": ext, "amount": "1"}, 400, nil)
			e.call("POST", "/v0/admin/external-party/topology/generate", "admin", map[string]any{"party_hint": "x", "public_key": "abcd"}, 400, nil)
			ledgertest.Conserved(t, e.l)
		})
	}
}

func TestMintingDelegationAPI(t *testing.T) {
	clock := ledgertest.NewClock()
	e := newAPIEnvClock(t, store.SQLite, clock)
	e.t = t
	ext, key := onboardExternal(e, "ext-bea")
	e.call("POST", "/v0/admin/users", "admin", map[string]string{"name": "bob"}, 200, nil)
	propose := func(limit int) string {
		var p prepared
		e.call("POST", "/v0/admin/external-party/minting-delegation-proposal/prepare", "admin", map[string]any{
			"beneficiary_party_id": ext, "expires_at": clock.Now().Add(24 * time.Hour).Format(time.RFC3339), "merge_limit": limit}, 200, &p)
		var r submitted
		e.call("POST", "/v0/admin/external-party/submit", "admin", submissionBody(ext, key, p, sign(t, key, p.TxHash)), 200, &r)
		return r.ContractID
	}
	p1 := propose(10)
	var props struct {
		Proposals []struct {
			Contract struct {
				ContractID string `json:"contract_id"`
			} `json:"contract"`
			Beneficiary string `json:"beneficiary"`
			MergeLimit  int    `json:"merge_limit"`
		} `json:"proposals"`
	}
	e.call("GET", "/v0/wallet/minting-delegation-proposals", "admin", nil, 200, &props)
	if len(props.Proposals) != 1 || props.Proposals[0].Contract.ContractID != p1 || props.Proposals[0].Beneficiary != ext || props.Proposals[0].MergeLimit != 10 {
		t.Fatalf("proposals = %+v", props)
	}
	e.call("GET", "/v0/wallet/minting-delegation-proposals", "bob", nil, 200, &props)
	if len(props.Proposals) != 0 {
		t.Errorf("bob sees %+v", props)
	}
	e.call("GET", "/v0/wallet/minting-delegation-proposals", "stranger", nil, 404, nil)
	e.call("POST", "/v0/wallet/minting-delegation-proposals/"+p1+"/accept", "bob", nil, 404, nil)
	e.call("POST", "/v0/wallet/minting-delegation-proposals/nope/accept", "admin", nil, 400, nil)
	var acc struct {
		ContractID string `json:"contract_id"`
	}
	e.call("POST", "/v0/wallet/minting-delegation-proposals/"+p1+"/accept", "admin", nil, 200, &acc)
	e.call("POST", "/v0/wallet/minting-delegation-proposals/"+p1+"/accept", "admin", nil, 404, nil)
	p2 := propose(3)
	e.call("POST", "/v0/wallet/minting-delegation-proposals/"+p2+"/reject", "admin", nil, 200, nil)
	e.call("POST", "/v0/wallet/minting-delegation-proposals/"+p2+"/accept", "admin", nil, 404, nil)
	var ds struct {
		Delegations []struct {
			Contract struct {
				ContractID string `json:"contract_id"`
			} `json:"contract"`
		} `json:"delegations"`
	}
	e.call("GET", "/v0/wallet/minting-delegations", "admin", nil, 200, &ds)
	if len(ds.Delegations) != 1 || ds.Delegations[0].Contract.ContractID != acc.ContractID {
		t.Fatalf("delegations = %+v", ds)
	}
	e.call("POST", "/v0/wallet/minting-delegations/"+acc.ContractID+"/reject", "bob", nil, 404, nil)
	e.call("POST", "/v0/wallet/minting-delegations/"+acc.ContractID+"/reject", "admin", nil, 200, nil)
	e.call("POST", "/v0/wallet/minting-delegations/"+acc.ContractID+"/reject", "admin", nil, 404, nil)
	e.call("GET", "/v0/wallet/minting-delegations", "admin", nil, 200, &ds)
	if len(ds.Delegations) != 0 {
		t.Errorf("after withdraw: %+v", ds)
	}
}

// FuzzSubmitExternal throws arbitrary JSON at the submit endpoints; no
// input may produce a 5xx.
func FuzzSubmitExternal(f *testing.F) {
	clock := ledgertest.NewClock()
	e := newAPIEnvClock(f, store.SQLite, clock)
	l := e.l
	ext, key := ledgertest.ExternalParty(f, l, "ext-fuzz")
	ledgertest.Mint(f, l, ext, "100")
	p, err := extparty.New(l).PrepareExternalTransfer(f.Context(), ext, l.Operator(), coin.MustParse("0.001"), "")
	if err != nil {
		f.Fatal(err)
	}
	s := ledgertest.Sign(f, ext, key, p)
	sub, _ := json.Marshal(map[string]any{"submission": map[string]string{
		"party_id": string(s.Party), "transaction": s.Transaction, "signed_tx_hash": s.SignedTxHash, "public_key": s.PublicKey}})
	f.Add(uint8(0), string(sub))
	f.Add(uint8(0), strings.Replace(string(sub), s.SignedTxHash[:4], "0000", 1))
	f.Add(uint8(0), `{"submission":{"party_id":"","transaction":"","signed_tx_hash":"","public_key":""}}`)
	f.Add(uint8(0), `{"submission":null}`)
	f.Add(uint8(1), fmt.Sprintf(`{"public_key":%q,"signed_topology_txs":[{"topology_tx":"e30=","signed_hash":"00"}]}`, s.PublicKey))
	f.Add(uint8(1), `{"public_key":"","signed_topology_txs":null}`)
	f.Add(uint8(1), `[]`)
	// The spec's submit endpoints: a signed acceptance and a signed send.
	recv, recvKey := ledgertest.ExternalParty(f, l, "ext-fuzz-recv")
	prop, err := extparty.New(l).CreateSetupProposal(f.Context(), recv)
	if err != nil {
		f.Fatal(err)
	}
	acc, err := extparty.New(l).PrepareAcceptSetupProposal(f.Context(), prop, recv)
	if err != nil {
		f.Fatal(err)
	}
	as := ledgertest.Sign(f, recv, recvKey, acc)
	accBody, _ := json.Marshal(map[string]any{"submission": map[string]string{
		"party_id": string(as.Party), "transaction": as.Transaction, "signed_tx_hash": as.SignedTxHash, "public_key": as.PublicKey}})
	f.Add(uint8(2), string(accBody))
	f.Add(uint8(2), string(sub))
	f.Add(uint8(3), string(accBody))
	f.Add(uint8(3), strings.Replace(string(accBody), as.SignedTxHash[:6], "ffffff", 1))
	if _, err := extparty.New(l).Submit(f.Context(), as); err != nil {
		f.Fatal(err)
	}
	ps, err := extparty.New(l).PrepareTransferPreapprovalSend(f.Context(), extparty.PreapprovalSendRequest{
		Sender: ext, Receiver: recv, Amount: coin.MustParse("0.5"), ExpiresAt: clock.Now().Add(time.Hour)})
	if err != nil {
		f.Fatal(err)
	}
	ss := ledgertest.Sign(f, ext, key, ps)
	sendBody, _ := json.Marshal(map[string]any{"submission": map[string]string{
		"party_id": string(ss.Party), "transaction": ss.Transaction, "signed_tx_hash": ss.SignedTxHash, "public_key": ss.PublicKey}})
	f.Add(uint8(3), string(sendBody))
	f.Add(uint8(3), strings.Replace(string(sendBody), ss.SignedTxHash[:6], "000000", 1))
	f.Add(uint8(2), string(sendBody))
	f.Add(uint8(3), `{"submission":{"party_id":"x::1220","transaction":"bm90IGpzb24=","signed_tx_hash":"zz","public_key":"00"}}`)
	paths := []string{"/v0/admin/external-party/submit", "/v0/admin/external-party/topology/submit",
		"/v0/admin/external-party/setup-proposal/submit-accept", "/v0/admin/external-party/transfer-preapproval/submit-send"}
	tok, err := web.SignDevToken(e.key, "k1", "test", handlerstest.Audience, "admin", time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		path := paths[int(which)%len(paths)]
		status, resp := e.doToken("POST", path, tok, body)
		if status >= 500 {
			t.Fatalf("POST %s %q: %d %s", path, body, status, resp)
		}
	})
}

// doToken sends a request with a ready token, for fuzzing (no *testing.T).
func (e *foundationEnv) doToken(method, path, token, body string) (int, string) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}
