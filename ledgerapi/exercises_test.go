package ledgerapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// rootEvent is the part of a root ExercisedEvent the tests read.
type rootEvent struct {
	NodeID         int      `json:"nodeId"`
	ContractID     string   `json:"contractId"`
	InterfaceID    string   `json:"interfaceId"`
	Choice         string   `json:"choice"`
	Consuming      bool     `json:"consuming"`
	ActingParties  []string `json:"actingParties"`
	WitnessParties []string `json:"witnessParties"`
	LastDescendant int      `json:"lastDescendantNodeId"`
	ChoiceArgument struct {
		Transfer struct {
			Meta struct {
				Values map[string]string `json:"values"`
			} `json:"meta"`
		} `json:"transfer"`
	} `json:"choiceArgument"`
	ExerciseResult struct {
		Output struct {
			Tag   string `json:"tag"`
			Value struct {
				TransferInstructionCid string   `json:"transferInstructionCid"`
				ReceiverHoldingCids    []string `json:"receiverHoldingCids"`
			} `json:"value"`
		} `json:"output"`
		SenderChangeCids []string `json:"senderChangeCids"`
	} `json:"exerciseResult"`
}

// root reads events' node 0 as the root exercise and checks that the
// other events are its descendants, numbered in order; false when node 0
// is not an ExercisedEvent.
func root(t *testing.T, what string, events []map[string]json.RawMessage) (rootEvent, bool) {
	t.Helper()
	var r rootEvent
	if len(events) == 0 || events[0]["ExercisedEvent"] == nil {
		return r, false
	}
	if err := json.Unmarshal(events[0]["ExercisedEvent"], &r); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if r.NodeID != 0 || r.LastDescendant != len(events)-1 {
		t.Errorf("%s: root node %d with descendants to %d, want 0 to %d", what, r.NodeID, r.LastDescendant, len(events)-1)
	}
	for i, ev := range events[1:] {
		for _, raw := range ev {
			var n struct {
				NodeID int `json:"nodeId"`
			}
			json.Unmarshal(raw, &n)
			if n.NodeID != i+1 {
				t.Errorf("%s: event %d has node %d", what, i+1, n.NodeID)
			}
		}
	}
	return r, true
}

