package api_test

// The contract test of the validator's scan proxy (scan-proxy.yaml): every
// operation runs through the full router on both engines, at the root and
// under /api/validator, with real data, every exchange validated against
// the spec; the contracts it serves are the ledger's own, byte for byte
// the ones the registry discloses.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	ledgerdevnet "github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/scan"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// scanProxyOperations are the operations of scan-proxy.yaml we serve.
var scanProxyOperations = []string{
	"scan-proxy.yaml#getDsoPartyId",
	"scan-proxy.yaml#lookupFeaturedAppRight",
	"scan-proxy.yaml#getOpenAndIssuingMiningRounds",
	"scan-proxy.yaml#getAmuletRules",
	"scan-proxy.yaml#lookupTransferPreapprovalByParty",
	"scan-proxy.yaml#lookupTransferCommandCounterByParty",
	"scan-proxy.yaml#lookupTransferCommandStatus",
	"scan-proxy.yaml#lookupAnsEntryByParty",
	"scan-proxy.yaml#lookupAnsEntryByName",
	"scan-proxy.yaml#listAnsEntries",
	"scan-proxy.yaml#getAnsRules",
}

// proxyContract is a Contract as the scan proxy shows it.
type proxyContract struct {
	TemplateID       string          `json:"template_id"`
	ContractID       string          `json:"contract_id"`
	Payload          json.RawMessage `json:"payload"`
	CreatedEventBlob string          `json:"created_event_blob"`
	CreatedAt        string          `json:"created_at"`
}

type proxyContractWithState struct {
	Contract proxyContract `json:"contract"`
	DomainID string        `json:"domain_id"`
}

// TestScanProxySpecCovered fails when scan-proxy.yaml has an operation we
// do not serve, so the list cannot go stale.
func TestScanProxySpecCovered(t *testing.T) {
	var ops []string
	for op := range declaredStatuses(t) {
		if strings.HasPrefix(op, "scan-proxy.yaml#") {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		t.Fatal("scan-proxy.yaml has no operations: is it among specFiles?")
	}
	for _, op := range ops {
		if !slices.Contains(scanProxyOperations, op) {
			t.Errorf("%s is not served", op)
		}
	}
}

func TestContractScanProxy(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			e := newContractEnv(t, engine)
			runScanProxyContract(t, e)
			e.checkOperations(t, scanProxyOperations, nil)
		})
	}
}

