package ledgerapi_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/preparedtx"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// extParty is an external party: its key stays with the test (the
// client), and a ledger user acts as it.
type extParty struct {
	user  string
	party coin.PartyID
	key   ed25519.PrivateKey
}

// external onboards an external party hinted user with amount coin, as
// the validator's external-party endpoints do (its key signs the
// topology), and a ledger user acting as it.
func (e *env) external(user, amount string) extParty {
	e.t.Helper()
	pub, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	ctx := context.Background()
	party, txs, err := e.w.External.GenerateExternalTopology(user, hex.EncodeToString(pub))
	if err != nil {
		e.t.Fatal(err)
	}
	signed := make([]external.SignedTopologyTx, len(txs))
	for i, tx := range txs {
		sig, err := external.SignHash(key, tx.Hash)
		if err != nil {
			e.t.Fatal(err)
		}
		signed[i] = external.SignedTopologyTx{Tx: tx.Tx, SignedHash: sig}
	}
	if _, err := e.w.External.SubmitExternalTopology(ctx, hex.EncodeToString(pub), signed); err != nil {
		e.t.Fatal(err)
	}
	if _, err := users.Of(e.l).Onboard(ctx, user, party); err != nil {
		e.t.Fatal(err)
	}
	if amount != "" {
		ledgertest.Mint(e.t, e.l, party, amount)
	}
	return extParty{user: user, party: party, key: key}
}

// prepared is a prepare's answer, checked the way a client that does not
// trust the participant checks it: the bytes decode as a
// PreparedTransaction and hash to the hash returned.
type prepared struct {
	raw  string
	hash []byte
	tx   *preparedtx.Prepared
}

