package ledgerapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/store"
)

// rootResult submits cmd by submit-and-wait-for-transaction as actAs in
// the ledger-effects shape and returns its root exercise's choice and
// exerciseResult.
func (e *env) rootResult(user, commandID string, actAs coin.PartyID, cmd map[string]any, disclose []map[string]any) (string, map[string]any) {
	t := e.t
	t.Helper()
	cmds := map[string]any{"commands": []any{cmd}, "commandId": commandID, "actAs": []coin.PartyID{actAs}}
	if disclose != nil {
		cmds["disclosedContracts"] = disclose
	}
	ef := filter(actAs)
	req := map[string]any{"commands": cmds,
		"transactionFormat": map[string]any{"eventFormat": ef, "transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"}}
	resp, err := e.as(user).PostV2CommandsSubmitAndWaitForTransactionWithBodyWithResponse(context.Background(), jsonType, body(t, req))
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("%s: %v %s", commandID, err, resp.Body)
	}
	var tx struct {
		Transaction struct {
			Events []map[string]json.RawMessage `json:"events"`
		} `json:"transaction"`
	}
	if err := json.Unmarshal(resp.Body, &tx); err != nil || len(tx.Transaction.Events) == 0 {
		t.Fatalf("%s: %v %s", commandID, err, resp.Body)
	}
	var root struct {
		NodeID         int            `json:"nodeId"`
		Choice         string         `json:"choice"`
		ExerciseResult map[string]any `json:"exerciseResult"`
	}
	raw, ok := tx.Transaction.Events[0]["ExercisedEvent"]
	if !ok || json.Unmarshal(raw, &root) != nil || root.NodeID != 0 {
		t.Fatalf("%s: no root exercise in %s", commandID, resp.Body)
	}
	return root.Choice, root.ExerciseResult
}

// resultAt walks m by keys.
func resultAt(m any, keys ...string) any {
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}