// TestRootExercise: a command's root exercise is stored with its update
// and shown in the ledger-effects shape as Canton shows it, at node 0
// over the update's other events: alice's TransferFactory_Transfer with
// its transfer (the memo in meta), her as the acting party and its
// result (Pending, naming the instruction), in submit-and-wait's answer
// and in updates/flats alike; bob's TransferInstruction_Accept, consuming
// (it stands for the instruction's archive) with a Completed result
// naming his new holding. A party that did not act sees no root, and the
// ACS delta shows no exercise.
func TestRootExercise(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		dso := e.l.DSO()
		start := e.ledgerEnd()
		var inputs []string
		for _, h := range e.acs("alice", filter(alice, interfaceFilter(holdingIface, true, false)), start) {
			inputs = append(inputs, h.ContractID)
		}
		now := e.clock.Now()
		transfer := map[string]any{
			"sender": alice, "receiver": bob, "amount": "25.0000000000",
			"instrumentId": map[string]any{"admin": dso, "id": "Amulet"},
			"requestedAt":  now.Add(-time.Second).Format(time.RFC3339Nano), "executeBefore": now.Add(time.Hour).Format(time.RFC3339Nano),
			"inputHoldingCids": inputs, "meta": map[string]any{"values": map[string]string{reasonMetaKey: "invoice 42"}},
		}
		var factory struct {
			FactoryID     string        `json:"factoryId"`
			ChoiceContext choiceContext `json:"choiceContext"`
		}
		e.registry("/transfer-factory", map[string]any{"choiceArguments": map[string]any{
			"expectedAdmin": dso, "transfer": transfer, "extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
		}}, &factory)
		submit := func(user, commandID string, actAs coin.PartyID, cid, choice string, arg map[string]any, cc choiceContext, iface string) []map[string]json.RawMessage {
			t.Helper()
			req := map[string]any{
				"commands": map[string]any{
					"commands": []any{map[string]any{"ExerciseCommand": map[string]any{
						"templateId": iface, "contractId": cid, "choice": choice, "choiceArgument": arg,
					}}},
					"commandId": commandID, "actAs": []coin.PartyID{actAs}, "disclosedContracts": disclosed(cc),
				},
				"transactionFormat": ledgerEffects(filter(actAs))["includeTransactions"],
			}
			resp, err := e.as(user).PostV2CommandsSubmitAndWaitForTransactionWithBodyWithResponse(ctx, jsonType, body(t, req))
			if err != nil || resp.StatusCode() != http.StatusOK {
				t.Fatalf("%s: %v %d %s", choice, err, resp.StatusCode(), resp.Body)
			}
			var tx struct {
				Transaction struct {
					Events []map[string]json.RawMessage `json:"events"`
				} `json:"transaction"`
			}
			if err := json.Unmarshal(resp.Body, &tx); err != nil {
				t.Fatal(err)
			}
			return tx.Transaction.Events
		}
		extra := map[string]any{"context": factory.ChoiceContext.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}
		events := submit("alice", "x1", alice, factory.FactoryID, "TransferFactory_Transfer",
			map[string]any{"expectedAdmin": dso, "transfer": transfer, "extraArgs": extra}, factory.ChoiceContext, factoryIface)
		r, ok := root(t, "the transfer's answer", events)
		var instruction string
		for _, ev := range events {
			var c createdEvent
			if raw, ok := ev["CreatedEvent"]; ok && json.Unmarshal(raw, &c) == nil && templateSuffix(c.TemplateID) == "Splice.AmuletTransferInstruction:AmuletTransferInstruction" {
				instruction = c.ContractID
			}
		}
		if !ok || r.Choice != "TransferFactory_Transfer" || r.ContractID != factory.FactoryID || templateSuffix(r.InterfaceID) != templateSuffix(factoryIface) ||
			r.Consuming || len(r.ActingParties) != 1 || r.ActingParties[0] != string(alice) || len(r.WitnessParties) != 1 ||
			r.ChoiceArgument.Transfer.Meta.Values[reasonMetaKey] != "invoice 42" ||
			r.ExerciseResult.Output.Tag != "TransferInstructionResult_Pending" || instruction == "" ||
			r.ExerciseResult.Output.Value.TransferInstructionCid != instruction || len(r.ExerciseResult.SenderChangeCids) != 1 {
			t.Errorf("the transfer's root exercise: %+v (instruction %s)\n%s", r, instruction, events[0]["ExercisedEvent"])
		}
		// The same from the update stream.
		req := map[string]any{"beginExclusive": start, "verbose": false, "updateFormat": ledgerEffects(filter(alice))}
		var streamed []rootEvent
		for _, u := range e.flats("alice", req, 10) {
			if u.Update.Transaction != nil {
				if r, ok := root(t, "alice's stream", u.Update.Transaction.Value.Events); ok {
					streamed = append(streamed, r)
				}
			}
		}
		if len(streamed) != 1 || streamed[0].Choice != "TransferFactory_Transfer" || streamed[0].ChoiceArgument.Transfer.Meta.Values[reasonMetaKey] != "invoice 42" {
			t.Errorf("alice's ledger-effects stream: roots %+v", streamed)
		}
		// Bob did not act: his view has no root exercise.
		req["updateFormat"] = ledgerEffects(filter(bob))
		for _, u := range e.flats("bob", req, 10) {
			if u.Update.Transaction != nil {
				if r, ok := root(t, "bob's stream", u.Update.Transaction.Value.Events); ok && r.Choice == "TransferFactory_Transfer" {
					t.Errorf("bob sees alice's exercise: %+v", r)
				}
			}
		}
		// The ACS delta shows no exercise.
		req["updateFormat"] = acsDelta(filter(alice))
		for _, u := range e.flats("alice", req, 10) {
			if u.Update.Transaction != nil {
				for _, ev := range u.Update.Transaction.Value.Events {
					if ev["ExercisedEvent"] != nil {
						t.Errorf("an ExercisedEvent in the ACS delta: %s", ev["ExercisedEvent"])
					}
				}
			}
		}

		// Bob accepts: the consuming exercise on the instruction is the
		// root; the instruction shows no other event.
		var accept choiceContext
		e.registry("/"+instruction+"/choice-contexts/accept", map[string]any{"meta": map[string]any{}}, &accept)
		events = submit("bob", "a1", bob, instruction, "TransferInstruction_Accept",
			map[string]any{"extraArgs": map[string]any{"context": accept.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}}, accept, instructionIface)
		r, ok = root(t, "the accept's answer", events)
		var bobs, alicesChange []string
		for _, ev := range events[1:] {
			var c createdEvent
			var owner struct {
				Owner coin.PartyID `json:"owner"`
			}
			if raw, ok := ev["CreatedEvent"]; ok && json.Unmarshal(raw, &c) == nil && templateSuffix(c.TemplateID) == "Splice.Amulet:Amulet" &&
				json.Unmarshal(c.CreateArgument, &owner) == nil {
				switch owner.Owner {
				case bob:
					bobs = append(bobs, c.ContractID)
				case alice:
					// Bob sees the whole subtree of his exercise: alice's
					// change too, though he is no stakeholder of it.
					alicesChange = append(alicesChange, c.ContractID)
					if len(c.WitnessParties) != 1 || c.WitnessParties[0] != string(bob) {
						t.Errorf("alice's change under bob's accept: witnesses %v, want bob", c.WitnessParties)
					}
				}
			}
			for _, raw := range ev {
				var x struct {
					ContractID string `json:"contractId"`
				}
				if json.Unmarshal(raw, &x) == nil && x.ContractID == instruction {
					t.Errorf("the instruction shows beside the root: %s", raw)
				}
			}
		}
		if !ok || r.Choice != "TransferInstruction_Accept" || !r.Consuming || r.ContractID != instruction ||
			templateSuffix(r.InterfaceID) != templateSuffix(instructionIface) || r.ExerciseResult.Output.Tag != "TransferInstructionResult_Completed" ||
			len(bobs) != 1 || len(r.ExerciseResult.Output.Value.ReceiverHoldingCids) != 1 || r.ExerciseResult.Output.Value.ReceiverHoldingCids[0] != bobs[0] ||
			len(alicesChange) != 1 || len(r.ExerciseResult.SenderChangeCids) != 1 || r.ExerciseResult.SenderChangeCids[0] != alicesChange[0] {
			t.Errorf("the accept's root exercise: %+v (bob's holdings %v, alice's change %v)\n%s", r, bobs, alicesChange, events[0]["ExercisedEvent"])
		}
	})
}
