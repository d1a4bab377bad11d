package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
)

const (
	factoryIface   = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory"
	reasonMetaKey  = "splice.lfdecentralizedtrust.org/reason"
	registryPrefix = "/registry/transfer-instruction/v1"
)

// registry posts to the token-standard registry (the app port's, no
// token) and decodes the answer.
func (e *env) registry(path string, req any, out any) {
	e.t.Helper()
	e.registryAt(registryPrefix+path, req, out)
}

// registryAt is registry with the full path.
func (e *env) registryAt(path string, req any, out any) {
	e.t.Helper()
	srv := httptest.NewServer(handlers.New(e.l, handlers.Config{}, nil).Routes(nil))
	defer srv.Close()
	b, _ := json.Marshal(req)
	resp, err := http.Post(srv.URL+path, jsonType, bytes.NewReader(b))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("registry %s: %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		e.t.Fatal(err)
	}
}

// choiceContext is the registry's ChoiceContext.
type choiceContext struct {
	ChoiceContextData  json.RawMessage  `json:"choiceContextData"`
	DisclosedContracts []map[string]any `json:"disclosedContracts"`
}

// disclosed turns the registry's disclosed contracts into the Ledger
// API's (without the registry's debug fields).
func disclosed(cc choiceContext) []map[string]any {
	var out []map[string]any
	for _, d := range cc.DisclosedContracts {
		out = append(out, map[string]any{"templateId": d["templateId"], "contractId": d["contractId"],
			"createdEventBlob": d["createdEventBlob"], "synchronizerId": d["synchronizerId"]})
	}
	return out
}

