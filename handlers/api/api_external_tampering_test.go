package api_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	extparty "github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// flipHash returns hashHex with one bit flipped in byte i.
func flipHash(t *testing.T, hashHex string, i int) string {
	t.Helper()
	b, err := hex.DecodeString(hashHex)
	if err != nil {
		t.Fatal(err)
	}
	b[i] ^= 0x01
	return hex.EncodeToString(b)
}

// TestExternalTopologySubmitTampering: every tampered topology submission
// over HTTP is 400 and creates no party; the good one creates it and its
// replay is 409. (Topology transactions are derived from the key and hint
// and hold no server state, so there is no preparation to expire.)
func TestExternalTopologySubmitTampering(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		admin := a.As("admin")
		pub, key, _ := ed25519.GenerateKey(rand.Reader)
		otherPub, otherKey, _ := ed25519.GenerateKey(rand.Reader)
		type genTx struct {
			TopologyTx string `json:"topology_tx"`
			Hash       string `json:"hash"`
		}
		generate := func(hint string, pub ed25519.PublicKey) (string, []genTx) {
			t.Helper()
			var gen struct {
				PartyID     string  `json:"party_id"`
				TopologyTxs []genTx `json:"topology_txs"`
			}
			r := admin.Do("POST", "/v0/admin/external-party/topology/generate", map[string]any{"party_hint": hint, "public_key": hex.EncodeToString(pub)})
			want(t, "generate", r, 200)
			r.JSON(t, &gen)
			return gen.PartyID, gen.TopologyTxs
		}
		party, txs := generate("ext-tamper", pub)
		_, others := generate("ext-tamper-other", pub) // same key, another party: other transactions
		body := func(pub ed25519.PublicKey, sig func(i int, tx genTx) string) map[string]any {
			signed := []map[string]string{}
			for i, tx := range txs {
				signed = append(signed, map[string]string{"topology_tx": tx.TopologyTx, "signed_hash": sig(i, tx)})
			}
			return map[string]any{"public_key": hex.EncodeToString(pub), "signed_topology_txs": signed}
		}
		good := func(i int, tx genTx) string { return sign(t, key, tx.Hash) }
		cases := []struct {
			name string
			body map[string]any
		}{
			{"bit flipped in the hash", body(pub, func(i int, tx genTx) string {
				if i == 1 {
					return sign(t, key, flipHash(t, tx.Hash, 9))
				}
				return good(i, tx)
			})},
			{"signature by another key", body(pub, func(i int, tx genTx) string { return sign(t, otherKey, tx.Hash) })},
			{"another key claimed", body(otherPub, func(i int, tx genTx) string { return sign(t, otherKey, tx.Hash) })},
			{"signature for another transaction", body(pub, func(i int, tx genTx) string {
				if i == 2 {
					return sign(t, key, others[2].Hash)
				}
				return good(i, tx)
			})},
			{"signatures swapped between transactions", body(pub, func(i int, tx genTx) string { return sign(t, key, txs[(i+1)%len(txs)].Hash) })},
		}
		for _, tc := range cases {
			r := admin.Do("POST", "/v0/admin/external-party/topology/submit", tc.body)
			if r.Status != 400 || r.Error() == "" {
				t.Errorf("%s: %d %s, want 400 with an error", tc.name, r.Status, r.Body)
			}
			if r := admin.Do("GET", "/v0/admin/external-party/balance?party_id="+party, nil); r.Status != 404 {
				t.Fatalf("%s: the party exists after a refused submission (%d %s)", tc.name, r.Status, r.Body)
			}
		}
		r := admin.Do("POST", "/v0/admin/external-party/topology/submit", body(pub, good))
		want(t, "good submission", r, 200)
		r = admin.Do("POST", "/v0/admin/external-party/topology/submit", body(pub, good))
		if r.Status != 409 || r.Error() == "" {
			t.Errorf("replay: %d %s, want 409", r.Status, r.Body)
		}
		want(t, "balance of the new party", admin.Do("GET", "/v0/admin/external-party/balance?party_id="+party, nil), 200)
	})
}