// prepare asks user to prepare cmd acting as party; it returns the
// response for the caller to judge.
func (e *env) prepare(user string, party coin.PartyID, commandID string, cmd map[string]any, disclose []map[string]any) *client.PostV2InteractiveSubmissionPrepareResponse {
	e.t.Helper()
	if disclose == nil {
		disclose = []map[string]any{}
	}
	resp, err := e.as(user).PostV2InteractiveSubmissionPrepareWithBodyWithResponse(context.Background(), jsonType, body(e.t, map[string]any{
		"userId": user, "commandId": commandID, "commands": []any{cmd}, "actAs": []coin.PartyID{party}, "readAs": []string{},
		"disclosedContracts": disclose, "synchronizerId": e.l.SynchronizerID(), "packageIdSelectionPreference": []string{}, "verboseHashing": false,
	}))
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

func (e *env) mustPrepare(x extParty, commandID string, cmd map[string]any, disclose []map[string]any) prepared {
	e.t.Helper()
	resp := e.prepare(x.user, x.party, commandID, cmd, disclose)
	if resp.JSON200 == nil || resp.JSON200.PreparedTransaction == nil {
		e.t.Fatalf("prepare %s: %d %s", commandID, resp.StatusCode(), resp.Body)
	}
	if resp.JSON200.HashingSchemeVersion != "HASHING_SCHEME_VERSION_V2" {
		e.t.Errorf("hashing scheme %s", resp.JSON200.HashingSchemeVersion)
	}
	raw, err := base64.StdEncoding.DecodeString(*resp.JSON200.PreparedTransaction)
	if err != nil {
		e.t.Fatal(err)
	}
	tx, err := preparedtx.Unmarshal(raw)
	if err != nil {
		e.t.Fatalf("the prepared transaction does not decode: %v", err)
	}
	hash, err := preparedtx.Hash(tx)
	if err != nil {
		e.t.Fatal(err)
	}
	if got := base64.StdEncoding.EncodeToString(hash); got != resp.JSON200.PreparedTransactionHash {
		e.t.Fatalf("recomputed hash %s, the participant says %s", got, resp.JSON200.PreparedTransactionHash)
	}
	if len(tx.Metadata.ActAs) != 1 || tx.Metadata.ActAs[0] != string(x.party) || tx.Metadata.CommandID != commandID ||
		tx.Metadata.SynchronizerID != e.l.SynchronizerID() || len(tx.Transaction.Nodes) != 1 {
		e.t.Errorf("prepared metadata %+v", tx.Metadata)
	}
	return prepared{raw: *resp.JSON200.PreparedTransaction, hash: hash, tx: tx}
}

// signatures are partySignatures of party by key over hash.
func signatures(party coin.PartyID, key ed25519.PrivateKey, hash []byte) map[string]any {
	sig := ed25519.Sign(key, hash)
	return map[string]any{"signatures": []any{map[string]any{"party": party, "signatures": []any{map[string]any{
		"format": "SIGNATURE_FORMAT_CONCAT", "signature": base64.StdEncoding.EncodeToString(sig),
		"signedBy": coin.Fingerprint(key.Public().(ed25519.PublicKey)), "signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519",
	}}}}}
}

func (e *env) execute(user, raw string, sigs map[string]any) *client.PostV2InteractiveSubmissionExecuteResponse {
	e.t.Helper()
	resp, err := e.as(user).PostV2InteractiveSubmissionExecuteWithBodyWithResponse(context.Background(), jsonType, body(e.t, map[string]any{
		"preparedTransaction": raw, "partySignatures": sigs, "deduplicationPeriod": map[string]any{"Empty": map[string]any{}},
		"submissionId": "s-" + user, "userId": user, "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
	}))
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

// run prepares, signs and executes cmd as x.
func (e *env) run(x extParty, commandID string, cmd map[string]any, disclose []map[string]any) prepared {
	e.t.Helper()
	p := e.mustPrepare(x, commandID, cmd, disclose)
	before := e.ledgerEnd()
	if resp := e.execute(x.user, p.raw, signatures(x.party, x.key, p.hash)); resp.StatusCode() != http.StatusOK || string(bytes.TrimSpace(resp.Body)) != "{}" {
		e.t.Fatalf("execute %s: %d %s", commandID, resp.StatusCode(), resp.Body)
	}
	// Execute answers nothing of the command: its completion says it ran.
	e.wantCompleted(x.user, []coin.PartyID{x.party}, commandID, before, "", 0)
	return p
}

// transferCommand is TransferFactory_Transfer of amount from sender to
// receiver with the registry's context, and what to disclose.
func (e *env) transferCommand(sender, receiver coin.PartyID, amount string, inputs []string) (map[string]any, []map[string]any) {
	e.t.Helper()
	dso := e.l.DSO()
	now := e.clock.Now()
	transfer := map[string]any{
		"sender": sender, "receiver": receiver, "amount": amount, "instrumentId": map[string]any{"admin": dso, "id": "Amulet"},
		"requestedAt": now.Add(-time.Second).Format(time.RFC3339Nano), "executeBefore": now.Add(time.Hour).Format(time.RFC3339Nano),
		"inputHoldingCids": inputs, "meta": map[string]any{"values": map[string]string{reasonMetaKey: "lunch"}},
	}
	var factory struct {
		FactoryID     string        `json:"factoryId"`
		ChoiceContext choiceContext `json:"choiceContext"`
	}
	e.registry("/transfer-factory", map[string]any{"choiceArguments": map[string]any{"expectedAdmin": dso, "transfer": transfer, "extraArgs": emptyExtra()}}, &factory)
	arg := map[string]any{"expectedAdmin": dso, "transfer": transfer,
		"extraArgs": map[string]any{"context": factory.ChoiceContext.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}}
	return exercise(factoryIface, factory.FactoryID, "TransferFactory_Transfer", arg), disclosed(factory.ChoiceContext)
}

// acceptCommand is TransferInstruction_Accept of the one instruction
// party sees as receiver, with the registry's context.
func (e *env) acceptCommand(user string, party coin.PartyID) (map[string]any, []map[string]any) {
	e.t.Helper()
	var ins []createdEvent
	for _, c := range e.acs(user, filter(party, interfaceFilter(instructionIface, true, false)), e.ledgerEnd()) {
		var v struct {
			Transfer struct {
				Receiver string `json:"receiver"`
			} `json:"transfer"`
		}
		json.Unmarshal(c.InterfaceViews[0].ViewValue, &v)
		if v.Transfer.Receiver == string(party) {
			ins = append(ins, c)
		}
	}
	if len(ins) != 1 {
		e.t.Fatalf("%s sees %d instructions to it, want 1", user, len(ins))
	}
	var accept choiceContext
	e.registry("/"+ins[0].ContractID+"/choice-contexts/accept", map[string]any{"meta": map[string]any{}}, &accept)
	arg := map[string]any{"extraArgs": map[string]any{"context": accept.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}}
	return exercise(instructionIface, ins[0].ContractID, "TransferInstruction_Accept", arg), disclosed(accept)
}

// holds is the sum of party's holdings as its Holding views say.
func (e *env) holds(user string, party coin.PartyID) coin.Amount {
	e.t.Helper()
	var total coin.Amount
	for _, h := range e.acs(user, filter(party, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()) {
		var v holdingView
		json.Unmarshal(h.InterfaceViews[0].ViewValue, &v)
		total = total.Add(coin.MustParse(v.Amount))
	}
	return total
}

// TestInteractiveTransferFlow is flow (a) of issue 25 for an external
// party, through prepare/execute: alice-ext reads her holdings through
// the Holding interface, prepares TransferFactory_Transfer to bob with
// the registry's context, checks the hash herself, signs it and executes;
// bob (a local party) accepts; an instruction bob sends her she accepts
// through prepare/execute too. Executing the same command again answers
// {} and completes as DUPLICATE_COMMAND.
func TestInteractiveTransferFlow(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.external("alice-ext", "100")
		bob := e.user("bob", "")
		var inputs []string
		for _, h := range e.acs(alice.user, filter(alice.party, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()) {
			inputs = append(inputs, h.ContractID)
		}
		if len(inputs) != 1 {
			t.Fatalf("alice-ext's holdings: %v", inputs)
		}
		cmd, disclose := e.transferCommand(alice.party, bob, "25.0000000000", inputs)
		before := e.ledgerEnd()
		p := e.mustPrepare(alice, "x1", cmd, disclose)
		if e.ledgerEnd() != before {
			t.Errorf("prepare moved the ledger end from %d to %d", before, e.ledgerEnd())
		}
		// The root node is the exercise, by interface, with the argument
		// as an enriched record, and the factory is an input contract.
		x := p.tx.Transaction.Nodes[0].Exercise
		if x == nil || x.ChoiceID != "TransferFactory_Transfer" || x.InterfaceID == nil || x.InterfaceID.EntityName != "TransferFactory" ||
			x.ChosenValue.Kind != preparedtx.KindRecord || x.ChosenValue.ID == nil || x.ChosenValue.ID.EntityName != "TransferFactory_Transfer" ||
			x.Consuming || len(x.ActingParties) != 1 || x.ActingParties[0] != string(alice.party) {
			t.Fatalf("root node %+v", p.tx.Transaction.Nodes[0])
		}
		if len(p.tx.Metadata.InputContracts) != 1 || p.tx.Metadata.InputContracts[0].Create.ContractID != x.ContractID {
			t.Errorf("input contracts %+v", p.tx.Metadata.InputContracts)
		}
		before = e.ledgerEnd()
		if resp := e.execute(alice.user, p.raw, signatures(alice.party, alice.key, p.hash)); resp.StatusCode() != http.StatusOK || resp.JSON200 == nil {
			t.Fatalf("execute: %d %s", resp.StatusCode(), resp.Body)
		}
		e.wantCompleted(alice.user, []coin.PartyID{alice.party}, p.tx.Metadata.CommandID, before, "", 0)
		// Executing it again is the same change: a duplicate, reported in
		// the completions as Canton's asynchronous execute does.
		e.wantDuplicateExecute(alice, p)

		accept, acceptCtx := e.acceptCommand("bob", bob)
		e.mustCommand("bob", "a1", bob, accept, acceptCtx)
		if got := e.holds(alice.user, alice.party); !got.Equal(coin.MustParse("75")) {
			t.Errorf("alice-ext holds %s, want 75", got)
		}
		if got := e.holds("bob", bob); !got.Equal(coin.MustParse("25")) {
			t.Errorf("bob holds %s, want 25", got)
		}

		// Bob sends her 10; she accepts through prepare/execute.
		back, backCtx := e.transferCommand(bob, alice.party, "10.0", []string{})
		e.mustCommand("bob", "b1", bob, back, backCtx)
		accept, acceptCtx = e.acceptCommand(alice.user, alice.party)
		e.run(alice, "x2", accept, acceptCtx)
		if got := e.holds(alice.user, alice.party); !got.Equal(coin.MustParse("85")) {
			t.Errorf("alice-ext holds %s after accepting, want 85", got)
		}
	})
}

// TestInteractiveDvP is flow (b) for an external party: alice-ext
// proposes an OTC trade with bob at a venue by prepare/execute of a
// CreateCommand; bob approves and the venue initiates; alice-ext allocates her leg
// through AllocationFactory_Allocate by prepare/execute, bob through
// submit-and-wait, and the venue settles, executing both.
func TestInteractiveDvP(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.external("alice-ext", "100")
		bob, venue := e.user("bob", "100"), e.user("venue", "")
		dso := e.l.DSO()
		cc := ledger.InstrumentRef{Admin: dso, ID: ledger.InstrumentID}
		legs := map[string]allocationdata.TransferLeg{
			"leg0": {Sender: alice.party, Receiver: bob, Amount: coin.MustParse("30"), InstrumentID: cc},
			"leg1": {Sender: bob, Receiver: alice.party, Amount: coin.MustParse("12.5"), InstrumentID: cc},
		}
		// She proposes by prepare/execute of a CreateCommand; bob approves
		// and the venue initiates the settlement.
		p := e.run(alice, "propose", map[string]any{"CreateCommand": map[string]any{"templateId": proposalTemplate,
			"createArguments": map[string]any{"venue": venue, "tradeCid": nil, "transferLegs": legs, "approvers": []coin.PartyID{alice.party}}}}, nil)
		if c := p.tx.Transaction.Nodes[0].Create; c == nil || c.TemplateID.EntityName != "OTCTradeProposal" || c.Argument.Kind != preparedtx.KindRecord {
			t.Fatalf("the proposal's node %+v", p.tx.Transaction.Nodes[0])
		}
		prop := only(t, "bob's proposals", e.acs("bob", filter(bob, templateFilter(proposalTemplate, false)), e.ledgerEnd()))
		e.mustCommand("bob", "accept", bob, exercise(proposalTemplate, prop.ContractID, "OTCTradeProposal_Accept", map[string]any{"approver": bob}), nil)
		prop = only(t, "venue's proposals", e.acs("venue", filter(venue, templateFilter(proposalTemplate, false)), e.ledgerEnd()))
		now := e.clock.Now()
		e.mustCommand("venue", "initiate", venue, exercise(proposalTemplate, prop.ContractID, "OTCTradeProposal_InitiateSettlement", map[string]any{
			"prepareUntil": now.Add(time.Hour).Format(time.RFC3339Nano), "settleBefore": now.Add(2 * time.Hour).Format(time.RFC3339Nano)}), nil)
		for _, tr := range []struct {
			user  string
			party coin.PartyID
			leg   string
		}{{alice.user, alice.party, "leg0"}, {"bob", bob, "leg1"}} {
			req := only(t, tr.user+"'s allocation requests", e.acs(tr.user, filter(tr.party, interfaceFilter(allocRequestIface, true, false)), e.ledgerEnd()))
			var view struct {
				Settlement   json.RawMessage            `json:"settlement"`
				TransferLegs map[string]json.RawMessage `json:"transferLegs"`
			}
			if err := json.Unmarshal(req.InterfaceViews[0].ViewValue, &view); err != nil {
				t.Fatal(err)
			}
			arg := map[string]any{"expectedAdmin": dso, "allocation": map[string]any{"settlement": view.Settlement, "transferLegId": tr.leg, "transferLeg": view.TransferLegs[tr.leg]},
				"requestedAt": now.Format(time.RFC3339Nano), "inputHoldingCids": []string{}, "extraArgs": emptyExtra()}
			var factory struct {
				FactoryID     string        `json:"factoryId"`
				ChoiceContext choiceContext `json:"choiceContext"`
			}
			e.registryAt("/registry/allocation-instruction/v1/allocation-factory", map[string]any{"choiceArguments": arg}, &factory)
			arg["extraArgs"] = map[string]any{"context": factory.ChoiceContext.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}
			cmd := exercise(allocFactoryIface, factory.FactoryID, "AllocationFactory_Allocate", arg)
			if tr.user == alice.user {
				e.run(alice, "allocate", cmd, disclosed(factory.ChoiceContext))
			} else {
				e.mustCommand(tr.user, "allocate", tr.party, cmd, disclosed(factory.ChoiceContext))
			}
		}
		wantBalance(t, e, alice.party, "70.0000000000", "30.0000000000")

		trade := only(t, "venue's trades", e.acs("venue", filter(venue, templateFilter(tradeTemplate, false)), e.ledgerEnd()))
		withContext := map[string]any{}
		var disclose []map[string]any
		for _, a := range e.acs("venue", filter(venue, interfaceFilter(allocationIface, true, false)), e.ledgerEnd()) {
			var view struct {
				Allocation struct {
					TransferLegID string `json:"transferLegId"`
				} `json:"allocation"`
			}
			json.Unmarshal(a.InterfaceViews[0].ViewValue, &view)
			var ctxt choiceContext
			e.registryAt("/registry/allocations/v1/"+a.ContractID+"/choice-contexts/execute-transfer", map[string]any{"meta": map[string]any{}}, &ctxt)
			withContext[view.Allocation.TransferLegID] = map[string]any{"_1": a.ContractID,
				"_2": map[string]any{"context": ctxt.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}}
			disclose = append(disclose, disclosed(ctxt)...)
		}
		if len(withContext) != 2 {
			t.Fatalf("the venue sees allocations for %d legs, want 2", len(withContext))
		}
		e.mustCommand("venue", "settle", venue, exercise(tradeTemplate, trade.ContractID, "OTCTrade_Settle", map[string]any{"allocationsWithContext": withContext}), disclose)
		wantBalance(t, e, alice.party, "82.5000000000", "0.0000000000")
		wantBalance(t, e, bob, "117.5000000000", "0.0000000000")
	})
}

