package ledgerapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
)

func ledgerEffects(f map[string]any) map[string]any {
	return map[string]any{"includeTransactions": map[string]any{"eventFormat": f, "transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"}}
}

// exercised is the part of an ExercisedEvent the tests read.
type exercised struct {
	ContractID     string   `json:"contractId"`
	TemplateID     string   `json:"templateId"`
	InterfaceID    string   `json:"interfaceId"`
	Choice         string   `json:"choice"`
	Consuming      bool     `json:"consuming"`
	WitnessParties []string `json:"witnessParties"`
}

// TestLedgerEffects: with TRANSACTION_SHAPE_LEDGER_EFFECTS an archive is
// the consuming exercise that made it, never an ArchivedEvent: bob's
// accept of alice's instruction shows the instruction exercised with
// TransferInstruction_Accept through its interface, the locked holding it
// released as Archive; on updates/flats and transaction-by-offset alike,
// while ACS_DELTA still shows ArchivedEvents.
func TestLedgerEffects(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		res, err := e.l.Instructions().Create(ctx, ledger.TransferInstructionRequest{
			Sender: alice, Receiver: bob, Amount: coin.MustParse("40"), ExecuteBefore: e.clock.Now().Add(time.Hour),
		})
		if err != nil {
			t.Fatal(err)
		}
		before := e.ledgerEnd()
		if _, err := e.l.Instructions().Accept(ctx, bob, res.InstructionCID); err != nil {
			t.Fatal(err)
		}
		accepted := e.ledgerEnd()
		events := func(ups []flatUpdate) []map[string]json.RawMessage {
			var out []map[string]json.RawMessage
			for _, u := range ups {
				if u.Update.Transaction != nil {
					out = append(out, u.Update.Transaction.Value.Events...)
				}
			}
			return out
		}
		choices := func(evs []map[string]json.RawMessage) map[string]exercised {
			t.Helper()
			out := map[string]exercised{}
			for _, ev := range evs {
				if _, ok := ev["ArchivedEvent"]; ok {
					t.Errorf("an ArchivedEvent in the ledger-effects shape: %s", ev["ArchivedEvent"])
				}
				if raw, ok := ev["ExercisedEvent"]; ok {
					var x exercised
					json.Unmarshal(raw, &x)
					out[x.ContractID] = x
				}
			}
			return out
		}
		req := func(p coin.PartyID, shape func(map[string]any) map[string]any) map[string]any {
			return map[string]any{"beginExclusive": before, "endInclusive": accepted, "verbose": false, "updateFormat": shape(filter(p))}
		}
		bobs := choices(events(e.flats("bob", req(bob, ledgerEffects), 10)))
		x, ok := bobs[string(res.InstructionCID)]
		if !ok || x.Choice != "TransferInstruction_Accept" || !x.Consuming || x.InterfaceID == "" || templateSuffix(x.InterfaceID) != templateSuffix(apiread.InterfaceTransferInstruction) ||
			len(x.WitnessParties) != 1 || x.WitnessParties[0] != string(bob) {
			t.Errorf("bob's view of the accept: %+v (all: %+v)", x, bobs)
		}
		alices := choices(events(e.flats("alice", req(alice, ledgerEffects), 10)))
		var archives int
		for _, x := range alices {
			if x.Choice == "Archive" && x.InterfaceID == "" && x.Consuming {
				archives++
			}
		}
		if alices[string(res.InstructionCID)].Choice != "TransferInstruction_Accept" || archives == 0 {
			t.Errorf("alice's view of the accept: %+v; want the instruction accepted and her locked holding archived", alices)
		}
		// ACS_DELTA: the same update with ArchivedEvents.
		var deltaArchives int
		for _, ev := range events(e.flats("alice", req(alice, acsDelta), 10)) {
			if _, ok := ev["ArchivedEvent"]; ok {
				deltaArchives++
			}
			if _, ok := ev["ExercisedEvent"]; ok {
				t.Errorf("an ExercisedEvent in the ACS delta: %s", ev["ExercisedEvent"])
			}
		}
		if deltaArchives != len(alices) {
			t.Errorf("ACS delta archives %d, ledger-effects exercises %d", deltaArchives, len(alices))
		}
		// The lookup by offset answers the same shape.
		r, err := e.as("bob").PostV2UpdatesTransactionByOffsetWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
			"offset": accepted, "transactionFormat": ledgerEffects(filter(bob))["includeTransactions"],
		}))
		if err != nil || r.StatusCode() != http.StatusOK {
			t.Fatalf("transaction-by-offset: %v %s", err, r.Body)
		}
		var tx struct {
			Transaction struct {
				Events []map[string]json.RawMessage `json:"events"`
			} `json:"transaction"`
		}
		json.Unmarshal(r.Body, &tx)
		if got := choices(tx.Transaction.Events); got[string(res.InstructionCID)].Choice != "TransferInstruction_Accept" {
			t.Errorf("transaction-by-offset: %s", r.Body)
		}

		// The legacy trees: the same events by node id.
		treeEvents := func(what string, b []byte, tree json.RawMessage) map[string]exercised {
			t.Helper()
			var tt struct {
				UpdateID   string `json:"updateId"`
				EventsByID map[string]map[string]struct {
					Value json.RawMessage `json:"value"`
				} `json:"eventsById"`
			}
			if err := json.Unmarshal(tree, &tt); err != nil || len(tt.EventsByID) == 0 {
				t.Fatalf("%s: %v %s", what, err, b)
			}
			var evs []map[string]json.RawMessage
			for _, ev := range tt.EventsByID {
				for kind, v := range ev {
					if kind != "CreatedTreeEvent" && kind != "ExercisedTreeEvent" {
						t.Errorf("%s: a %s", what, kind)
					}
					if kind == "ExercisedTreeEvent" {
						evs = append(evs, map[string]json.RawMessage{"ExercisedEvent": v.Value})
					}
				}
			}
			return choices(evs)
		}
		limit := int64(10)
		tr, err := e.as("bob").PostV2UpdatesTreesWithBodyWithResponse(ctx, &client.PostV2UpdatesTreesParams{Limit: &limit}, jsonType,
			body(t, map[string]any{"beginExclusive": before, "endInclusive": accepted, "verbose": false, "filter": filter(bob)}))
		if err != nil || tr.StatusCode() != http.StatusOK {
			t.Fatalf("trees: %v %s", err, tr.Body)
		}
		var trees []struct {
			Update struct {
				TransactionTree *struct {
					Value json.RawMessage `json:"value"`
				} `json:"TransactionTree"`
			} `json:"update"`
		}
		json.Unmarshal(tr.Body, &trees)
		if len(trees) == 0 || trees[0].Update.TransactionTree == nil ||
			treeEvents("trees", tr.Body, trees[0].Update.TransactionTree.Value)[string(res.InstructionCID)].Choice != "TransferInstruction_Accept" {
			t.Errorf("trees: %s", tr.Body)
		}
		parties := &[]string{string(bob)}
		byOff, err := e.as("bob").GetV2UpdatesTransactionTreeByOffsetOffsetWithResponse(ctx, accepted, &client.GetV2UpdatesTransactionTreeByOffsetOffsetParams{Parties: parties})
		if err != nil || byOff.StatusCode() != http.StatusOK {
			t.Fatalf("tree by offset: %v %s", err, byOff.Body)
		}
		var one struct {
			Transaction json.RawMessage `json:"transaction"`
		}
		json.Unmarshal(byOff.Body, &one)
		if treeEvents("tree by offset", byOff.Body, one.Transaction)[string(res.InstructionCID)].Choice != "TransferInstruction_Accept" {
			t.Errorf("tree by offset: %s", byOff.Body)
		}
		var id struct {
			UpdateID string `json:"updateId"`
		}
		json.Unmarshal(one.Transaction, &id)
		byID, err := e.as("bob").GetV2UpdatesTransactionTreeByIdUpdateIdWithResponse(ctx, id.UpdateID, &client.GetV2UpdatesTransactionTreeByIdUpdateIdParams{Parties: parties})
		if err != nil || byID.StatusCode() != http.StatusOK || !json.Valid(byID.Body) {
			t.Fatalf("tree by id: %v %s", err, byID.Body)
		}
		alicesTree, _ := e.as("bob").GetV2UpdatesTransactionTreeByIdUpdateIdWithResponse(ctx, id.UpdateID, &client.GetV2UpdatesTransactionTreeByIdUpdateIdParams{Parties: &[]string{string(alice)}})
		wantError(t, "bob reads alice's tree", http.StatusForbidden, alicesTree.HTTPResponse, alicesTree.JSONDefault, "PERMISSION_DENIED")
	})
}
