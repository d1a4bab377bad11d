package ledgerapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// streamRoots are the root exercises in party's ledger-effects stream
// of holdings after start, with their raw ExercisedEvents.
func streamRoots(t *testing.T, e *env, user string, party coin.PartyID, start int64) ([]rootEvent, []json.RawMessage) {
	t.Helper()
	var roots []rootEvent
	var raws []json.RawMessage
	req := map[string]any{"beginExclusive": start, "verbose": false, "updateFormat": ledgerEffects(filter(party, interfaceFilter(holdingIface, true, false)))}
	for _, u := range e.flats(user, req, 10) {
		if u.Update.Transaction == nil {
			continue
		}
		evs := u.Update.Transaction.Value.Events
		if r, ok := root(t, user+"'s stream", evs); ok {
			roots, raws = append(roots, r), append(raws, evs[0]["ExercisedEvent"])
		}
	}
	return roots, raws
}

// sendMeta is the metadata a TransferPreapproval_Send's result carries.
func sendMeta(raw json.RawMessage) map[string]string {
	var x struct {
		ExerciseResult struct {
			Meta struct {
				Values map[string]string `json:"values"`
			} `json:"meta"`
		} `json:"exerciseResult"`
	}
	json.Unmarshal(raw, &x)
	return x.ExerciseResult.Meta.Values
}

// TestReceiverSeesOneStepTransfer: the receiver of a one-step transfer
// through its preapproval witnesses Splice's TransferPreapproval_Send
// (it signs the preapproval): its ledger-effects view of the update has
// that exercise at node 0 over its new holding, whose result carries the
// transfer's metadata (tx-kind transfer, the sender, the memo as reason),
// which the wallet SDK's transaction parser reads as a TransferIn with
// the memo. So for TransferFactory_Transfer, which the receiver does not
// witness, completing through the preapproval, and for
// TransferPreapproval_Send submitted directly.
func TestReceiverSeesOneStepTransfer(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		pre, _, err := e.l.Preapprovals().Create(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		dso := e.l.DSO()
		start := e.ledgerEnd()
		now := e.clock.Now()
		transfer := map[string]any{
			"sender": alice, "receiver": bob, "amount": "25.0000000000", "instrumentId": map[string]any{"admin": dso, "id": "Amulet"},
			"requestedAt": now.Add(-time.Second).Format(time.RFC3339Nano), "executeBefore": now.Add(time.Hour).Format(time.RFC3339Nano),
			"inputHoldingCids": e.holdingIDs("alice", alice), "meta": map[string]any{"values": map[string]string{reasonMetaKey: "deposit 7"}},
		}
		var factory struct {
			FactoryID     string        `json:"factoryId"`
			ChoiceContext choiceContext `json:"choiceContext"`
		}
		e.registry("/transfer-factory", map[string]any{"choiceArguments": map[string]any{"expectedAdmin": dso, "transfer": transfer, "extraArgs": emptyExtra()}}, &factory)
		extra := map[string]any{"context": factory.ChoiceContext.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}
		e.mustCommand("alice", "direct", alice, exercise(factoryIface, factory.FactoryID, "TransferFactory_Transfer",
			map[string]any{"expectedAdmin": dso, "transfer": transfer, "extraArgs": extra}), disclosed(factory.ChoiceContext))

		roots, raws := streamRoots(t, e, "bob", bob, start)
		if len(roots) != 1 {
			t.Fatalf("bob's roots after the direct transfer: %+v", roots)
		}
		r, meta := roots[0], sendMeta(raws[0])
		if r.Choice != "TransferPreapproval_Send" || r.ContractID != string(pre) || r.Consuming || r.LastDescendant != 1 ||
			len(r.WitnessParties) != 1 || r.WitnessParties[0] != string(bob) || len(r.ActingParties) != 1 || r.ActingParties[0] != string(alice) ||
			meta["splice.lfdecentralizedtrust.org/tx-kind"] != "transfer" || meta["splice.lfdecentralizedtrust.org/sender"] != string(alice) ||
			meta[reasonMetaKey] != "deposit 7" {
			t.Errorf("bob's view of the direct transfer: %+v\n%s", r, raws[0])
		}

		// TransferPreapproval_Send submitted directly: bob observes it.
		start = e.ledgerEnd()
		resp, err := e.as("alice").PostV2CommandsSubmitAndWaitWithBodyWithResponse(ctx, jsonType, body(t, preapprovalSend(string(pre), alice, alice, "send")))
		if err != nil || resp.StatusCode() != http.StatusOK {
			t.Fatalf("send: %v %s", err, resp.Body)
		}
		roots, raws = streamRoots(t, e, "bob", bob, start)
		if len(roots) != 1 {
			t.Fatalf("bob's roots after the send: %+v", roots)
		}
		r, meta = roots[0], sendMeta(raws[0])
		if r.Choice != "TransferPreapproval_Send" || r.ContractID != string(pre) || len(r.WitnessParties) != 1 || r.WitnessParties[0] != string(bob) ||
			meta[reasonMetaKey] != "rent" || meta["splice.lfdecentralizedtrust.org/sender"] != string(alice) {
			t.Errorf("bob's view of the send: %+v\n%s", r, raws[0])
		}
	})
}
