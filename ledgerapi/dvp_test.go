package ledgerapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
)

const (
	proposalTemplate  = "#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTradeProposal"
	tradeTemplate     = "#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTrade"
	allocFactoryIface = "#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory"
	allocationIface   = "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation"
	allocRequestIface = "#splice-api-token-allocation-request-v1:Splice.Api.Token.AllocationRequestV1:AllocationRequest"
)

// command submits one command (an ExerciseCommand or CreateCommand
// object) as user acting as actAs through submit-and-wait-for-transaction
// and returns the status and body.
func (e *env) command(user, commandID string, actAs coin.PartyID, cmd map[string]any, disclose []map[string]any) (int, []byte) {
	e.t.Helper()
	if disclose == nil {
		disclose = []map[string]any{}
	}
	req := map[string]any{"commands": map[string]any{
		"commands": []any{cmd}, "commandId": commandID, "actAs": []coin.PartyID{actAs}, "disclosedContracts": disclose,
	}}
	resp, err := e.as(user).PostV2CommandsSubmitAndWaitForTransactionWithBodyWithResponse(context.Background(), jsonType, body(e.t, req))
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode(), resp.Body
}

func exercise(templateID, cid, choice string, arg any) map[string]any {
	return map[string]any{"ExerciseCommand": map[string]any{"templateId": templateID, "contractId": cid, "choice": choice, "choiceArgument": arg}}
}

// mustCommand is command that must succeed.
func (e *env) mustCommand(user, commandID string, actAs coin.PartyID, cmd map[string]any, disclose []map[string]any) {
	e.t.Helper()
	if code, b := e.command(user, commandID, actAs, cmd, disclose); code != http.StatusOK {
		e.t.Fatalf("%s by %s: %d %s", commandID, user, code, b)
	}
}

// only returns the one contract of cs, failing otherwise.
func only(t *testing.T, what string, cs []createdEvent) createdEvent {
	t.Helper()
	if len(cs) != 1 {
		t.Fatalf("%s: %d contracts, want 1", what, len(cs))
	}
	return cs[0]
}

func emptyExtra() map[string]any {
	return map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}}
}