// TestTransferFlow is flow (a) of issue 25, only through the Ledger API
// and the registry: alice reads her holdings through the Holding
// interface, gets the transfer factory with its choice context from the
// registry, exercises TransferFactory_Transfer to bob; bob finds the
// instruction through the TransferInstruction interface and accepts it;
// both follow it on /v2/updates. A repeated command is DUPLICATE_COMMAND.
func TestTransferFlow(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		dso := e.l.DSO()
		start := e.ledgerEnd()
		holdings := e.acs("alice", filter(alice, interfaceFilter(holdingIface, true, false)), start)
		var inputs []string
		for _, h := range holdings {
			inputs = append(inputs, h.ContractID)
		}

		now := e.clock.Now()
		transfer := map[string]any{
			"sender": alice, "receiver": bob, "amount": "25.0000000000",
			"instrumentId": map[string]any{"admin": dso, "id": "Amulet"},
			"requestedAt":  now.Add(-time.Second).Format(time.RFC3339Nano), "executeBefore": now.Add(time.Hour).Format(time.RFC3339Nano),
			"inputHoldingCids": inputs, "meta": map[string]any{"values": map[string]string{reasonMetaKey: "lunch"}},
		}
		var factory struct {
			FactoryID     string        `json:"factoryId"`
			TransferKind  string        `json:"transferKind"`
			ChoiceContext choiceContext `json:"choiceContext"`
		}
		e.registry("/transfer-factory", map[string]any{"choiceArguments": map[string]any{
			"expectedAdmin": dso, "transfer": transfer, "extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
		}}, &factory)
		if factory.TransferKind != "offer" {
			t.Fatalf("transfer kind %q, want offer (bob has no preapproval)", factory.TransferKind)
		}
		submit := func(user, commandID string, actAs coin.PartyID, cid, choice string, arg map[string]any, cc choiceContext, iface string) (int, []byte) {
			t.Helper()
			req := map[string]any{
				"commands": map[string]any{
					"commands": []any{map[string]any{"ExerciseCommand": map[string]any{
						"templateId": iface, "contractId": cid, "choice": choice, "choiceArgument": arg,
					}}},
					"commandId": commandID, "actAs": []coin.PartyID{actAs}, "disclosedContracts": disclosed(cc),
				},
			}
			resp, err := e.as(user).PostV2CommandsSubmitAndWaitForTransactionWithBodyWithResponse(ctx, jsonType, body(t, req))
			if err != nil {
				t.Fatal(err)
			}
			return resp.StatusCode(), resp.Body
		}
		extra := map[string]any{"context": factory.ChoiceContext.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}
		transferArg := map[string]any{"expectedAdmin": dso, "transfer": transfer, "extraArgs": extra}

		// Bob cannot act as alice.
		if code, b := submit("bob", "t1", alice, factory.FactoryID, "TransferFactory_Transfer", transferArg, factory.ChoiceContext, factoryIface); code != http.StatusForbidden {
			t.Errorf("bob submits as alice: %d %s", code, b)
		}
		code, b := submit("alice", "t1", alice, factory.FactoryID, "TransferFactory_Transfer", transferArg, factory.ChoiceContext, factoryIface)
		if code != http.StatusOK {
			t.Fatalf("transfer: %d %s", code, b)
		}
		var tx struct {
			Transaction struct {
				UpdateID  string                       `json:"updateId"`
				CommandID string                       `json:"commandId"`
				Offset    int64                        `json:"offset"`
				Events    []map[string]json.RawMessage `json:"events"`
			} `json:"transaction"`
		}
		if err := json.Unmarshal(b, &tx); err != nil {
			t.Fatal(err)
		}
		var instruction string
		for _, ev := range tx.Transaction.Events {
			var c createdEvent
			if raw, ok := ev["CreatedEvent"]; ok && json.Unmarshal(raw, &c) == nil && templateSuffix(c.TemplateID) == "Splice.AmuletTransferInstruction:AmuletTransferInstruction" {
				instruction = c.ContractID
			}
		}
		if instruction == "" || tx.Transaction.CommandID != "t1" || tx.Transaction.Offset <= start {
			t.Fatalf("the transfer's transaction: %s", b)
		}
		// The same command again: a duplicate, and nothing moves.
		if code, b := submit("alice", "t1", alice, factory.FactoryID, "TransferFactory_Transfer", transferArg, factory.ChoiceContext, factoryIface); code != http.StatusConflict ||
			!bytes.Contains(b, []byte("DUPLICATE_COMMAND")) {
			t.Errorf("the same command again: %d %s", code, b)
		}
		// A forged disclosed contract is refused.
		forged := factory.ChoiceContext
		forged.DisclosedContracts = slices.Clone(forged.DisclosedContracts)
		forged.DisclosedContracts[0] = map[string]any{"contractId": forged.DisclosedContracts[0]["contractId"], "createdEventBlob": "Y2N3MWZvcmdlZA==", "synchronizerId": e.l.SynchronizerID()}
		if code, b := submit("alice", "t2", alice, factory.FactoryID, "TransferFactory_Transfer", transferArg, forged, factoryIface); code != http.StatusBadRequest {
			t.Errorf("a forged blob: %d %s", code, b)
		}

		// Bob finds the instruction through the interface and accepts
		// with the registry's context.
		found := e.acs("bob", filter(bob, interfaceFilter(instructionIface, true, false)), e.ledgerEnd())
		if len(found) != 1 || found[0].ContractID != instruction {
			t.Fatalf("bob's instructions: %+v", found)
		}
		var accept choiceContext
		e.registry("/"+instruction+"/choice-contexts/accept", map[string]any{"meta": map[string]any{}}, &accept)
		acceptArg := map[string]any{"extraArgs": map[string]any{"context": accept.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}}
		if code, b := submit("alice", "a1", alice, instruction, "TransferInstruction_Accept", acceptArg, accept, instructionIface); code == http.StatusOK {
			t.Errorf("alice accepts her own instruction: %d %s", code, b)
		}
		if code, b := submit("bob", "a1", bob, instruction, "TransferInstruction_Accept", acceptArg, accept, instructionIface); code != http.StatusOK {
			t.Fatalf("bob accepts: %d %s", code, b)
		}
		if code, b := submit("bob", "a1", bob, instruction, "TransferInstruction_Accept", acceptArg, accept, instructionIface); code != http.StatusConflict ||
			!bytes.Contains(b, []byte("DUPLICATE_COMMAND")) {
			t.Errorf("bob accepts again: %d %s", code, b)
		}

		// Alice withdraws a second transfer, bob rejects a third: the coin
		// comes back.
		for i, m := range []struct{ user, choice string }{{"alice", "TransferInstruction_Withdraw"}, {"bob", "TransferInstruction_Reject"}} {
			id := "back" + m.choice
			code, b := submit("alice", id, alice, factory.FactoryID, "TransferFactory_Transfer", transferArg, factory.ChoiceContext, factoryIface)
			if code != http.StatusOK {
				t.Fatalf("transfer %d: %d %s", i, code, b)
			}
			found := e.acs("bob", filter(bob, interfaceFilter(instructionIface, false, false)), e.ledgerEnd())
			if len(found) != 1 {
				t.Fatalf("bob's instructions: %+v", found)
			}
			var ctx choiceContext
			e.registry("/"+found[0].ContractID+"/choice-contexts/"+map[bool]string{true: "withdraw", false: "reject"}[m.user == "alice"], map[string]any{"meta": map[string]any{}}, &ctx)
			arg := map[string]any{"extraArgs": map[string]any{"context": ctx.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}}
			actAs := map[string]coin.PartyID{"alice": alice, "bob": bob}[m.user]
			if code, b := submit(m.user, m.choice, actAs, found[0].ContractID, m.choice, arg, ctx, instructionIface); code != http.StatusOK {
				t.Fatalf("%s: %d %s", m.choice, code, b)
			}
		}

		// Both follow it on the updates through the Holding interface.
		for who, p := range map[string]coin.PartyID{"alice": alice, "bob": bob} {
			var total coin.Amount
			for _, h := range e.acs(who, filter(p, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()) {
				var v holdingView
				json.Unmarshal(h.InterfaceViews[0].ViewValue, &v)
				total = total.Add(coin.MustParse(v.Amount))
			}
			want := map[string]string{"alice": "75", "bob": "25"}[who]
			if !total.Equal(coin.MustParse(want)) {
				t.Errorf("%s holds %s after the transfer, want %s", who, total, want)
			}
			var created int
			for _, u := range e.flats(who, map[string]any{"beginExclusive": start, "verbose": false,
				"updateFormat": acsDelta(filter(p, interfaceFilter(holdingIface, true, false)))}, 100) {
				if u.Update.Transaction != nil {
					created += len(u.Update.Transaction.Value.Events)
				}
			}
			if created == 0 {
				t.Errorf("%s sees no holding events since offset %d", who, start)
			}
		}

		// submit-and-wait answers the update id and offset.
		resp, err := e.as("alice").PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
			"commands": []any{map[string]any{"ExerciseCommand": map[string]any{
				"templateId": factoryIface, "contractId": factory.FactoryID, "choice": "TransferFactory_Transfer", "choiceArgument": transferArg,
			}}},
			"commandId": "t3", "actAs": []coin.PartyID{alice}, "disclosedContracts": disclosed(factory.ChoiceContext),
		}))
		if err != nil || resp.JSON200 == nil || resp.JSON200.UpdateId == "" || resp.JSON200.CompletionOffset != e.ledgerEnd() {
			t.Errorf("submit-and-wait: %v %s", err, resp.Body)
		}
		// Anything else is refused, saying what is supported.
		un, _ := e.as("alice").PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
			"commands":  []any{map[string]any{"CreateCommand": map[string]any{"templateId": "#splice-amulet:Splice.Amulet:Amulet", "createArguments": map[string]any{}}}},
			"commandId": "c1", "actAs": []coin.PartyID{alice},
		}))
		wantError(t, "a create command", http.StatusNotImplemented, un.HTTPResponse, un.JSONDefault, "UNSUPPORTED_OPERATION")
	})
}

