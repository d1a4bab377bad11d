package ledgerapi_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/topologytx"
	"github.com/ccwallet/ccwallet/web"
)

// post sends a JSON body as user to path on the Ledger API, without the
// spec check of the generated client (the older spec it validates
// against lacks the newer endpoints), and returns the status and body.
func (e *env) post(user, path string, req any) (int, []byte) {
	e.t.Helper()
	return e.do(user, http.MethodPost, path, req)
}

func (e *env) do(user, method, path string, req any) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	if req != nil {
		rd = body(e.t, req)
	}
	r, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	r.Header.Set("Content-Type", jsonType)
	if user != "" {
		tok, err := web.SignDevToken(e.signer, testKID, "", testAudience, user, time.Hour)
		if err != nil {
			e.t.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

type generatedTopology struct {
	PartyID              string   `json:"partyId"`
	PublicKeyFingerprint string   `json:"publicKeyFingerprint"`
	TopologyTransactions []string `json:"topologyTransactions"`
	MultiHash            string   `json:"multiHash"`
}

func rawKey(pub ed25519.PublicKey) map[string]any {
	return map[string]any{"format": "CRYPTO_KEY_FORMAT_RAW", "keyData": base64.StdEncoding.EncodeToString(pub), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"}
}

// generate asks for the topology of hint with key, as the wallet SDK's
// generateExternalParty does.
func (e *env) generate(hint string, key map[string]any) generatedTopology {
	e.t.Helper()
	code, b := e.post(adminUser, "/v2/parties/external/generate-topology", map[string]any{
		"synchronizer": e.l.SynchronizerID(), "partyHint": hint, "publicKey": key,
		"localParticipantObservationOnly": false, "confirmationThreshold": 1,
		"otherConfirmingParticipantUids": []string{}, "observingParticipantUids": []string{},
	})
	if code != http.StatusOK {
		e.t.Fatalf("generate-topology: %d %s", code, b)
	}
	var g generatedTopology
	if err := json.Unmarshal(b, &g); err != nil {
		e.t.Fatal(err)
	}
	return g
}

// allocateBody is the SDK's allocate request: the transactions and one
// CONCAT Ed25519 signature of the multi-hash by the fingerprint.
func allocateBody(sync string, g generatedTopology, sig []byte, signedBy string) map[string]any {
	txs := []map[string]any{}
	for _, tx := range g.TopologyTransactions {
		txs = append(txs, map[string]any{"transaction": tx})
	}
	return map[string]any{"synchronizer": sync, "identityProviderId": "", "onboardingTransactions": txs,
		"multiHashSignatures": []map[string]any{{"format": "SIGNATURE_FORMAT_CONCAT", "signature": base64.StdEncoding.EncodeToString(sig),
			"signedBy": signedBy, "signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519"}}}
}

func (e *env) partyKnown(p string) bool {
	e.t.Helper()
	code, b := e.do(adminUser, http.MethodGet, "/v2/parties/"+url.PathEscape(p), nil)
	if code != http.StatusOK {
		e.t.Fatalf("get party: %d %s", code, b)
	}
	var out struct {
		PartyDetails []struct {
			Party string `json:"party"`
		} `json:"partyDetails"`
	}
	_ = json.Unmarshal(b, &out)
	return len(out.PartyDetails) == 1 && out.PartyDetails[0].Party == p
}

func TestExternalPartyOnboarding(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		pub, key, _ := ed25519.GenerateKey(nil)
		_, otherKey, _ := ed25519.GenerateKey(nil)
		g := e.generate("sdk-alice", rawKey(pub))
		fp := coin.Fingerprint(pub)
		if g.PartyID != "sdk-alice::"+fp || g.PublicKeyFingerprint != fp || len(g.TopologyTransactions) != 3 {
			t.Fatalf("generate-topology = %+v, want sdk-alice::%s and 3 transactions", g, fp)
		}
		// The transactions are Canton's protobuf; the multi-hash is
		// Canton's over their hashes.
		raws := make([][]byte, len(g.TopologyTransactions))
		kinds := map[string]bool{}
		for i, s := range g.TopologyTransactions {
			raws[i], _ = base64.StdEncoding.DecodeString(s)
			tx, err := topologytx.Decode(raws[i])
			if err != nil {
				t.Fatalf("transaction %d: %v", i, err)
			}
			kinds[tx.Kind] = true
		}
		if len(kinds) != 3 {
			t.Errorf("kinds = %v, want the three onboarding mappings", kinds)
		}
		mh, _ := base64.StdEncoding.DecodeString(g.MultiHash)
		if !bytes.Equal(mh, topologytx.MultiHash(raws)) || len(mh) != 34 {
			t.Fatalf("multiHash %x is not the transactions' multi-hash", mh)
		}
		sig := ed25519.Sign(key, mh)
		sync := e.l.SynchronizerID()
		e.user("dave", "")

		refused := []struct {
			name   string
			user   string
			body   map[string]any
			status int
			code   string
		}{
			{"bad signature", adminUser, allocateBody(sync, g, ed25519.Sign(otherKey, mh), fp), 400, "INVALID_ARGUMENT"},
			{"signed by another fingerprint", adminUser, allocateBody(sync, g, sig, coin.Fingerprint(otherKey.Public().(ed25519.PublicKey))), 400, "INVALID_ARGUMENT"},
			{"unknown synchronizer", adminUser, allocateBody("global-domain::1220ffff", g, sig, fp), 400, "NOT_CONNECTED_TO_SYNCHRONIZER"},
			{"unsigned", adminUser, func() map[string]any {
				b := allocateBody(sync, g, sig, fp)
				delete(b, "multiHashSignatures")
				return b
			}(), 400, "INVALID_ARGUMENT"},
			{"a transaction missing", adminUser, func() map[string]any {
				b := allocateBody(sync, g, sig, fp)
				b["onboardingTransactions"] = b["onboardingTransactions"].([]map[string]any)[:2]
				return b
			}(), 400, "INVALID_ARGUMENT"},
			{"not an admin", "dave", allocateBody(sync, g, sig, fp), 403, "PERMISSION_DENIED"},
			{"no token", "", allocateBody(sync, g, sig, fp), 401, "UNAUTHENTICATED"},
		}
		for _, tc := range refused {
			code, b := e.post(tc.user, "/v2/parties/external/allocate", tc.body)
			wantCode(t, tc.name, code, b, tc.status, tc.code)
			if e.partyKnown(g.PartyID) {
				t.Fatalf("%s: the party exists after a refusal", tc.name)
			}
		}

		code, b := e.post(adminUser, "/v2/parties/external/allocate", allocateBody(sync, g, sig, fp))
		if code != http.StatusOK || !bytes.Contains(b, []byte(`"partyId":"`+g.PartyID+`"`)) {
			t.Fatalf("allocate: %d %s", code, b)
		}
		if !e.partyKnown(g.PartyID) {
			t.Fatal("GET /v2/parties/{party} does not find the allocated party")
		}
		code, b = e.post(adminUser, "/v2/parties/external/allocate", allocateBody(sync, g, sig, fp))
		wantCode(t, "allocated twice", code, b, 409, "PARTY_ALREADY_EXISTS")

		// A user gets the party's rights as for any party (the SDK's
		// waitForPartyAndGrantUserRights).
		code, b = e.post(adminUser, "/v2/users/"+adminUser+"/rights", map[string]any{"userId": adminUser, "identityProviderId": "",
			"rights": []any{map[string]any{"kind": map[string]any{"CanActAs": map[string]any{"value": map[string]any{"party": g.PartyID}}}}}})
		if code != http.StatusOK {
			t.Fatalf("grant CanActAs: %d %s", code, b)
		}

		// Per-transaction signatures instead of the multi-hash, with the
		// key as DER SubjectPublicKeyInfo.
		pub2, key2, _ := ed25519.GenerateKey(nil)
		der := append([]byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}, pub2...)
		g2 := e.generate("sdk-bob", map[string]any{"format": "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
			"keyData": base64.StdEncoding.EncodeToString(der), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"})
		txs := []map[string]any{}
		for _, s := range g2.TopologyTransactions {
			raw, _ := base64.StdEncoding.DecodeString(s)
			txs = append(txs, map[string]any{"transaction": s, "signatures": []map[string]any{{"format": "SIGNATURE_FORMAT_RAW",
				"signature": base64.StdEncoding.EncodeToString(ed25519.Sign(key2, topologytx.Hash(raw))), "signedBy": g2.PublicKeyFingerprint,
				"signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519"}}})
		}
		code, b = e.post(adminUser, "/v2/parties/external/allocate", map[string]any{"synchronizer": sync, "identityProviderId": "", "onboardingTransactions": txs})
		if code != http.StatusOK || !e.partyKnown(g2.PartyID) {
			t.Fatalf("allocate with per-transaction signatures: %d %s", code, b)
		}
	})
}

func TestExternalPartyGenerateRefusals(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		pub, _, _ := ed25519.GenerateKey(nil)
		req := func(mod func(m map[string]any)) map[string]any {
			m := map[string]any{"synchronizer": e.l.SynchronizerID(), "partyHint": "carol", "publicKey": rawKey(pub),
				"localParticipantObservationOnly": false, "confirmationThreshold": 1}
			mod(m)
			return m
		}
		for _, tc := range []struct {
			name   string
			body   map[string]any
			status int
			code   string
		}{
			{"ECDSA key spec", req(func(m map[string]any) { m["publicKey"].(map[string]any)["keySpec"] = "SIGNING_KEY_SPEC_EC_P256" }), 400, "INVALID_ARGUMENT"},
			{"33-byte key", req(func(m map[string]any) {
				m["publicKey"].(map[string]any)["keyData"] = base64.StdEncoding.EncodeToString(append([]byte{2}, pub...))
			}), 400, "INVALID_ARGUMENT"},
			{"unknown format", req(func(m map[string]any) { m["publicKey"].(map[string]any)["format"] = "CRYPTO_KEY_FORMAT_DER" }), 400, "INVALID_ARGUMENT"},
			{"unknown synchronizer", req(func(m map[string]any) { m["synchronizer"] = "other::1220aa" }), 400, "NOT_CONNECTED_TO_SYNCHRONIZER"},
			{"observers", req(func(m map[string]any) { m["observingParticipantUids"] = []string{"participant2::1220aa"} }), 400, "INVALID_ARGUMENT"},
			{"no key", req(func(m map[string]any) { delete(m, "publicKey") }), 400, "MISSING_FIELD"},
		} {
			code, b := e.post(adminUser, "/v2/parties/external/generate-topology", tc.body)
			wantCode(t, tc.name, code, b, tc.status, tc.code)
		}
	})
}