// TestDvPFlow is flow (b) of issue 25, only through the Ledger API and
// the registry, on both engines, every exchange validated against the
// specs: alice proposes an OTC trade of coin with bob at a venue, bob
// approves, the venue initiates settlement; both read the trade through
// the AllocationRequest interface and allocate through
// AllocationFactory_Allocate with the registry's choice context; the
// venue finds the allocations through the Allocation interface and
// settles with OTCTrade_Settle, executing both. Balances are exact; a
// repeated command is DUPLICATE_COMMAND; an allocation whose settlement
// deadline passes returns its coin.
func TestDvPFlow(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice, bob, venue := e.user("alice", "100"), e.user("bob", "100"), e.user("venue", "")
		dso := e.l.DSO()
		cc := map[string]any{"admin": dso, "id": "Amulet"}
		legs := map[string]any{
			"leg0": map[string]any{"sender": alice, "receiver": bob, "amount": "30.0000000000", "instrumentId": cc, "meta": map[string]any{"values": map[string]any{}}},
			"leg1": map[string]any{"sender": bob, "receiver": alice, "amount": "12.5", "instrumentId": cc, "meta": map[string]any{"values": map[string]any{}}},
		}
		e.mustCommand("alice", "propose", alice, map[string]any{"CreateCommand": map[string]any{"templateId": proposalTemplate,
			"createArguments": map[string]any{"venue": venue, "tradeCid": nil, "transferLegs": legs, "approvers": []coin.PartyID{alice}}}}, nil)
		if code, b := e.command("alice", "propose", alice, map[string]any{"CreateCommand": map[string]any{"templateId": proposalTemplate,
			"createArguments": map[string]any{"venue": venue, "tradeCid": nil, "transferLegs": legs, "approvers": []coin.PartyID{alice}}}}, nil); code != http.StatusConflict {
			t.Errorf("repeated propose = %d %s, want 409 DUPLICATE_COMMAND", code, b)
		}
		prop := only(t, "bob's proposals", e.acs("bob", filter(bob, templateFilter(proposalTemplate, false)), e.ledgerEnd()))
		if len(prop.Signatories) != 1 || prop.Signatories[0] != string(alice) || len(prop.Observers) != 2 {
			t.Errorf("proposal signatories %v observers %v", prop.Signatories, prop.Observers)
		}
		e.mustCommand("bob", "accept", bob, exercise(proposalTemplate, prop.ContractID, "OTCTradeProposal_Accept", map[string]any{"approver": bob}), nil)
		prop = only(t, "venue's proposals", e.acs("venue", filter(venue, templateFilter(proposalTemplate, false)), e.ledgerEnd()))
		now := e.clock.Now()
		e.mustCommand("venue", "initiate", venue, exercise(proposalTemplate, prop.ContractID, "OTCTradeProposal_InitiateSettlement", map[string]any{
			"prepareUntil": now.Add(time.Hour).Format(time.RFC3339Nano), "settleBefore": now.Add(2 * time.Hour).Format(time.RFC3339Nano)}), nil)

		// Each trader reads the request and allocates its leg.
		for _, tr := range []struct {
			user  string
			party coin.PartyID
			leg   string
		}{{"alice", alice, "leg0"}, {"bob", bob, "leg1"}} {
			req := only(t, tr.user+"'s allocation requests", e.acs(tr.user, filter(tr.party, interfaceFilter(allocRequestIface, true, false)), e.ledgerEnd()))
			if len(req.InterfaceViews) != 1 || templateSuffix(req.TemplateID) != templateSuffix(tradeTemplate) {
				t.Fatalf("allocation request %+v", req)
			}
			var view struct {
				Settlement   json.RawMessage            `json:"settlement"`
				TransferLegs map[string]json.RawMessage `json:"transferLegs"`
			}
			if err := json.Unmarshal(req.InterfaceViews[0].ViewValue, &view); err != nil {
				t.Fatal(err)
			}
			alloc := map[string]any{"settlement": view.Settlement, "transferLegId": tr.leg, "transferLeg": view.TransferLegs[tr.leg]}
			arg := map[string]any{"expectedAdmin": dso, "allocation": alloc, "requestedAt": now.Format(time.RFC3339Nano), "inputHoldingCids": []string{}, "extraArgs": emptyExtra()}
			var factory struct {
				FactoryID     string        `json:"factoryId"`
				ChoiceContext choiceContext `json:"choiceContext"`
			}
			e.registryAt("/registry/allocation-instruction/v1/allocation-factory", map[string]any{"choiceArguments": arg}, &factory)
			arg["extraArgs"] = map[string]any{"context": factory.ChoiceContext.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}
			_, res := e.rootResult(tr.user, "allocate-"+tr.leg, tr.party, exercise(allocFactoryIface, factory.FactoryID, "AllocationFactory_Allocate", arg), disclosed(factory.ChoiceContext))
			if cid, _ := resultAt(res, "output", "value", "allocationCid").(string); resultAt(res, "output", "tag") != "AllocationInstructionResult_Completed" || cid == "" {
				t.Errorf("%s's allocation's result: %v", tr.user, res)
			}
		}

		// The venue finds both allocations and settles.
		trade := only(t, "venue's trades", e.acs("venue", filter(venue, templateFilter(tradeTemplate, false)), e.ledgerEnd()))
		allocs := e.acs("venue", filter(venue, interfaceFilter(allocationIface, true, false)), e.ledgerEnd())
		if len(allocs) != 2 {
			t.Fatalf("venue sees %d allocations, want 2", len(allocs))
		}
		withContext := map[string]any{}
		var disclose []map[string]any
		for _, a := range allocs {
			var view struct {
				Allocation struct {
					TransferLegID string `json:"transferLegId"`
				} `json:"allocation"`
			}
			if err := json.Unmarshal(a.InterfaceViews[0].ViewValue, &view); err != nil {
				t.Fatal(err)
			}
			var ctxt choiceContext
			e.registryAt("/registry/allocations/v1/"+a.ContractID+"/choice-contexts/execute-transfer", map[string]any{"meta": map[string]any{}}, &ctxt)
			withContext[view.Allocation.TransferLegID] = map[string]any{"_1": a.ContractID,
				"_2": map[string]any{"context": ctxt.ChoiceContextData, "meta": map[string]any{"values": map[string]any{}}}}
			disclose = append(disclose, disclosed(ctxt)...)
		}
		settle := exercise(tradeTemplate, trade.ContractID, "OTCTrade_Settle", map[string]any{"allocationsWithContext": withContext})
		if code, b := e.command("alice", "settle", alice, settle, disclose); code != http.StatusForbidden {
			t.Errorf("alice settles = %d %s, want 403", code, b)
		}
		e.mustCommand("venue", "settle", venue, settle, disclose)
		if code, b := e.command("venue", "settle", venue, settle, disclose); code != http.StatusConflict {
			t.Errorf("repeated settle = %d %s, want 409", code, b)
		}
		wantBalance(t, e, alice, "82.5000000000", "0.0000000000")
		wantBalance(t, e, bob, "117.5000000000", "0.0000000000")
		if left := e.acs("venue", filter(venue, interfaceFilter(allocationIface, true, false), templateFilter(tradeTemplate, false)), e.ledgerEnd()); len(left) != 0 {
			t.Errorf("after settlement the venue still sees %d contracts", len(left))
		}

		// An allocation left until its settlement deadline returns its coin.
		now = e.clock.Now()
		alloc := map[string]any{
			"settlement": map[string]any{"executor": venue, "settlementRef": map[string]any{"id": "late", "cid": nil},
				"requestedAt": now.Format(time.RFC3339Nano), "allocateBefore": now.Add(time.Minute).Format(time.RFC3339Nano),
				"settleBefore": now.Add(time.Hour).Format(time.RFC3339Nano), "meta": map[string]any{"values": map[string]any{}}},
			"transferLegId": "leg0", "transferLeg": legs["leg0"],
		}
		arg := map[string]any{"expectedAdmin": dso, "allocation": alloc, "requestedAt": now.Format(time.RFC3339Nano), "inputHoldingCids": []string{}, "extraArgs": emptyExtra()}
		var factory struct {
			FactoryID     string        `json:"factoryId"`
			ChoiceContext choiceContext `json:"choiceContext"`
		}
		e.registryAt("/registry/allocation-instruction/v1/allocation-factory", map[string]any{"choiceArguments": arg}, &factory)
		// Another party's holding named as an input is refused, as the
		// transfer factory refuses it (issue 38's rerun: it was ignored).
		var bobHolding string
		for _, h := range e.acs("bob", filter(bob, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()) {
			bobHolding = h.ContractID
		}
		arg["inputHoldingCids"] = []string{bobHolding}
		if code, b := e.command("alice", "allocate-bobs", alice, exercise(allocFactoryIface, factory.FactoryID, "AllocationFactory_Allocate", arg), disclosed(factory.ChoiceContext)); code < 400 ||
			!strings.Contains(string(b), "another party's holding") {
			t.Errorf("an allocation naming bob's holding as input: %d %s, want a refusal", code, b)
		}
		arg["inputHoldingCids"] = []string{}
		e.mustCommand("alice", "allocate-late", alice, exercise(allocFactoryIface, factory.FactoryID, "AllocationFactory_Allocate", arg), disclosed(factory.ChoiceContext))
		wantBalance(t, e, alice, "52.5000000000", "30.0000000000")
		e.clock.Advance(2 * time.Hour)
		if n, err := e.w.Allocations.ExpireAllocations(context.Background()); err != nil || n != 1 {
			t.Fatalf("expired %d, %v; want 1", n, err)
		}
		wantBalance(t, e, alice, "82.5000000000", "0.0000000000")
		if left := e.acs("alice", filter(alice, interfaceFilter(allocationIface, true, false)), e.ledgerEnd()); len(left) != 0 {
			t.Errorf("alice still sees %d allocations after expiry", len(left))
		}
	})
}