// field returns a pointer to the value at the record path of v.
func field(t *testing.T, v *preparedtx.Value, path ...string) *preparedtx.Value {
	t.Helper()
	for _, label := range path {
		var next *preparedtx.Value
		for i := range v.Fields {
			if v.Fields[i].Label == label {
				next = &v.Fields[i].Value
			}
		}
		if next == nil {
			t.Fatalf("no field %s in %+v", label, v)
		}
		v = next
	}
	return v
}

// TestInteractiveRefusals: a tampered transaction, one re-signed after
// tampering (not what this node prepared), a wrong key, a wrong signedBy,
// a missing signature, an unsupported format, a user without the right to
// act as the party, bytes that are no PreparedTransaction, an expired
// preparation and a submit-and-wait acting as the external party (which
// bypasses her signature) each get Canton's error and change nothing; preparing for a
// local party, without the right to read as the party or naming a
// contract neither visible to it nor disclosed is refused. The
// untouched transaction then executes.
func TestInteractiveRefusals(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.external("alice-ext", "100")
		bob := e.user("bob", "10")
		cmd, disclose := e.transferCommand(alice.party, bob, "25.0", []string{})
		p := e.mustPrepare(alice, "x1", cmd, disclose)
		start := e.ledgerEnd()
		good := signatures(alice.party, alice.key, p.hash)

		tampered := func(change func(*preparedtx.Prepared)) (string, []byte) {
			t.Helper()
			q, err := preparedtx.Unmarshal(mustB64(t, p.raw))
			if err != nil {
				t.Fatal(err)
			}
			change(q)
			h, err := preparedtx.Hash(q)
			if err != nil {
				t.Fatal(err)
			}
			return base64.StdEncoding.EncodeToString(preparedtx.Marshal(q)), h
		}
		more, moreHash := tampered(func(q *preparedtx.Prepared) {
			field(t, &q.Transaction.Nodes[0].Exercise.ChosenValue, "transfer", "amount").Str = "90.0"
		})
		// The transaction id seals the rest: a longer validity or another
		// id, re-signed by the party, is no longer what this node prepared.
		longer, longerHash := tampered(func(q *preparedtx.Prepared) {
			v := *q.Metadata.MaxLedgerEffectiveTime + uint64(time.Hour.Microseconds())
			q.Metadata.MaxLedgerEffectiveTime = &v
		})
		renamed, renamedHash := tampered(func(q *preparedtx.Prepared) { q.Metadata.TransactionUUID = uuid(t) })
		_, otherKey, _ := ed25519.GenerateKey(nil)
		sig := func(mut func(s map[string]any)) map[string]any {
			s := signatures(alice.party, alice.key, p.hash)
			mut(s["signatures"].([]any)[0].(map[string]any)["signatures"].([]any)[0].(map[string]any))
			return s
		}
		for _, c := range []struct {
			name, user, raw string
			sigs            map[string]any
			status          int
			code            string
		}{
			{"a tampered amount", alice.user, more, good, http.StatusBadRequest, "INVALID_EXTERNAL_SIGNATURE"},
			{"a tampered amount, re-signed", alice.user, more, signatures(alice.party, alice.key, moreHash), http.StatusBadRequest, "INVALID_EXTERNAL_TRANSACTION"},
			{"a later maximum ledger time, re-signed", alice.user, longer, signatures(alice.party, alice.key, longerHash), http.StatusBadRequest, "INVALID_EXTERNAL_TRANSACTION"},
			{"another transaction id, re-signed", alice.user, renamed, signatures(alice.party, alice.key, renamedHash), http.StatusBadRequest, "INVALID_EXTERNAL_TRANSACTION"},
			{"another key", alice.user, p.raw, signatures(alice.party, otherKey, p.hash), http.StatusBadRequest, "INVALID_EXTERNAL_SIGNATURE"},
			{"another key's fingerprint", alice.user, p.raw, sig(func(s map[string]any) { s["signedBy"] = coin.Fingerprint(otherKey.Public().(ed25519.PublicKey)) }),
				http.StatusBadRequest, "INVALID_EXTERNAL_SIGNATURE"},
			{"no signature", alice.user, p.raw, map[string]any{"signatures": []any{}}, http.StatusBadRequest, "INVALID_EXTERNAL_SIGNATURE"},
			{"a DER signature", alice.user, p.raw, sig(func(s map[string]any) { s["format"] = "SIGNATURE_FORMAT_DER" }), http.StatusBadRequest, "INVALID_EXTERNAL_SIGNATURE"},
			{"bob executes, unsigned", "bob", p.raw, map[string]any{"signatures": []any{}}, http.StatusForbidden, "PERMISSION_DENIED"},
		} {
			resp := e.execute(c.user, c.raw, c.sigs)
			wantError(t, c.name, c.status, resp.HTTPResponse, resp.JSONDefault, c.code)
		}
		if resp := e.execute(alice.user, base64.StdEncoding.EncodeToString([]byte("not a prepared transaction")), good); resp.StatusCode() != http.StatusBadRequest ||
			resp.HTTPResponse.Header.Get("Content-Type") == jsonType {
			t.Errorf("bytes that are no PreparedTransaction: %d %s", resp.StatusCode(), resp.Body)
		}
		// Submitting for her without her signature is refused.
		if code, b := e.command(alice.user, "u1", alice.party, cmd, disclose); code != http.StatusForbidden || !bytes.Contains(b, []byte("SUBMITTER_CANNOT_ACT_VIA_PARTICIPANT")) {
			t.Errorf("submit-and-wait acting as alice-ext: %d %s", code, b)
		}
		local := e.prepare("bob", bob, "l1", cmd, disclose)
		wantError(t, "preparing for a local party", http.StatusBadRequest, local.HTTPResponse, local.JSONDefault, "INVALID_ARGUMENT")
		// The factory is the registry's: without its disclosure she cannot
		// name it (and read its payload).
		hidden := e.prepare(alice.user, alice.party, "h1", cmd, nil)
		wantError(t, "an undisclosed factory", http.StatusNotFound, hidden.HTTPResponse, hidden.JSONDefault, "CONTRACT_NOT_FOUND")
		other := e.prepare("bob", alice.party, "l2", cmd, disclose)
		wantError(t, "bob prepares for alice-ext", http.StatusForbidden, other.HTTPResponse, other.JSONDefault, "PERMISSION_DENIED")
		for v, status := range map[string]int{"HASHING_SCHEME_VERSION_UNSPECIFIED": http.StatusBadRequest, "V2": http.StatusBadRequest} {
			resp, err := e.as(alice.user).PostV2InteractiveSubmissionExecuteWithBodyWithResponse(context.Background(), jsonType, body(t, map[string]any{
				"preparedTransaction": p.raw, "partySignatures": good, "deduplicationPeriod": map[string]any{"Empty": map[string]any{}},
				"submissionId": "s", "userId": alice.user, "hashingSchemeVersion": v,
			}))
			if err != nil || resp.StatusCode() != status {
				t.Errorf("hashing scheme %s: %v %d %s", v, err, resp.StatusCode(), resp.Body)
			}
		}
		verbose, err := e.as(alice.user).PostV2InteractiveSubmissionPrepareWithBodyWithResponse(context.Background(), jsonType, body(t, map[string]any{
			"userId": alice.user, "commandId": "v1", "commands": []any{cmd}, "actAs": []coin.PartyID{alice.party},
			"disclosedContracts": disclose, "synchronizerId": e.l.SynchronizerID(), "verboseHashing": true,
		}))
		if err != nil || verbose.JSON200 == nil || verbose.JSON200.HashingDetails == nil || !bytes.Contains([]byte(*verbose.JSON200.HashingDetails), []byte("V2")) {
			t.Errorf("verbose hashing: %v %s", err, verbose.Body)
		}
		if end := e.ledgerEnd(); end != start {
			t.Fatalf("the refusals moved the ledger end from %d to %d", start, end)
		}
		wantBalance(t, e, bob, "10.0000000000", "0.0000000000")

		// The untouched transaction executes; a later one, left until it
		// expires, does not.
		before := e.ledgerEnd()
		if resp := e.execute(alice.user, p.raw, good); resp.StatusCode() != http.StatusOK {
			t.Fatalf("execute: %d %s", resp.StatusCode(), resp.Body)
		}
		e.wantCompleted(alice.user, []coin.PartyID{alice.party}, p.tx.Metadata.CommandID, before, "", 0)
		late := e.mustPrepare(alice, "x2", cmd, disclose)
		e.clock.Advance(e.w.External.PreparedTTL() + time.Second)
		end := e.ledgerEnd()
		resp := e.execute(alice.user, late.raw, signatures(alice.party, alice.key, late.hash))
		wantError(t, "an expired preparation", http.StatusBadRequest, resp.HTTPResponse, resp.JSONDefault, "LEDGER_TIME_OUTSIDE_BOUNDS")
		if e.ledgerEnd() != end {
			t.Errorf("the expired execute moved the ledger end")
		}
	})
}