// TestExternalSubmitAcceptTampering: every tampered acceptance of a setup
// proposal over HTTP is refused (400, or 409 for an expired preparation) and
// leaves the proposal open with no preapproval; the good one creates the
// preapproval once, and its replay answers the first result.
func TestExternalSubmitAcceptTampering(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		admin := a.As("admin")
		recv, key := onboardExternalSpec(t, admin, "ext-acc")
		other, otherKey := onboardExternalSpec(t, admin, "ext-acc-other")
		propose := func(party string) string {
			t.Helper()
			r := admin.Do("POST", "/v0/admin/external-party/setup-proposal", map[string]any{"user_party_id": party})
			want(t, "proposal", r, 200)
			var p struct {
				ContractID string `json:"contract_id"`
			}
			r.JSON(t, &p)
			return p.ContractID
		}
		prop, otherProp := propose(recv), propose(other)
		prepare := func(cid, party string) preparedSend {
			t.Helper()
			r := admin.Do("POST", "/v0/admin/external-party/setup-proposal/prepare-accept", map[string]any{"contract_id": cid, "user_party_id": party})
			want(t, "prepare-accept", r, 200)
			var p preparedSend
			r.JSON(t, &p)
			return p
		}
		p := prepare(prop, recv)
		twin := prepare(prop, recv)          // the same acceptance, prepared again: another transaction
		foreign := prepare(otherProp, other) // another party's acceptance
		late := prepare(prop, recv)          // submitted after its preparation expired
		body := func(k ed25519.PrivateKey, tx preparedSend, sig string) map[string]any {
			return submissionBody(recv, k, prepared{Transaction: tx.Transaction}, sig)
		}
		unchanged := func(what string) {
			t.Helper()
			if r := admin.Do("GET", "/v0/admin/transfer-preapprovals/by-party/"+recv, nil); r.Status != 404 {
				t.Fatalf("%s: a preapproval exists (%d %s)", what, r.Status, r.Body)
			}
			var list struct {
				Contracts []struct {
					Contract struct {
						ContractID string `json:"contract_id"`
					} `json:"contract"`
				} `json:"contracts"`
			}
			admin.Do("GET", "/v0/admin/external-party/setup-proposal", nil).JSON(t, &list)
			open := false
			for _, c := range list.Contracts {
				open = open || c.Contract.ContractID == prop
			}
			if !open {
				t.Fatalf("%s: the proposal is no longer open: %+v", what, list)
			}
		}
		cases := []struct {
			name string
			body map[string]any
		}{
			{"bit flipped in the hash", body(key, p, sign(t, key, flipHash(t, p.TxHash, 4)))},
			{"signature by another key", body(key, p, sign(t, otherKey, p.TxHash))},
			{"another key claimed", body(otherKey, p, sign(t, otherKey, p.TxHash))},
			{"signature for another transaction", body(key, p, sign(t, key, twin.TxHash))},
			{"another party's acceptance under this party", body(key, foreign, sign(t, key, foreign.TxHash))},
			{"not hex", body(key, p, "zz")},
		}
		for _, tc := range cases {
			r := admin.Do("POST", "/v0/admin/external-party/setup-proposal/submit-accept", tc.body)
			if r.Status != 400 || r.Error() == "" {
				t.Errorf("%s: %d %s, want 400 with an error", tc.name, r.Status, r.Body)
			}
			unchanged(tc.name)
		}
		// Expired preparation: 409, nothing changes.
		a.Clock.Advance(extparty.DefaultPreparedTTL + time.Second)
		r := admin.Do("POST", "/v0/admin/external-party/setup-proposal/submit-accept", body(key, late, sign(t, key, late.TxHash)))
		if r.Status != 409 || !strings.Contains(r.Error(), "expired") {
			t.Errorf("expired preparation: %d %s, want 409 naming the expiry", r.Status, r.Body)
		}
		unchanged("expired preparation")

		// The good acceptance, then its replay: one preapproval.
		fresh := prepare(prop, recv)
		good := body(key, fresh, sign(t, key, fresh.TxHash))
		r = admin.Do("POST", "/v0/admin/external-party/setup-proposal/submit-accept", good)
		want(t, "submit-accept", r, 200)
		var first, again struct {
			PreapprovalCID string `json:"transfer_preapproval_contract_id"`
			UpdateID       string `json:"update_id"`
		}
		r.JSON(t, &first)
		r = admin.Do("POST", "/v0/admin/external-party/setup-proposal/submit-accept", good)
		want(t, "replay", r, 200)
		r.JSON(t, &again)
		if again != first {
			t.Errorf("replay = %+v, want the first result %+v", again, first)
		}
		// Another preparation of the now-archived proposal does nothing.
		r = admin.Do("POST", "/v0/admin/external-party/setup-proposal/submit-accept", body(key, twin, sign(t, key, twin.TxHash)))
		if r.Status < 400 || r.Status >= 500 {
			t.Errorf("second acceptance of one proposal: %d %s, want a 4xx", r.Status, r.Body)
		}
		var pre struct {
			TransferPreapproval struct {
				Contract struct {
					ContractID string `json:"contract_id"`
				} `json:"contract"`
			} `json:"transfer_preapproval"`
		}
		admin.Do("GET", "/v0/admin/transfer-preapprovals/by-party/"+recv, nil).JSON(t, &pre)
		if pre.TransferPreapproval.Contract.ContractID != first.PreapprovalCID {
			t.Errorf("preapproval = %+v, want %s", pre, first.PreapprovalCID)
		}
		ledgertest.Conserved(t, a.L)
	})
}