// TestCoinExerciseResults: the coin's own choices answer the result
// Splice's Daml returns, not Unit: the tap its AmuletRules_DevNet_TapResult
// (the minted amulet, price, round, mint metadata), the featured app
// right its contract, a traffic purchase and a renewal what they paid
// (the amount burned, the new MemberTraffic and preapproval), a
// cancellation the empty TransferPreapproval_CancelResult, a one-step
// send the TransferResult with the receiver's amulet and the transfer's
// metadata (sender, description as reason), a merge delegation's
// acceptance the delegation, a batch merge the merged holding.
func TestCoinExerciseResults(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		op := e.l.Operator()
		alice, bob := e.user("alice", "1000"), e.user("bob", "")
		disclose, round := e.rulesContext(alice)

		choice, r := e.rootResult("alice", "tap", alice, e.tapCommand(alice, "5", round), disclose)
		amulet, _ := resultAt(r, "amuletSum", "amulet").(string)
		tapped := false
		for _, h := range e.holdingIDs("alice", alice) {
			tapped = tapped || h == amulet
		}
		if choice != "AmuletRules_DevNet_Tap" || !tapped || resultAt(r, "amuletSum", "round", "number") == nil ||
			resultAt(r, "amuletSum", "amuletPrice") != e.currentPrice().String() ||
			resultAt(r, "meta", "values", "splice.lfdecentralizedtrust.org/tx-kind") != "mint" {
			t.Errorf("the tap's result: %s %v", choice, r)
		}

		_, r = e.rootResult("alice", "feature", alice, exercise(rulesTemplate, string(e.l.RulesContractID()), "AmuletRules_DevNet_FeatureApp", map[string]any{"provider": alice}), disclose)
		right := only(t, "alice's featured app right", e.acs("alice", filter(alice, templateFilter("#splice-amulet:Splice.Amulet:FeaturedAppRight", false)), e.ledgerEnd()))
		if resultAt(r, "featuredAppRightCid") != right.ContractID {
			t.Errorf("the featured app right's result %v, want %s", r, right.ContractID)
		}

		cost := e.l.Rules().TrafficCost(200000, e.currentPrice())
		_, r = e.rootResult("alice", "buy", alice, exercise(rulesTemplate, string(e.l.RulesContractID()), "AmuletRules_BuyMemberTraffic", map[string]any{
			"context":  map[string]any{"openMiningRound": round, "issuingMiningRounds": []any{}, "validatorRights": []any{}, "featuredAppRight": nil},
			"inputs":   []any{},
			"provider": alice, "memberId": "PAR::" + e.l.ParticipantID(), "synchronizerId": e.l.SynchronizerID(), "migrationId": 0, "trafficAmount": 200000, "expectedDso": e.l.DSO(),
		}), disclose)
		traffic, _ := resultAt(r, "purchasedTraffic").(string)
		if resultAt(r, "amuletPaid") != cost.String() || traffic == "" ||
			resultAt(r, "senderChangeAmulet") == nil || resultAt(r, "summary", "amuletPrice") == nil ||
			resultAt(r, "meta", "values", "splice.lfdecentralizedtrust.org/burned") != cost.String() {
			t.Errorf("the traffic purchase's result %v, want %s paid for %s", r, cost, traffic)
		}

		ledgertest.Mint(t, e.l, op, "100000")
		pre, _, err := e.l.Preapprovals().Create(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		p, err := provider.New(e.l).Preapproval(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		fee := e.l.Preapprovals().Fee(30*24*time.Hour, e.currentPrice())
		_, r = e.rootResult("admin", "renew", op, exercise(preapprovalTemplate, string(pre), "TransferPreapproval_Renew", map[string]any{
			"context": map[string]any{"context": map[string]any{"openMiningRound": round, "issuingMiningRounds": []any{}, "validatorRights": []any{}, "featuredAppRight": nil},
				"amuletRules": string(e.l.RulesContractID())},
			"inputs": []any{}, "newExpiresAt": p.ExpiresAt.Add(30 * 24 * time.Hour).Format(time.RFC3339Nano),
		}), nil)
		renewed, err := provider.New(e.l).Preapproval(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		if resultAt(r, "transferPreapprovalCid") != string(renewed.ContractID) || resultAt(r, "receiver") != string(bob) || resultAt(r, "provider") != string(op) ||
			resultAt(r, "amuletPaid") != fee.String() || resultAt(r, "transferResult", "senderChangeAmulet") == nil {
			t.Errorf("the renewal's result %v, want %s paid for %s", r, fee, renewed.ContractID)
		}

		choice, r = e.rootResult("alice", "send", alice, preapprovalSend(string(renewed.ContractID), alice, alice, "")["commands"].([]any)[0].(map[string]any), nil)
		bobs := e.holdingIDs("bob", bob)
		created, _ := resultAt(r, "result", "createdAmulets").([]any)
		if choice != "TransferPreapproval_Send" || len(bobs) != 1 || len(created) != 1 || resultAt(created[0], "value") != bobs[0] ||
			resultAt(created[0], "tag") != "TransferResultAmulet" || resultAt(r, "result", "senderChangeAmulet") == nil ||
			resultAt(r, "meta", "values", "splice.lfdecentralizedtrust.org/tx-kind") != "transfer" ||
			resultAt(r, "meta", "values", "splice.lfdecentralizedtrust.org/sender") != string(alice) ||
			resultAt(r, "meta", "values", "splice.lfdecentralizedtrust.org/reason") != "rent" {
			t.Errorf("the one-step send's result %v (bob holds %v)", r, bobs)
		}

		choice, r = e.rootResult("bob", "cancel", bob, exercise(preapprovalTemplate, string(renewed.ContractID), "TransferPreapproval_Cancel", map[string]any{"p": bob}), nil)
		if choice != "TransferPreapproval_Cancel" || r == nil || len(r) != 0 {
			t.Errorf("the cancellation's result %v, want {}", r)
		}

		// Merge delegations.
		x := e.external("xena", "")
		for range 3 {
			ledgertest.Mint(t, e.l, x.party, "10")
		}
		e.mustCommand("admin", "u", op, map[string]any{"CreateCommand": map[string]any{"templateId": batchMergeTemplate, "createArguments": map[string]any{"operator": op}}}, nil)
		utility := only(t, "the utility", e.acs("admin", filter(op, templateFilter(batchMergeTemplate, false)), e.ledgerEnd())).ContractID
		e.run(x, "m", map[string]any{"CreateCommand": map[string]any{"templateId": mergeProposalTemplate, "createArguments": map[string]any{
			"delegation": map[string]any{"operator": op, "owner": x.party, "meta": map[string]any{"values": map[string]any{}}}}}}, nil)
		proposal := only(t, "the proposal", e.acs(x.user, filter(x.party, templateFilter(mergeProposalTemplate, false)), e.ledgerEnd())).ContractID
		_, r = e.rootResult("admin", "accept", op, exercise(mergeProposalTemplate, proposal, "MergeDelegationProposal_Accept", map[string]any{}), nil)
		delegation := only(t, "the delegation", e.acs(x.user, filter(x.party, templateFilter(mergeTemplate, false)), e.ledgerEnd())).ContractID
		if resultAt(r, "mergeDelegationCid") != delegation {
			t.Errorf("the acceptance's result %v, want %s", r, delegation)
		}
		cmd, disc := e.transferCommand(bob, x.party, "1", nil)
		factory := cmd["ExerciseCommand"].(map[string]any)["contractId"].(string)
		// The operator sees no event of the merge (only xena's holdings
		// change), so its stored root exercise is read from the store and
		// shaped as the Ledger API reads it.
		e.mustCommand("admin", "merge", op, exercise(batchMergeTemplate, utility, "BatchMergeUtility_BatchMerge", map[string]any{"mergeCalls": []any{map[string]any{
			"delegationCid": delegation, "choiceArg": map[string]any{"optMergeTransfer": map[string]any{"factoryCid": factory,
				"choiceArg": e.selfTransferArg(x.party, x.party, "30", e.holdingIDs(x.user, x.party))}}}}}), disc)
		end := e.ledgerEnd()
		stored, err := store.CompletionExercises(ctx, e.l.DB(), []int64{end})
		if err != nil {
			t.Fatal(err)
		}
		// What is stored is the facts the result is shaped from, not the
		// result (apiread.ExerciseFacts): a third of the bytes per command.
		if !strings.Contains(stored[end], `"facts":{`) || !strings.Contains(stored[end], `"exerciseResult":null`) {
			t.Errorf("the batch merge's stored exercise holds no facts or a result: %s", stored[end])
		}
		ex := apiread.ParseExercise(stored[end])
		if ex == nil || ex.Choice != "BatchMergeUtility_BatchMerge" {
			t.Fatalf("the batch merge's stored exercise %q", stored[end])
		}
		r = nil
		if err := json.Unmarshal(ex.ExerciseResult, &r); err != nil {
			t.Fatalf("the batch merge's result %s: %v", ex.ExerciseResult, err)
		}
		merged := e.holdingIDs(x.user, x.party)
		results, _ := resultAt(r, "results").([]any)
		if len(merged) != 1 || len(results) != 1 ||
			resultAt(results[0], "optMergeTransferResult", "output", "tag") != "TransferInstructionResult_Completed" {
			t.Fatalf("the batch merge's result %v (xena holds %v)", r, merged)
		}
		if ids, _ := resultAt(results[0], "optMergeTransferResult", "output", "value", "receiverHoldingCids").([]any); len(ids) != 1 || ids[0] != merged[0] {
			t.Errorf("the merge's receiver holdings %v, want %v", ids, merged)
		}
	})
}
