package api_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	extparty "github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// onboardExternalSpec creates an external party over HTTP, spec-checked.
func onboardExternalSpec(t *testing.T, admin handlerstest.APIClient, hint string) (string, ed25519.PrivateKey) {
	t.Helper()
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	var gen struct {
		PartyID     string `json:"party_id"`
		TopologyTxs []struct {
			TopologyTx string `json:"topology_tx"`
			Hash       string `json:"hash"`
		} `json:"topology_txs"`
	}
	r := admin.Do("POST", "/v0/admin/external-party/topology/generate", map[string]any{"party_hint": hint, "public_key": hex.EncodeToString(pub)})
	if r.Status != 200 {
		t.Fatalf("generate: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &gen)
	signed := []map[string]string{}
	for _, tx := range gen.TopologyTxs {
		signed = append(signed, map[string]string{"topology_tx": tx.TopologyTx, "signed_hash": sign(t, key, tx.Hash)})
	}
	r = admin.Do("POST", "/v0/admin/external-party/topology/submit", map[string]any{"public_key": hex.EncodeToString(pub), "signed_topology_txs": signed})
	if r.Status != 200 {
		t.Fatalf("submit topology: %d %s", r.Status, r.Body)
	}
	return gen.PartyID, key
}

type preparedSend struct {
	Transaction string `json:"transaction"`
	TxHash      string `json:"tx_hash"`
	Prefix      string `json:"transfer_command_contract_id_prefix"`
	Details     string `json:"hashing_details"`
}

func want(t *testing.T, what string, r handlerstest.APIResponse, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status %d (%s), want %d", what, r.Status, r.Body, status)
	}
}

// TestExternalPreapprovalAPI runs the whole flow over HTTP through the full
// router, every exchange checked against the specs: topology, setup
// proposal, acceptance, three preapproval sends, balance; then every
// tampering case, refused without moving coin.
func TestExternalPreapprovalAPI(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		admin := a.As("admin")
		recv, recvKey := onboardExternalSpec(t, admin, "ext-recv")
		sender, key := onboardExternalSpec(t, admin, "ext-send")
		_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
		_, bob := a.User("bob", "")

		// Funding an external party on devnet: the admin tap (amount in USD).
		r := admin.DoOwn("POST", "/v0/admin/devnet/tap", map[string]any{"party_id": sender, "amount": "500"})
		want(t, "devnet tap", r, 200)
		r = admin.DoOwn("POST", "/v0/admin/devnet/tap", map[string]any{"party_id": "ghost::1220" + strings.Repeat("ab", 32), "amount": "5"})
		want(t, "tap for an unknown party", r, 404)
		want(t, "tap by a user", a.As("bob").DoOwn("POST", "/v0/admin/devnet/tap", map[string]any{"party_id": sender, "amount": "5"}), 403)
		var bal struct {
			TotalUnlocked string `json:"total_unlocked_coin"`
		}
		admin.Do("GET", "/v0/admin/external-party/balance?party_id="+sender, nil).JSON(t, &bal)
		funded := coin.MustParse(bal.TotalUnlocked)
		if !funded.IsPositive() {
			t.Fatalf("sender after tap = %s", bal.TotalUnlocked)
		}

		// Proposal.
		want(t, "proposal for nobody", admin.Do("POST", "/v0/admin/external-party/setup-proposal", map[string]any{"user_party_id": "nope"}), 400)
		want(t, "proposal for a local party", admin.Do("POST", "/v0/admin/external-party/setup-proposal", map[string]any{"user_party_id": bob}), 400)
		want(t, "proposal for an unknown party", admin.Do("POST", "/v0/admin/external-party/setup-proposal",
			map[string]any{"user_party_id": "ghost::1220" + strings.Repeat("ab", 32)}), 404)
		want(t, "proposal by a user", a.As("bob").Do("POST", "/v0/admin/external-party/setup-proposal", map[string]any{"user_party_id": recv}), 403)
		r = admin.Do("POST", "/v0/admin/external-party/setup-proposal", map[string]any{"user_party_id": recv})
		want(t, "proposal", r, 200)
		var prop struct {
			ContractID string `json:"contract_id"`
		}
		r.JSON(t, &prop)
		want(t, "second proposal", admin.Do("POST", "/v0/admin/external-party/setup-proposal", map[string]any{"user_party_id": recv}), 409)
		var list struct {
			Contracts []struct {
				Contract struct {
					ContractID string         `json:"contract_id"`
					Payload    map[string]any `json:"payload"`
				} `json:"contract"`
			} `json:"contracts"`
		}
		r = admin.Do("GET", "/v0/admin/external-party/setup-proposal", nil)
		want(t, "list proposals", r, 200)
		r.JSON(t, &list)
		if len(list.Contracts) != 1 || list.Contracts[0].Contract.ContractID != prop.ContractID || list.Contracts[0].Contract.Payload["user"] != recv ||
			list.Contracts[0].Contract.Payload["validator"] != string(a.L.Operator()) {
			t.Fatalf("proposals = %+v", list)
		}

		// Acceptance.
		want(t, "accept by another party", admin.Do("POST", "/v0/admin/external-party/setup-proposal/prepare-accept",
			map[string]any{"contract_id": prop.ContractID, "user_party_id": sender}), 400)
		want(t, "accept of no proposal", admin.Do("POST", "/v0/admin/external-party/setup-proposal/prepare-accept",
			map[string]any{"contract_id": string(coin.NewContractID()), "user_party_id": recv}), 404)
		r = admin.Do("POST", "/v0/admin/external-party/setup-proposal/prepare-accept",
			map[string]any{"contract_id": prop.ContractID, "user_party_id": recv, "verbose_hashing": true})
		want(t, "prepare-accept", r, 200)
		var acc preparedSend
		r.JSON(t, &acc)
		if acc.Details == "" {
			t.Errorf("no hashing_details with verbose_hashing")
		}
		accBody := submissionBody(recv, recvKey, prepared{Transaction: acc.Transaction}, sign(t, recvKey, acc.TxHash))
		want(t, "accept through submit-send", admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/submit-send", accBody), 400)
		r = admin.Do("POST", "/v0/admin/external-party/setup-proposal/submit-accept", accBody)
		want(t, "submit-accept", r, 200)
		var accepted struct {
			PreapprovalCID string `json:"transfer_preapproval_contract_id"`
			UpdateID       string `json:"update_id"`
		}
		r.JSON(t, &accepted)
		var pre struct {
			TransferPreapproval struct {
				Contract struct {
					ContractID string `json:"contract_id"`
				} `json:"contract"`
			} `json:"transfer_preapproval"`
		}
		admin.Do("GET", "/v0/admin/transfer-preapprovals/by-party/"+recv, nil).JSON(t, &pre)
		if accepted.UpdateID == "" || pre.TransferPreapproval.Contract.ContractID != accepted.PreapprovalCID {
			t.Fatalf("accepted = %+v, preapproval = %+v", accepted, pre)
		}
		r = admin.Do("GET", "/v0/admin/external-party/setup-proposal", nil)
		r.JSON(t, &list)
		if len(list.Contracts) != 0 {
			t.Errorf("proposal still listed: %+v", list)
		}
		want(t, "proposal with a preapproval", admin.Do("POST", "/v0/admin/external-party/setup-proposal", map[string]any{"user_party_id": recv}), 409)

		// Three sends; the nonce comes from the counter (404 = 0).
		nextNonce := func() int64 {
			t.Helper()
			r := a.As("").Do("GET", "/v0/transfer-command-counter/"+sender, nil)
			if r.Status == 404 {
				return 0
			}
			want(t, "counter", r, 200)
			var c struct {
				TransferCommandCounter struct {
					Contract struct {
						Payload struct {
							Sender    string `json:"sender"`
							NextNonce string `json:"nextNonce"`
						} `json:"payload"`
					} `json:"contract"`
				} `json:"transfer_command_counter"`
				NextNonce int64 `json:"next_nonce"`
			}
			r.JSON(t, &c)
			if c.TransferCommandCounter.Contract.Payload.Sender != sender || c.TransferCommandCounter.Contract.Payload.NextNonce != fmt.Sprint(c.NextNonce) {
				t.Fatalf("counter = %s", r.Body)
			}
			return c.NextNonce
		}
		sendReq := func(nonce int64, amount string) string {
			// amount is a JSON number: its text goes through verbatim.
			return fmt.Sprintf(`{"sender_party_id":%q,"receiver_party_id":%q,"amount":%s,"expires_at":%q,"nonce":%d,"description":"rent"}`,
				sender, recv, amount, a.Clock.Now().Add(time.Hour).Format(time.RFC3339), nonce)
		}
		prepare := func(nonce int64, amount string) preparedSend {
			t.Helper()
			r := admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/prepare-send", sendReq(nonce, amount))
			want(t, "prepare-send", r, 200)
			var p preparedSend
			r.JSON(t, &p)
			return p
		}
		sendBody := func(p preparedSend, sig string) map[string]any {
			return submissionBody(sender, key, prepared{Transaction: p.Transaction}, sig)
		}
		var lastBody map[string]any
		var lastRes struct {
			UpdateID string `json:"update_id"`
		}
		for i := 0; i < 3; i++ {
			n := nextNonce()
			if n != int64(i) {
				t.Fatalf("next nonce = %d, want %d", n, i)
			}
			p := prepare(n, "10.1234567891")
			if p.Prefix == "" {
				t.Errorf("no transfer_command_contract_id_prefix")
			}
			lastBody = sendBody(p, sign(t, key, p.TxHash))
			r := admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/submit-send", lastBody)
			want(t, "submit-send", r, 200)
			r.JSON(t, &lastRes)
		}
		want(t, "counter alias", admin.DoOwn("GET", "/v0/admin/external-party/transfer-command-counter/"+sender, nil), 200)
		want(t, "counter of a party that never sent", a.As("").Do("GET", "/v0/transfer-command-counter/"+recv, nil), 404)
		balances := func() (coin.Amount, coin.Amount) {
			t.Helper()
			var rb, sb struct {
				Total string `json:"total_coin_holdings"`
			}
			admin.Do("GET", "/v0/admin/external-party/balance?party_id="+recv, nil).JSON(t, &rb)
			admin.Do("GET", "/v0/admin/external-party/balance?party_id="+sender, nil).JSON(t, &sb)
			return coin.MustParse(rb.Total), coin.MustParse(sb.Total)
		}
		recvBal, senderBal := balances()
		if !recvBal.Equal(coin.MustParse("30.3703703673")) || senderBal.Cmp(funded.Sub(recvBal)) > 0 {
			t.Fatalf("balances: receiver %s (want 30.3703703673), sender %s", recvBal, senderBal)
		}

		// Refusals at preparation.
		want(t, "wrong nonce", admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/prepare-send", sendReq(1, "1")), 409)
		want(t, "amount as too precise a number", admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/prepare-send", sendReq(3, "1.00000000001")), 400)
		noPre := strings.Replace(sendReq(3, "1"), recv, string(bob), 1)
		want(t, "receiver without preapproval", admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/prepare-send", noPre), 400)

		// Tampering: each refused, nothing moves.
		p := prepare(3, "5")
		twin := prepare(3, "7")
		flippedHash, _ := hex.DecodeString(p.TxHash)
		flippedHash[5] ^= 0x01
		for name, body := range map[string]map[string]any{
			"bit flipped in the hash":           sendBody(p, sign(t, key, hex.EncodeToString(flippedHash))),
			"signature by another key":          sendBody(p, sign(t, otherKey, p.TxHash)),
			"signature for another transaction": sendBody(p, sign(t, key, twin.TxHash)),
			"no submission":                     {},
		} {
			if r := admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/submit-send", body); r.Status != 400 {
				t.Errorf("%s: %d %s, want 400", name, r.Status, r.Body)
			}
		}
		// The same signed submission twice transfers once.
		var again struct {
			UpdateID string `json:"update_id"`
		}
		r = admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/submit-send", lastBody)
		want(t, "replay", r, 200)
		r.JSON(t, &again)
		if again != lastRes {
			t.Errorf("replay = %+v, want %+v", again, lastRes)
		}
		if rb, sb := balances(); !rb.Equal(recvBal) || !sb.Equal(senderBal) {
			t.Fatalf("refused submissions moved coin: receiver %s sender %s", rb, sb)
		}
		// One nonce, two preparations: the second is a conflict.
		want(t, "send with nonce 3", admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/submit-send", sendBody(p, sign(t, key, p.TxHash))), 200)
		r = admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/submit-send", sendBody(twin, sign(t, key, twin.TxHash)))
		if r.Status != 409 || !strings.Contains(r.Error(), "nonce") {
			t.Errorf("reused nonce: %d %s, want 409", r.Status, r.Body)
		}
		recvBal, senderBal = balances()
		// Expired preparation: 409, nothing moves.
		late := prepare(4, "1")
		a.Clock.Advance(extparty.DefaultPreparedTTL + time.Second)
		r = admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/submit-send", sendBody(late, sign(t, key, late.TxHash)))
		if r.Status != 409 || !strings.Contains(r.Error(), "expired") {
			t.Errorf("expired: %d %s, want 409", r.Status, r.Body)
		}
		if rb, sb := balances(); !rb.Equal(recvBal) || !sb.Equal(senderBal) || !rb.Equal(coin.MustParse("35.3703703673")) {
			t.Fatalf("after expiry: receiver %s sender %s", rb, sb)
		}
		ledgertest.Conserved(t, a.L)
	})
}