func wantBalance(t *testing.T, e *env, p coin.PartyID, unlocked, locked string) {
	t.Helper()
	b, err := e.l.Balance(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if b.EffectiveUnlocked.String() != unlocked || b.EffectiveLocked.String() != locked {
		t.Errorf("%s: unlocked %s locked %s, want %s %s", p, b.EffectiveUnlocked, b.EffectiveLocked, unlocked, locked)
	}
}

// TestTradeEndings: through the Ledger API, on both engines, a trade ends
// by AllocationRequest_Reject (a sender only; a receiver's reject fails
// the Daml requirement), AllocationRequest_Withdraw (the venue) or
// OTCTrade_Cancel (the venue; the allocated coin returns).
func TestTradeEndings(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob, venue := e.user("alice", "100"), e.user("bob", ""), e.user("venue", "")
		cc := ledger.InstrumentRef{Admin: e.l.DSO(), ID: ledger.InstrumentID}
		legs := map[string]allocationdata.TransferLeg{"leg0": {Sender: alice, Receiver: bob, Amount: coin.MustParse("20"), InstrumentID: cc}}
		trade := func() coin.ContractID {
			t.Helper()
			p, err := e.w.Allocations.ProposeTrade(ctx, []coin.PartyID{alice, bob}, allocationdata.OTCTradeProposal{Venue: venue, TransferLegs: legs, Approvers: []coin.PartyID{alice, bob}}, commands.Command{})
			if err != nil {
				t.Fatal(err)
			}
			now := e.clock.Now()
			tr, err := e.w.Allocations.InitiateTradeSettlement(ctx, []coin.PartyID{venue}, p.Created, ledger.FormatTime(now.Add(time.Hour)), ledger.FormatTime(now.Add(2*time.Hour)), commands.Command{})
			if err != nil {
				t.Fatal(err)
			}
			return tr.Created
		}
		first := string(trade())
		reject := func(actor coin.PartyID) map[string]any {
			return exercise(allocRequestIface, first, "AllocationRequest_Reject", map[string]any{"actor": actor, "extraArgs": emptyExtra()})
		}
		if code, b := e.command("bob", "reject-bob", bob, reject(bob), nil); code != http.StatusBadRequest {
			t.Errorf("bob (a receiver) rejects = %d %s, want 400", code, b)
		}
		e.mustCommand("alice", "reject", alice, reject(alice), nil)

		second := string(trade())
		withdraw := exercise(allocRequestIface, second, "AllocationRequest_Withdraw", map[string]any{"extraArgs": emptyExtra()})
		if code, b := e.command("alice", "withdraw-alice", alice, withdraw, nil); code != http.StatusForbidden {
			t.Errorf("alice withdraws the request = %d %s, want 403", code, b)
		}
		e.mustCommand("venue", "withdraw", venue, withdraw, nil)

		third := trade()
		tc, err := e.w.APIRead.LedgerContractByID(ctx, third)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := apiread.New(e.l).InterfaceView(tc, allocationdata.InterfaceAllocationRequest)
		var req struct {
			Settlement allocationdata.SettlementInfo `json:"settlement"`
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		a, err := e.w.Allocations.Allocate(ctx, allocationdata.AllocationSpecification{Settlement: req.Settlement, TransferLegID: "leg0", TransferLeg: legs["leg0"]}, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		wantBalance(t, e, alice, "80.0000000000", "20.0000000000")
		e.mustCommand("venue", "cancel", venue, exercise(tradeTemplate, string(third), "OTCTrade_Cancel", map[string]any{"allocationsWithContext": map[string]any{
			"leg0": map[string]any{"_1": a.AllocationCID, "_2": emptyExtra()}}}), nil)
		wantBalance(t, e, alice, "100.0000000000", "0.0000000000")
		if left := e.acs("venue", filter(venue, interfaceFilter(allocRequestIface, true, false), interfaceFilter(allocationIface, true, false)), e.ledgerEnd()); len(left) != 0 {
			t.Errorf("the venue still sees %d trades or allocations", len(left))
		}
	})
}