func mustB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// queriesNaming counts the statements whose text names a string (bun
// writes the arguments into the statement) while on.
type queriesNaming struct {
	s     string
	on, n atomic.Int64
}

func (q *queriesNaming) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (q *queriesNaming) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if q.on.Load() != 0 && strings.Contains(e.Query, q.s) {
		q.n.Add(1)
	}
}

// TestPrepareRemembersTheFactory: a preparation that exercises the
// transfer factory the registry handed out reads the factory's contract
// once, then remembers it (every wallet SDK transfer exercises it), and
// its prepared transaction is the same.
func TestPrepareRemembersTheFactory(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.external("alice-ext", "100")
		bob := e.user("bob", "")
		cmd, disclose := e.transferCommand(alice.party, bob, "1.0", []string{})
		// The server's registry hands the factory out, as it would have
		// answered the client.
		f, err := e.w.Registry.TransferFactoryFor(context.Background(), alice.party, bob)
		if err != nil {
			t.Fatal(err)
		}
		reads := &queriesNaming{s: string(f.FactoryID)}
		//lint:ignore SA1019 WithQueryHook returns a copy; the ledger's own handle must count
		e.l.DB().AddQueryHook(reads)
		var txs []*preparedtx.Prepared
		for i := range 3 {
			reads.on.Store(1)
			p := e.mustPrepare(alice, fmt.Sprint("f", i), cmd, disclose)
			reads.on.Store(0)
			if n := reads.n.Swap(0); i > 0 && n != 0 {
				t.Errorf("preparation %d read the factory's contract %d times; want it remembered", i, n)
			}
			txs = append(txs, p.tx)
		}
		in0, in2 := txs[0].Metadata.InputContracts, txs[2].Metadata.InputContracts
		if !reflect.DeepEqual(in0, in2) || !reflect.DeepEqual(txs[0].Transaction.Nodes, txs[2].Transaction.Nodes) {
			t.Errorf("the remembered factory's transaction differs:\n%+v\n%+v", txs[0].Transaction.Nodes, txs[2].Transaction.Nodes)
		}
	})
}

