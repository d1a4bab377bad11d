package ledgerapi_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestOperatorSeesItsMerges: the operator who merges an owner's holdings
// by delegation is not a stakeholder of them, but as the acting party of
// its command it is an informee of the command's root exercise and so of
// all under it (Canton's projection): in the ledger-effects shape its
// own update stream and its submit-and-wait-for-transaction show its
// BatchMergeUtility_BatchMerge and MergeDelegation_Merge, each at node 0
// with the operator acting and witnessing, and under it the merged
// holdings' archives as consuming exercises and the new holding; in the
// ACS-delta shape, stakeholders only, or through a template filter of
// none of the update's contracts, it sees none of them.
func TestOperatorSeesItsMerges(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		op := e.l.Operator()
		bob := e.user("bob", "5")
		x := e.external("xena", "")
		e.mustCommand("admin", "u-1", op, map[string]any{"CreateCommand": map[string]any{"templateId": batchMergeTemplate, "createArguments": map[string]any{"operator": op}}}, nil)
		utility := only(t, "the utility", e.acs("admin", filter(op, templateFilter(batchMergeTemplate, false)), e.ledgerEnd())).ContractID
		e.run(x, "m-1", map[string]any{"CreateCommand": map[string]any{"templateId": mergeProposalTemplate, "createArguments": map[string]any{
			"delegation": map[string]any{"operator": op, "owner": x.party, "meta": map[string]any{"values": map[string]any{}}}}}}, nil)
		proposal := only(t, "the proposal", e.acs(x.user, filter(x.party, templateFilter(mergeProposalTemplate, false)), e.ledgerEnd())).ContractID
		e.mustCommand("admin", "a-1", op, exercise(mergeProposalTemplate, proposal, "MergeDelegationProposal_Accept", map[string]any{}), nil)
		delegation := only(t, "the delegation", e.acs(x.user, filter(x.party, templateFilter(mergeTemplate, false)), e.ledgerEnd())).ContractID
		cmd, disclose := e.transferCommand(bob, x.party, "1", nil)
		factory := cmd["ExerciseCommand"].(map[string]any)["contractId"].(string)
		merge := func(amount string) map[string]any {
			for range 3 {
				ledgertest.Mint(t, e.l, x.party, "10")
			}
			inputs := e.holdingIDs(x.user, x.party)
			return map[string]any{"factoryCid": factory, "choiceArg": e.selfTransferArg(x.party, x.party, amount, inputs)}
		}

		// check reads the operator's view of the update its command
		// commandID made, in both shapes.
		check := func(commandID, choice, root string, arg map[string]any, inputs []string) {
			t.Helper()
			before := e.ledgerEnd()
			e.mustCommand("admin", commandID, op, exercise(templateOf(choice), root, choice, arg), disclose)
			after := e.ledgerEnd()
			req := func(shape func(map[string]any) map[string]any) map[string]any {
				return map[string]any{"beginExclusive": before, "endInclusive": after, "verbose": false, "updateFormat": shape(filter(op))}
			}
			var txs [][]map[string]json.RawMessage
			for _, u := range e.flats("admin", req(ledgerEffects), 10) {
				if u.Update.Transaction != nil {
					txs = append(txs, u.Update.Transaction.Value.Events)
				}
			}
			if len(txs) != 1 || len(txs[0]) == 0 {
				t.Fatalf("%s: the operator's ledger-effects stream has %d transactions, want its merge", choice, len(txs))
			}
			var first struct {
				exercised
				NodeID        int      `json:"nodeId"`
				ActingParties []string `json:"actingParties"`
			}
			if err := json.Unmarshal(txs[0][0]["ExercisedEvent"], &first); err != nil || first.Choice != choice || first.ContractID != root || first.NodeID != 0 ||
				!slices.Equal(first.ActingParties, []string{string(op)}) || !slices.Equal(first.WitnessParties, []string{string(op)}) {
				t.Errorf("%s: the operator's first event %+v (%v), want its exercise at node 0, acting and witnessing", choice, first, err)
			}
			archived, created := []string{}, 0
			for _, ev := range txs[0][1:] {
				if raw, ok := ev["ExercisedEvent"]; ok {
					var x exercised
					json.Unmarshal(raw, &x)
					if x.Consuming && slices.Contains(x.WitnessParties, string(op)) {
						archived = append(archived, x.ContractID)
					}
				}
				if _, ok := ev["CreatedEvent"]; ok {
					created++
				}
			}
			slices.Sort(archived)
			if want := slices.Sorted(slices.Values(inputs)); !slices.Equal(archived, want) || created != 1 {
				t.Errorf("%s: under the root the operator sees %v archived and %d created, want %v and the merged holding", choice, archived, created, want)
			}
			for _, u := range e.flats("admin", req(acsDelta), 10) {
				if u.Update.Transaction != nil {
					t.Errorf("%s: the ACS delta shows the operator, no stakeholder, %d events", choice, len(u.Update.Transaction.Value.Events))
				}
			}
			// A template filter the update has no contract of sees none of it.
			other := map[string]any{"beginExclusive": before, "endInclusive": after, "verbose": false,
				"updateFormat": ledgerEffects(filter(op, templateFilter(mergeProposalTemplate, false)))}
			for _, u := range e.flats("admin", other, 10) {
				if u.Update.Transaction != nil {
					t.Errorf("%s: a filter on proposals shows the operator %d events", choice, len(u.Update.Transaction.Value.Events))
				}
			}
		}
		arg := merge("30")
		inputs := arg["choiceArg"].(map[string]any)["transfer"].(map[string]any)["inputHoldingCids"].([]string)
		check("b-1", "BatchMergeUtility_BatchMerge", utility, map[string]any{"mergeCalls": []any{map[string]any{"delegationCid": delegation, "choiceArg": map[string]any{"optMergeTransfer": arg}}}}, inputs)
		arg = merge("60")
		inputs = arg["choiceArg"].(map[string]any)["transfer"].(map[string]any)["inputHoldingCids"].([]string)
		check("d-1", "MergeDelegation_Merge", delegation, map[string]any{"optMergeTransfer": arg}, inputs)
	})
}

// templateOf is the template a merge choice is exercised on.
func templateOf(choice string) string {
	if choice == "BatchMergeUtility_BatchMerge" {
		return batchMergeTemplate
	}
	return mergeTemplate
}