func runScanProxyContract(t *testing.T, e *contractEnv) {
	ctx := context.Background()
	const sp = "/v0/scan-proxy"
	const stranger = "stranger" // a valid token, no wallet: enough, as on the real validator
	bob, err := users.Of(e.l).Onboard(ctx, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	operator := string(e.l.Operator())

	// Authentication only: no token is 401, any user's token will do.
	for _, p := range []string{"/dso-party-id", "/amulet-rules", "/open-and-issuing-mining-rounds", "/registry/metadata/v1/info"} {
		if r := e.client("").DoOwn("GET", sp+p, nil); r.Status != 401 {
			t.Errorf("GET %s without a token = %d %s, want 401", sp+p, r.Status, r.Body)
		}
	}
	if r := e.client("").DoOwn("POST", "/api/validator"+sp+"/registry/transfer-instruction/v1/transfer-factory", map[string]any{}); r.Status != 401 {
		t.Errorf("the registry through the scan proxy without a token = %d %s, want 401", r.Status, r.Body)
	}

	// dso-party-id.
	if got := field(t, e.prefixed(stranger, "GET", sp+"/dso-party-id", nil, 200), "dso_party_id"); got != string(e.l.DSO()) {
		t.Errorf("dso_party_id = %s, want %s", got, e.l.DSO())
	}

	// featured-apps: the operator is featured; bob is not (an empty
	// answer, not a 404).
	var fa struct {
		FeaturedAppRight *proxyContract `json:"featured_app_right"`
	}
	e.prefixed(stranger, "GET", sp+"/featured-apps/"+operator, nil, 200).JSON(t, &fa)
	if fa.FeaturedAppRight == nil || fa.FeaturedAppRight.TemplateID != ledger.TemplateFeaturedAppRight ||
		payloadField(t, fa.FeaturedAppRight.Payload, "provider") != operator {
		t.Errorf("the operator's featured app right = %+v", fa.FeaturedAppRight)
	}
	if r := e.expect(stranger, "GET", sp+"/featured-apps/"+string(bob), nil, 200); strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("bob's featured app right = %s, want {}", r.Body)
	}
	e.expect(stranger, "GET", sp+"/featured-apps/not-a-party", nil, 400)

	// The registry's transfer factory discloses the rules and the usable
	// round: the scan proxy must serve the very same contracts.
	disclosed := factoryDisclosures(t, e, bob)

	// amulet-rules: the rules contract, traffic parameters included.
	var ar struct {
		AmuletRules proxyContractWithState `json:"amulet_rules"`
	}
	e.prefixed(stranger, "GET", sp+"/amulet-rules", nil, 200).JSON(t, &ar)
	rules := ar.AmuletRules.Contract
	if rules.ContractID != string(e.l.RulesContractID()) || rules.TemplateID != ledger.TemplateAmuletRules || ar.AmuletRules.DomainID != e.l.SynchronizerID() {
		t.Errorf("amulet rules = %+v", ar.AmuletRules)
	}
	// The payload has the shape of Splice's AmuletRules: a client reads
	// the traffic parameters and fees where it does on the real network.
	var rp struct {
		DSO            string `json:"dso"`
		ConfigSchedule struct {
			InitialValue struct {
				TransferConfig struct {
					HoldingFee struct {
						Rate string `json:"rate"`
					} `json:"holdingFee"`
					MaxNumInputs string `json:"maxNumInputs"`
				} `json:"transferConfig"`
				DecentralizedSynchronizer struct {
					ActiveSynchronizer string `json:"activeSynchronizer"`
					Fees               struct {
						BaseRateTrafficLimits struct {
							BurstAmount string `json:"burstAmount"`
							BurstWindow struct {
								Microseconds string `json:"microseconds"`
							} `json:"burstWindow"`
						} `json:"baseRateTrafficLimits"`
						ExtraTrafficPrice string `json:"extraTrafficPrice"`
						MinTopupAmount    string `json:"minTopupAmount"`
					} `json:"fees"`
				} `json:"decentralizedSynchronizer"`
				TickDuration struct {
					Microseconds string `json:"microseconds"`
				} `json:"tickDuration"`
				TransferPreapprovalFee string `json:"transferPreapprovalFee"`
			} `json:"initialValue"`
			FutureValues []any `json:"futureValues"`
		} `json:"configSchedule"`
	}
	if err := json.Unmarshal(rules.Payload, &rp); err != nil {
		t.Fatal(err)
	}
	want := e.l.Rules()
	cfg := rp.ConfigSchedule.InitialValue
	fees := cfg.DecentralizedSynchronizer.Fees
	for _, c := range []struct{ what, got, want string }{
		{"dso", rp.DSO, string(e.l.DSO())},
		{"holding fee", cfg.TransferConfig.HoldingFee.Rate, want.HoldingFeeUSD.String()},
		{"max inputs", cfg.TransferConfig.MaxNumInputs, fmt.Sprint(want.MaxNumInputs)},
		{"active synchronizer", cfg.DecentralizedSynchronizer.ActiveSynchronizer, e.l.SynchronizerID()},
		{"burst amount", fees.BaseRateTrafficLimits.BurstAmount, fmt.Sprint(want.BaseRateBurstAmountBytes)},
		{"burst window", fees.BaseRateTrafficLimits.BurstWindow.Microseconds, fmt.Sprint(want.BaseRateBurstWindow.Microseconds())},
		{"extra traffic price", fees.ExtraTrafficPrice, want.ExtraTrafficPriceUSDPerMB.String()},
		{"min top-up", fees.MinTopupAmount, fmt.Sprint(want.MinTopupAmountBytes)},
		{"tick", cfg.TickDuration.Microseconds, fmt.Sprint(want.TickDuration.Microseconds())},
		{"preapproval fee", cfg.TransferPreapprovalFee, want.TransferPreapprovalFeeUSDPerDay.String()},
	} {
		if c.got != c.want {
			t.Errorf("amulet rules %s = %q, want %q (payload %s)", c.what, c.got, c.want, rules.Payload)
		}
	}
	if rp.ConfigSchedule.FutureValues == nil {
		t.Errorf("amulet rules have no futureValues: %s", rules.Payload)
	}
	if !sameAsDisclosed(t, disclosed, rules) {
		t.Errorf("the registry did not disclose the rules %s", rules.ContractID)
	}

	// open-and-issuing-mining-rounds: the ledger's open rounds, before and
	// after time control advanced them.
	checkRounds := func(what string) {
		t.Helper()
		var rr struct {
			Open    []proxyContractWithState `json:"open_mining_rounds"`
			Issuing []proxyContractWithState `json:"issuing_mining_rounds"`
		}
		e.prefixed(stranger, "GET", sp+"/open-and-issuing-mining-rounds", nil, 200).JSON(t, &rr)
		open, err := e.l.Rounds().OpenRounds(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rr.Open) != len(open) || rr.Issuing == nil {
			t.Fatalf("%s: %d open rounds served, the ledger has %d; issuing %v", what, len(rr.Open), len(open), rr.Issuing)
		}
		used := 0
		for i, r := range open {
			c := rr.Open[i].Contract
			if c.ContractID != string(r.ContractID) || c.TemplateID != ledger.TemplateOpenMiningRound {
				t.Errorf("%s: open round %d = %s %s, want %s", what, i, c.TemplateID, c.ContractID, r.ContractID)
			}
			// Splice's OpenMiningRound: RelTimes as microseconds, the
			// round's transfer config in USD.
			var p struct {
				Round struct {
					Number string `json:"number"`
				} `json:"round"`
				TickDuration struct {
					Microseconds string `json:"microseconds"`
				} `json:"tickDuration"`
				TransferConfigUSD struct {
					HoldingFee struct {
						Rate string `json:"rate"`
					} `json:"holdingFee"`
				} `json:"transferConfigUsd"`
			}
			rules := e.l.Rules()
			if err := json.Unmarshal(c.Payload, &p); err != nil || p.Round.Number != fmt.Sprint(int64(r.Number)) ||
				p.TickDuration.Microseconds != fmt.Sprint(rules.TickDuration.Microseconds()) || p.TransferConfigUSD.HoldingFee.Rate != rules.HoldingFeeUSD.String() {
				t.Errorf("%s: round %d payload %s", what, r.Number, c.Payload)
			}
			if sameAsDisclosed(t, disclosed, c) {
				used++
			}
		}
		if used != 1 {
			t.Errorf("%s: the registry disclosed %d of the open rounds served, want 1", what, used)
		}
	}
	checkRounds("at the start")
	if _, err := ledgerdevnet.New(e.l).AdvanceRounds(ctx, 3); err != nil {
		t.Fatal(err)
	}
	// Time control opens each round one tick after the last; once they
	// have opened, the registry uses the newest.
	e.clock.Advance(3 * e.l.Rules().TickDuration)
	disclosed = factoryDisclosures(t, e, bob)
	checkRounds("after three rounds advanced")

	// transfer-preapprovals/by-party: bob's, once he has one.
	e.expect(stranger, "GET", sp+"/transfer-preapprovals/by-party/"+string(bob), nil, 404)
	preCID := field(t, e.expect("bob", "POST", "/v0/wallet/transfer-preapproval", nil, 200), "transfer_preapproval_contract_id")
	var pre struct {
		TransferPreapproval proxyContractWithState `json:"transfer_preapproval"`
	}
	e.prefixed(stranger, "GET", sp+"/transfer-preapprovals/by-party/"+string(bob), nil, 200).JSON(t, &pre)
	if c := pre.TransferPreapproval.Contract; c.ContractID != preCID || c.TemplateID != ledger.TemplateTransferPreapproval ||
		payloadField(t, c.Payload, "receiver") != string(bob) || payloadField(t, c.Payload, "provider") != operator {
		t.Errorf("bob's preapproval = %+v", pre.TransferPreapproval)
	}
	e.expect(stranger, "GET", sp+"/transfer-preapprovals/by-party/bad", nil, 400)

	// An external party sends to bob through his preapproval: its counter
	// and its TransferCommand, by nonce.
	admin := e.client("admin")
	sender, key := onboardExternalSpec(t, admin, "ext-send")
	e.expect(stranger, "GET", sp+"/transfer-command-counter/"+sender, nil, 404)
	e.expect(stranger, "GET", sp+"/transfer-command/status?sender="+sender+"&nonce=0", nil, 404)
	if r := admin.DoOwn("POST", "/v0/admin/devnet/tap", map[string]any{"party_id": sender, "amount": "100"}); r.Status != 200 {
		t.Fatalf("tap: %d %s", r.Status, r.Body)
	}
	// send sends amount to bob with nonce and returns the prefix of its
	// TransferCommand's id.
	send := func(nonce int, amount string) string {
		t.Helper()
		r := admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/prepare-send", fmt.Sprintf(
			`{"sender_party_id":%q,"receiver_party_id":%q,"amount":%s,"expires_at":%q,"nonce":%d,"description":"rent"}`,
			sender, bob, amount, e.clock.Now().Add(time.Hour).Format(time.RFC3339), nonce))
		if r.Status != 200 {
			t.Fatalf("prepare-send: %d %s", r.Status, r.Body)
		}
		var p preparedSend
		r.JSON(t, &p)
		if r := admin.Do("POST", "/v0/admin/external-party/transfer-preapproval/submit-send",
			submissionBody(sender, key, prepared{Transaction: p.Transaction}, sign(t, key, p.TxHash))); r.Status != 200 {
			t.Fatalf("submit-send: %d %s", r.Status, r.Body)
		}
		return p.Prefix
	}
	status := sp + "/transfer-command/status?sender=" + sender + "&nonce="
	// sent checks that nonce has one TransferCommand, sent, with the id
	// prefix prepare-send gave (how a client finds its command).
	sent := func(nonce int, prefix, amount string) {
		t.Helper()
		var st struct {
			ByCID map[string]struct {
				Contract proxyContract `json:"contract"`
				Status   struct {
					Status string `json:"status"`
				} `json:"status"`
			} `json:"transfer_commands_by_contract_id"`
		}
		e.prefixed(stranger, "GET", status+fmt.Sprint(nonce), nil, 200).JSON(t, &st)
		if len(st.ByCID) != 1 {
			t.Fatalf("transfer commands of nonce %d: %+v", nonce, st)
		}
		for cid, c := range st.ByCID {
			if !strings.HasPrefix(cid, prefix) || len(prefix) < 66 {
				t.Errorf("transfer command %s does not start with the prefix %q prepare-send gave", cid, prefix)
			}
			if c.Contract.ContractID != cid || c.Contract.TemplateID != ledger.TemplateTransferCommand || c.Status.Status != "sent" ||
				payloadField(t, c.Contract.Payload, "sender") != sender || payloadField(t, c.Contract.Payload, "receiver") != string(bob) ||
				payloadField(t, c.Contract.Payload, "nonce") != fmt.Sprint(nonce) || payloadField(t, c.Contract.Payload, "amount") != amount ||
				payloadField(t, c.Contract.Payload, "delegate") != operator || payloadField(t, c.Contract.Payload, "description") != "rent" {
				t.Errorf("transfer command %s = %+v", cid, c)
			}
		}
	}
	first := send(0, "7.5")
	var cnt struct {
		TransferCommandCounter proxyContractWithState `json:"transfer_command_counter"`
	}
	e.prefixed(stranger, "GET", sp+"/transfer-command-counter/"+sender, nil, 200).JSON(t, &cnt)
	if c := cnt.TransferCommandCounter.Contract; payloadField(t, c.Payload, "sender") != sender || payloadField(t, c.Payload, "nextNonce") != "1" {
		t.Errorf("counter = %+v", cnt.TransferCommandCounter)
	}
	sent(0, first, "7.5000000000")
	e.expect(stranger, "GET", status+"1", nil, 404)
	sent(1, send(1, "2"), "2.0000000000")
	sent(0, first, "7.5000000000")
	e.expect(stranger, "GET", status+"2", nil, 404)
	e.expect(stranger, "GET", sp+"/transfer-command/status?sender="+sender, nil, 400)
	e.expect(stranger, "GET", status+"x", nil, 400)
	e.expect(stranger, "GET", status+"-1", nil, 400)

	// The name service: bob has no name yet; the DSO's own name has no
	// contract and no expiry, as scan answers it.
	e.expect(stranger, "GET", sp+"/ans-entries/by-party/"+string(bob), nil, 404)
	e.expect(stranger, "GET", sp+"/ans-entries/by-name/bob.unverified.cns", nil, 404)
	var dsoEntry struct {
		Entry map[string]any `json:"entry"`
	}
	e.prefixed(stranger, "GET", sp+"/ans-entries/by-name/dso.cns", nil, 200).JSON(t, &dsoEntry)
	if dsoEntry.Entry["user"] != string(e.l.DSO()) || dsoEntry.Entry["contract_id"] != nil || dsoEntry.Entry["expires_at"] != nil {
		t.Errorf("the DSO's entry = %v", dsoEntry.Entry)
	}
	e.prefixed(stranger, "GET", sp+"/ans-entries/by-party/"+string(e.l.DSO()), nil, 200)
	if r := e.prefixed(stranger, "GET", sp+"/ans-entries?page_size=10&name_prefix=bob", nil, 200); strings.TrimSpace(string(r.Body)) != `{"entries":[]}` {
		t.Errorf("entries = %s", r.Body)
	}
	e.expect(stranger, "GET", sp+"/ans-entries", nil, 400)
	e.expect(stranger, "GET", sp+"/ans-entries?page_size=0", nil, 400)
	var ansRules struct {
		AnsRulesUpdate struct {
			Contract *proxyContract `json:"contract"`
			DomainID string         `json:"domain_id"`
		} `json:"ans_rules_update"`
	}
	e.prefixed(stranger, "POST", sp+"/ans-rules", map[string]any{}, 200).JSON(t, &ansRules)
	if c := ansRules.AnsRulesUpdate.Contract; c == nil || c.TemplateID != ledger.TemplateAnsRules || payloadField(t, c.Payload, "dso") != string(e.l.DSO()) {
		t.Fatalf("ans rules = %+v", ansRules.AnsRulesUpdate)
	}
	// A current cached copy is not sent again.
	cached := map[string]any{"cached_ans_rules_contract_id": ansRules.AnsRulesUpdate.Contract.ContractID}
	if r := e.expect(stranger, "POST", sp+"/ans-rules", cached, 200); strings.Contains(string(r.Body), `"contract"`) {
		t.Errorf("cached ans rules = %s, want no contract", r.Body)
	}
	e.expect(stranger, "GET", sp+"/ans-entries/by-party/not-a-party", nil, 400)
	e.expect(stranger, "GET", sp+"/ans-entries/by-name/"+strings.Repeat("n", 256), nil, 400)

	// A command is looked up for 24 hours.
	e.clock.Advance(scan.TransferCommandWindow + time.Minute)
	e.expect(stranger, "GET", status+"0", nil, 404)
}