// TestExecuteKnowsItsPreparations: execute knows what this node prepared
// by the transaction id's seal, without reading the prepared
// transactions' store (a durable write per prepare and a read per
// execute of every wallet SDK transfer before); a preparation of an
// earlier release, unsealed and recorded in that store, still executes
// until its recorded expiry, and only while it is recorded.
func TestExecuteKnowsItsPreparations(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.external("alice-ext", "100")
		bob := e.user("bob", "")
		cmd, disclose := e.transferCommand(alice.party, bob, "1.0", []string{})
		reads := &queriesNaming{s: "prepared_transactions"}
		//lint:ignore SA1019 WithQueryHook returns a copy; the ledger's own handle must count
		e.l.DB().AddQueryHook(reads)
		p := e.mustPrepare(alice, "k1", cmd, disclose)
		// Preparing writes nothing: the seal is all execute needs. (The
		// release that sealed preparations still recorded them for older
		// replicas, by a statement no query hook sees: count the rows.)
		var recorded int
		if err := e.l.DB().NewSelect().Table("prepared_transactions").ColumnExpr("count(*)").Scan(context.Background(), &recorded); err != nil {
			t.Fatal(err)
		}
		if recorded != 0 {
			t.Errorf("prepare recorded %d preparations; a sealed one needs no record", recorded)
		}
		reads.on.Store(1)
		resp := e.execute(alice.user, p.raw, signatures(alice.party, alice.key, p.hash))
		reads.on.Store(0)
		if resp.StatusCode() != http.StatusOK {
			t.Fatalf("execute: %d %s", resp.StatusCode(), resp.Body)
		}
		if n := reads.n.Swap(0); n != 0 {
			t.Errorf("execute read the prepared transactions' store %d times; want the seal to tell", n)
		}

		// An earlier release's preparation: a random transaction id, and
		// the record that release wrote.
		earlier := func(id string, expires time.Time) (string, []byte) {
			t.Helper()
			q := e.mustPrepare(alice, id, cmd, disclose).tx
			q.Metadata.TransactionUUID = uuid(t)
			h, err := preparedtx.Hash(q)
			if err != nil {
				t.Fatal(err)
			}
			if !expires.IsZero() {
				err = store.InsertPreparedTx(context.Background(), e.l.DB(), &store.PreparedTx{TxHash: hex.EncodeToString(h), Party: alice.party,
					Kind: external.KindInteractive, Body: "{}", Status: store.PreparedPending, CreatedAt: e.l.Now(), ExpiresAt: expires})
				if err != nil {
					t.Fatal(err)
				}
			}
			return base64.StdEncoding.EncodeToString(preparedtx.Marshal(q)), h
		}
		raw, h := earlier("k2", e.l.Now().Add(time.Minute))
		end := e.ledgerEnd()
		if resp := e.execute(alice.user, raw, signatures(alice.party, alice.key, h)); resp.StatusCode() != http.StatusOK {
			t.Errorf("an earlier release's preparation: %d %s", resp.StatusCode(), resp.Body)
		}
		e.wantCompleted(alice.user, []coin.PartyID{alice.party}, "k2", end, "", 0)
		if e.ledgerEnd() == end {
			t.Errorf("an earlier release's preparation executed nothing")
		}
		e.api.Wait() // k2's run has ended, all of it, before the end is read
		end = e.ledgerEnd()
		raw, h = earlier("k3", e.l.Now())
		resp = e.execute(alice.user, raw, signatures(alice.party, alice.key, h))
		wantError(t, "an earlier release's expired preparation", http.StatusBadRequest, resp.HTTPResponse, resp.JSONDefault, "LEDGER_TIME_OUTSIDE_BOUNDS")
		raw, h = earlier("k4", time.Time{})
		resp = e.execute(alice.user, raw, signatures(alice.party, alice.key, h))
		wantError(t, "an unsealed preparation on no record", http.StatusBadRequest, resp.HTTPResponse, resp.JSONDefault, "INVALID_EXTERNAL_TRANSACTION")
		if e.ledgerEnd() != end {
			t.Errorf("the refused executes moved the ledger end")
		}
	})
}