// preapprovalSend is the JsCommands of TransferPreapproval_Send of 10 on
// preapproval by sender, acting as actAs.
func preapprovalSend(preapproval string, sender, actAs coin.PartyID, commandID string) map[string]any {
	return map[string]any{
		"commands": []any{map[string]any{"ExerciseCommand": map[string]any{
			"templateId": "#splice-amulet:Splice.AmuletRules:TransferPreapproval", "contractId": preapproval, "choice": "TransferPreapproval_Send",
			"choiceArgument": map[string]any{"context": map[string]any{}, "inputs": []any{}, "amount": "10.0", "sender": sender, "description": "rent"},
		}}},
		"commandId": commandID, "actAs": []coin.PartyID{actAs},
	}
}

// TestPreapprovalSend: alice sends to bob in one step through bob's
// transfer preapproval (the coin's TransferPreapproval_Send, on its
// template); a replay is DUPLICATE_COMMAND, a sender not acted as is
// refused.
func TestPreapprovalSend(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		pre, _, err := e.l.Preapprovals().Create(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		send := func(commandID string, sender coin.PartyID) (int, []byte) {
			t.Helper()
			r, err := e.as("alice").PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, preapprovalSend(string(pre), sender, alice, commandID)))
			if err != nil {
				t.Fatal(err)
			}
			return r.StatusCode(), r.Body
		}
		if code, b := send("s1", alice); code != http.StatusOK {
			t.Fatalf("send: %d %s", code, b)
		}
		if code, b := send("s1", alice); code != http.StatusConflict || !bytes.Contains(b, []byte("DUPLICATE_COMMAND")) {
			t.Errorf("replay: %d %s", code, b)
		}
		if code, b := send("s2", bob); code != http.StatusBadRequest || !bytes.Contains(b, []byte("DAML_AUTHORIZATION_ERROR")) {
			t.Errorf("bob as sender: %d %s", code, b)
		}
		hs := e.acs("bob", filter(bob, interfaceFilter(holdingIface, true, false)), e.ledgerEnd())
		if len(hs) != 1 {
			t.Fatalf("bob's holdings: %+v", hs)
		}
		var v holdingView
		json.Unmarshal(hs[0].InterfaceViews[0].ViewValue, &v)
		if !coin.MustParse(v.Amount).Equal(coin.MustParse("10")) {
			t.Errorf("bob holds %s, want 10", v.Amount)
		}
	})
}