// payloadField is a string field of a contract payload.
func payloadField(t *testing.T, payload json.RawMessage, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatalf("payload %s: %v", payload, err)
	}
	s, _ := m[name].(string)
	return s
}

type disclosedContract struct {
	ContractID       string          `json:"contractId"`
	CreatedEventBlob string          `json:"createdEventBlob"`
	DebugPayload     json.RawMessage `json:"debugPayload"`
}

// factoryDisclosures asks the registry's transfer factory for a transfer
// to receiver and returns the contracts it discloses, by id.
func factoryDisclosures(t *testing.T, e *contractEnv, receiver coin.PartyID) map[string]disclosedContract {
	t.Helper()
	dso := string(e.l.DSO())
	args := map[string]any{
		"expectedAdmin": dso,
		"transfer": map[string]any{
			"sender": e.l.Operator(), "receiver": receiver, "amount": "1.0000000000",
			"instrumentId":     map[string]any{"admin": dso, "id": ledger.InstrumentID},
			"requestedAt":      ledger.FormatTime(e.clock.Now()),
			"executeBefore":    ledger.FormatTime(e.clock.Now().Add(time.Hour)),
			"inputHoldingCids": []string{}, "meta": map[string]any{"values": map[string]string{}},
		},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
	}
	var f struct {
		ChoiceContext struct {
			Disclosed []disclosedContract `json:"disclosedContracts"`
		} `json:"choiceContext"`
	}
	e.client("").Do("POST", "/registry/transfer-instruction/v1/transfer-factory", map[string]any{"choiceArguments": args}).JSON(t, &f)
	out := map[string]disclosedContract{}
	for _, d := range f.ChoiceContext.Disclosed {
		out[d.ContractID] = d
	}
	return out
}

// sameAsDisclosed reports whether the registry disclosed c too, and then
// fails unless c has the payload and created-event blob the registry gave.
func sameAsDisclosed(t *testing.T, disclosed map[string]disclosedContract, c proxyContract) bool {
	t.Helper()
	d, ok := disclosed[c.ContractID]
	if !ok {
		return false
	}
	var a, b any
	if json.Unmarshal(d.DebugPayload, &a) != nil || json.Unmarshal(c.Payload, &b) != nil || fmt.Sprint(a) != fmt.Sprint(b) || d.CreatedEventBlob != c.CreatedEventBlob {
		t.Errorf("%s %s: the scan proxy serves %s, the registry discloses %s", c.TemplateID, c.ContractID, c.Payload, d.DebugPayload)
	}
	return true
}
