package ledgerapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestInterfaceFilterOfServedPackage: an interface filter on an interface
// of a package this participant serves that nothing here implements
// (AllocationInstruction, AnyContract) is valid and matches nothing, as on
// Canton, beside one that matches; the wallet SDK's listHoldingTransactions
// and getTransactionById send such filters.
func TestInterfaceFilterOfServedPackage(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.user("alice", "10")
		end := e.ledgerEnd()
		for _, iface := range []string{apiread.InterfaceAllocationInstruction, apiread.InterfaceAnyContract} {
			if got := e.acs("alice", filter(alice, interfaceFilter(iface, true, false)), end); len(got) != 0 {
				t.Errorf("%s: %d contracts, want none", iface, len(got))
			}
			got := e.acs("alice", filter(alice, interfaceFilter(iface, true, false), interfaceFilter(apiread.InterfaceHolding, true, false)), end)
			if len(got) != 1 || len(got[0].InterfaceViews) != 1 || got[0].InterfaceViews[0].InterfaceID == "" {
				t.Errorf("%s with Holding: %+v, want alice's one holding with its Holding view", iface, got)
			}
			ups := e.flats("alice", map[string]any{"beginExclusive": 0, "verbose": false,
				"updateFormat": acsDelta(filter(alice, interfaceFilter(iface, true, false), interfaceFilter(apiread.InterfaceHolding, true, false)))}, 50)
			n := 0
			for _, u := range ups {
				if u.Update.Transaction != nil {
					n++
				}
			}
			if n == 0 {
				t.Errorf("%s with Holding on updates: no transaction, want alice's mint", iface)
			}
		}
	})
}

// TestNullOptionalsPrepareAndExecute: an optional field sent as null
// (lock: null inside the transfer, as clients send it) passes prepare and
// execute alike.
func TestNullOptionalsPrepareAndExecute(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.external("alice-ext", "100")
		bob := e.user("bob", "")
		var inputs []string
		for _, h := range e.acs(alice.user, filter(alice.party, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()) {
			inputs = append(inputs, h.ContractID)
		}
		cmd, disclose := e.transferCommand(alice.party, bob, "25.0000000000", inputs)
		arg := cmd["ExerciseCommand"].(map[string]any)["choiceArgument"].(map[string]any)
		arg["transfer"].(map[string]any)["lock"] = nil
		e.run(alice, "null-lock", cmd, disclose)
		accept, acceptCtx := e.acceptCommand("bob", bob) // the one instruction to bob
		e.mustCommand("bob", "a1", bob, accept, acceptCtx)
		if got := e.holds("bob", bob); !got.Equal(coin.MustParse("25")) {
			t.Errorf("bob holds %s, want 25", got)
		}
		// And through submit-and-wait.
		back, backCtx := e.transferCommand(bob, alice.party, "5.0", []string{})
		back["ExerciseCommand"].(map[string]any)["choiceArgument"].(map[string]any)["transfer"].(map[string]any)["lock"] = nil
		e.mustCommand("bob", "b1", bob, back, backCtx)
	})
}

// TestSelfTransferMerges: a TransferFactory_Transfer from a party to
// itself over its holdings (how the wallet SDK's mergeHoldingUtxos merges)
// leaves one holding of their sum, through prepare/execute and
// submit-and-wait; one it cannot run is refused at prepare.
func TestSelfTransferMerges(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.external("alice-ext", "100")
		ledgertest.Mint(t, e.l, alice.party, "50")
		holdings := func(user string, p coin.PartyID) []string {
			var ids []string
			for _, h := range e.acs(user, filter(p, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()) {
				ids = append(ids, h.ContractID)
			}
			return ids
		}
		inputs := holdings(alice.user, alice.party)
		if len(inputs) != 2 {
			t.Fatalf("alice-ext has %d holdings, want 2", len(inputs))
		}
		// Too much: refused at prepare, nothing to sign.
		big, bigCtx := e.transferCommand(alice.party, alice.party, "1000.0", inputs)
		resp := e.prepare(alice.user, alice.party, "merge-big", big, bigCtx)
		wantError(t, "self-transfer of more than the inputs", http.StatusBadRequest, resp.HTTPResponse, resp.JSONDefault, "DAML_INTERPRETATION_ERROR")

		cmd, disclose := e.transferCommand(alice.party, alice.party, "150.0", inputs)
		e.run(alice, "merge", cmd, disclose)
		if got := holdings(alice.user, alice.party); len(got) != 1 {
			t.Errorf("after the merge alice-ext has %d holdings, want 1", len(got))
		}
		if got := e.holds(alice.user, alice.party); !got.Equal(coin.MustParse("150")) {
			t.Errorf("alice-ext holds %s, want 150", got)
		}

		// A local party through submit-and-wait, its inputs left to the
		// ledger.
		bob := e.user("bob", "10")
		ledgertest.Mint(t, e.l, bob, "5")
		ledgertest.Mint(t, e.l, bob, "1")
		self, selfCtx := e.transferCommand(bob, bob, "16.0", []string{})
		e.mustCommand("bob", "merge-bob", bob, self, selfCtx)
		if got := holdings("bob", bob); len(got) != 1 {
			t.Errorf("after the merge bob has %d holdings, want 1", len(got))
		}
	})
}

// TestExerciseResultTyped: a consuming exercise shows the Daml result of
// its choice: TransferInstruction_Accept a TransferInstructionResult whose
// output is TransferInstructionResult_Completed with the receiver's new
// holdings (what the token-standard CLI reads as exerciseResult.output.tag),
// _Reject one whose output is _Failed.
func TestExerciseResultTyped(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		send := func(id string) {
			cmd, ctx := e.transferCommand(alice, bob, "10.0", []string{})
			e.mustCommand("alice", id, alice, cmd, ctx)
		}
		send("t1")
		accept, acceptCtx := e.acceptCommand("bob", bob)
		e.mustCommand("bob", "a1", bob, accept, acceptCtx)
		send("t2")
		reject, _ := e.acceptCommand("bob", bob) // the instruction, rejected instead
		ex := reject["ExerciseCommand"].(map[string]any)
		ex["choice"] = "TransferInstruction_Reject"
		var rc choiceContext
		e.registry("/"+ex["contractId"].(string)+"/choice-contexts/reject", map[string]any{"meta": map[string]any{}}, &rc)
		ex["choiceArgument"] = map[string]any{"extraArgs": map[string]any{"context": rc.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}}
		e.mustCommand("bob", "r1", bob, reject, disclosed(rc))

		f := filter(bob, interfaceFilter(holdingIface, true, false), interfaceFilter(instructionIface, true, false))
		ups := e.flats("bob", map[string]any{"beginExclusive": 0, "verbose": false, "updateFormat": map[string]any{
			"includeTransactions": map[string]any{"eventFormat": f, "transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"}}}, 100)
		tags := map[string]string{}
		var received []string
		for _, u := range ups {
			if u.Update.Transaction == nil {
				continue
			}
			for _, ev := range u.Update.Transaction.Value.Events {
				raw, ok := ev["ExercisedEvent"]
				if !ok {
					continue
				}
				var x struct {
					Choice         string `json:"choice"`
					ExerciseResult struct {
						Output struct {
							Tag   string `json:"tag"`
							Value struct {
								ReceiverHoldingCids []string `json:"receiverHoldingCids"`
							} `json:"value"`
						} `json:"output"`
						SenderChangeCids []string `json:"senderChangeCids"`
					} `json:"exerciseResult"`
				}
				if err := json.Unmarshal(raw, &x); err != nil {
					t.Fatal(err)
				}
				if x.ExerciseResult.Output.Tag != "" {
					tags[x.Choice] = x.ExerciseResult.Output.Tag
				}
				if x.Choice == "TransferInstruction_Accept" {
					received = x.ExerciseResult.Output.Value.ReceiverHoldingCids
				}
			}
		}
		if tags["TransferInstruction_Accept"] != "TransferInstructionResult_Completed" || tags["TransferInstruction_Reject"] != "TransferInstructionResult_Failed" {
			t.Errorf("exercise results by choice: %v", tags)
		}
		if len(received) != 1 {
			t.Errorf("accept's receiverHoldingCids = %v, want bob's one new holding", received)
		}
	})
}
