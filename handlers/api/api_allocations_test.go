package api_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/google/go-cmp/cmp"
)

// TestRegistryAllocations covers the allocation registry endpoints
// (allocation-instruction-v1.yaml, allocation-v1.yaml), each exchange
// validated against the specs: the factory with its context, the choice
// contexts of a live allocation, and the 404 of an ended one.
func TestRegistryAllocations(t *testing.T) { handlerstest.ForEachAPI(t, testRegistryAllocations) }

func testRegistryAllocations(t *testing.T, a *handlerstest.API) {
	_, alicePID := a.User("alice", "100")
	_, bobPID := a.User("bob", "")
	_, venuePID := a.User("venue", "")
	anon := a.As("")
	dso := a.L.DSO()
	now := a.Clock.Now()
	spec := allocationdata.AllocationSpecification{
		Settlement: allocationdata.SettlementInfo{
			Executor: venuePID, SettlementRef: allocationdata.Reference{ID: "trade"}, RequestedAt: ledger.FormatTime(now),
			AllocateBefore: ledger.FormatTime(now.Add(time.Hour)), SettleBefore: ledger.FormatTime(now.Add(2 * time.Hour)),
		},
		TransferLegID: "leg0",
		TransferLeg: allocationdata.TransferLeg{Sender: alicePID, Receiver: bobPID, Amount: coin.MustParse("5"),
			InstrumentID: ledger.InstrumentRef{Admin: dso, ID: ledger.InstrumentID}},
	}
	const factory = "/registry/allocation-instruction/v1/allocation-factory"
	args := func(admin coin.PartyID) map[string]any {
		s := spec
		s.TransferLeg.InstrumentID.Admin = admin
		return map[string]any{"expectedAdmin": admin, "allocation": s, "requestedAt": ledger.FormatTime(now), "inputHoldingCids": []string{},
			"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}}}
	}
	r := anon.Do(http.MethodPost, factory, map[string]any{"choiceArguments": args(dso)})
	var f struct {
		FactoryID     string            `json:"factoryId"`
		ChoiceContext choiceContextResp `json:"choiceContext"`
	}
	r.JSON(t, &f)
	if r.Status != http.StatusOK || f.FactoryID == "" {
		t.Fatalf("factory = %d %s", r.Status, r.Body)
	}
	var templates []string
	for _, d := range f.ChoiceContext.DisclosedContracts {
		templates = append(templates, d.TemplateID)
	}
	if diff := cmp.Diff([]string{ledger.TemplateExternalPartyRule, ledger.TemplateAmuletRules, ledger.TemplateOpenMiningRound}, templates); diff != "" {
		t.Errorf("factory disclosed (-want +got):\n%s", diff)
	}
	for name, body := range map[string]any{
		"no choiceArguments": map[string]any{}, "no allocation": map[string]any{"choiceArguments": map[string]any{}},
		"other instrument": map[string]any{"choiceArguments": args("other::1220")},
	} {
		if r := anon.Do(http.MethodPost, factory, body); r.Status != http.StatusBadRequest {
			t.Errorf("factory %s = %d %s, want 400", name, r.Status, r.Body)
		}
	}

	res, err := allocations.New(a.L).Allocate(t.Context(), spec, commands.Command{})
	if err != nil {
		t.Fatal(err)
	}
	base := "/registry/allocations/v1/" + string(res.AllocationCID) + "/choice-contexts/"
	for move, keys := range map[string][]string{
		"execute-transfer": {"amulet-rules", "open-round"},
		"withdraw":         {"amulet-rules", "expire-lock", "open-round"},
		"cancel":           {"amulet-rules", "expire-lock", "open-round"},
	} {
		r := anon.Do(http.MethodPost, base+move, map[string]any{"meta": map[string]string{}})
		var cc choiceContextResp
		r.JSON(t, &cc)
		if r.Status != http.StatusOK {
			t.Fatalf("%s = %d %s", move, r.Status, r.Body)
		}
		var got, disclosed []string
		for k := range cc.ChoiceContextData.Values {
			got = append(got, k)
		}
		slices.Sort(got)
		for _, d := range cc.DisclosedContracts {
			disclosed = append(disclosed, d.TemplateID)
		}
		if diff := cmp.Diff(keys, got); diff != "" {
			t.Errorf("%s context keys (-want +got):\n%s", move, diff)
		}
		if diff := cmp.Diff([]string{ledger.TemplateAmuletRules, ledger.TemplateOpenMiningRound, ledger.TemplateLockedAmulet}, disclosed); diff != "" {
			t.Errorf("%s disclosed (-want +got):\n%s", move, diff)
		}
	}
	if r := anon.Do(http.MethodPost, "/registry/allocations/v1/nope/choice-contexts/withdraw", map[string]any{}); r.Status != http.StatusBadRequest {
		t.Errorf("malformed id = %d %s, want 400", r.Status, r.Body)
	}
	if _, err := allocations.New(a.L).MoveAllocation(t.Context(), alicePID, res.AllocationCID, allocationdata.AllocationWithdraw, commands.Command{}); err != nil {
		t.Fatal(err)
	}
	if r := anon.Do(http.MethodPost, base+"execute-transfer", map[string]any{}); r.Status != http.StatusNotFound {
		t.Errorf("execute-transfer of a withdrawn allocation = %d %s, want 404", r.Status, r.Body)
	}
}

// TestWalletAllocations covers the wallet's allocation endpoints
// (wallet-internal.yaml) on both engines, every exchange validated
// against the spec: allocate (coin locked), list, withdraw (coin back),
// the refusals, and the allocation requests of a trade with their
// rejection.
func TestWalletAllocations(t *testing.T) { handlerstest.ForEachAPI(t, testWalletAllocations) }

func testWalletAllocations(t *testing.T, a *handlerstest.API) {
	alice, alicePID := a.User("alice", "100")
	bob, bobPID := a.User("bob", "")
	_, venuePID := a.User("venue", "")
	now := a.Clock.Now()
	req := func(amount string, allocateBefore time.Time) map[string]any {
		return map[string]any{
			"settlement": map[string]any{"executor": venuePID, "settlement_ref": map[string]any{"id": "trade-7"},
				"requested_at": now.UnixMicro(), "allocate_before": allocateBefore.UnixMicro(), "settle_before": now.Add(2 * time.Hour).UnixMicro()},
			"transfer_leg_id": "leg0", "transfer_leg": map[string]any{"receiver": bobPID, "amount": amount},
		}
	}
	var created struct {
		Output struct {
			AllocationCID string `json:"allocation_cid"`
		} `json:"output"`
	}
	r := alice.Do(http.MethodPost, "/v0/allocations", req("40", now.Add(time.Hour)))
	r.JSON(t, &created)
	if r.Status != http.StatusOK || created.Output.AllocationCID == "" {
		t.Fatalf("allocate = %d %s", r.Status, r.Body)
	}
	for name, body := range map[string]any{
		"too late":      req("40", now),
		"zero":          req("0", now.Add(time.Hour)),
		"too much":      req("1000", now.Add(time.Hour)),
		"no settlement": map[string]any{"transfer_leg_id": "x", "transfer_leg": map[string]any{"receiver": bobPID, "amount": "1"}},
	} {
		if r := alice.Do(http.MethodPost, "/v0/allocations", body); r.Status < 400 || r.Status >= 500 {
			t.Errorf("allocate %s = %d %s, want a 4xx", name, r.Status, r.Body)
		}
	}
	b, _ := a.L.Balance(t.Context(), alicePID)
	if b.EffectiveUnlocked.String() != "60.0000000000" || b.EffectiveLocked.String() != "40.0000000000" {
		t.Errorf("after allocating: unlocked %s locked %s", b.EffectiveUnlocked, b.EffectiveLocked)
	}
	var list struct {
		Allocations []struct {
			Contract struct {
				ContractID string `json:"contract_id"`
				TemplateID string `json:"template_id"`
			} `json:"contract"`
		} `json:"allocations"`
	}
	alice.Do(http.MethodGet, "/v0/allocations", nil).JSON(t, &list)
	if len(list.Allocations) != 1 || list.Allocations[0].Contract.ContractID != created.Output.AllocationCID || list.Allocations[0].Contract.TemplateID != allocationdata.TemplateAmuletAllocation {
		t.Errorf("alice's allocations = %+v", list)
	}
	bob.Do(http.MethodGet, "/v0/allocations", nil).JSON(t, &list)
	if len(list.Allocations) != 0 {
		t.Errorf("bob (the receiver) lists %d allocations, want none", len(list.Allocations))
	}
	if r := bob.Do(http.MethodPost, "/v0/allocations/"+created.Output.AllocationCID+"/withdraw", nil); r.Status != http.StatusNotFound {
		t.Errorf("bob withdraws = %d %s, want 404", r.Status, r.Body)
	}
	if r := alice.Do(http.MethodPost, "/v0/allocations/"+created.Output.AllocationCID+"/withdraw", nil); r.Status != http.StatusOK {
		t.Fatalf("withdraw = %d %s", r.Status, r.Body)
	}
	if r := alice.Do(http.MethodPost, "/v0/allocations/"+created.Output.AllocationCID+"/withdraw", nil); r.Status != http.StatusNotFound {
		t.Errorf("withdraw twice = %d %s, want 404", r.Status, r.Body)
	}
	b, _ = a.L.Balance(t.Context(), alicePID)
	if b.EffectiveUnlocked.String() != "100.0000000000" || b.EffectiveLocked.String() != "0.0000000000" {
		t.Errorf("after withdrawing: unlocked %s locked %s", b.EffectiveUnlocked, b.EffectiveLocked)
	}

	// A trade's allocation request: listed for its traders, rejected by
	// a sender.
	cc := ledger.InstrumentRef{Admin: a.L.DSO(), ID: ledger.InstrumentID}
	legs := map[string]allocationdata.TransferLeg{"leg0": {Sender: alicePID, Receiver: bobPID, Amount: coin.MustParse("5"), InstrumentID: cc}}
	prop, err := allocations.New(a.L).ProposeTrade(t.Context(), []coin.PartyID{alicePID, bobPID}, allocationdata.OTCTradeProposal{Venue: venuePID, TransferLegs: legs, Approvers: []coin.PartyID{alicePID, bobPID}}, commands.Command{})
	if err != nil {
		t.Fatal(err)
	}
	trade, err := allocations.New(a.L).InitiateTradeSettlement(t.Context(), []coin.PartyID{venuePID}, prop.Created,
		ledger.FormatTime(now.Add(time.Hour)), ledger.FormatTime(now.Add(2*time.Hour)), commands.Command{})
	if err != nil {
		t.Fatal(err)
	}
	var reqs struct {
		AllocationRequests []struct {
			Contract struct {
				ContractID string `json:"contract_id"`
			} `json:"contract"`
		} `json:"allocation_requests"`
	}
	bob.Do(http.MethodGet, "/v0/wallet/token-standard/allocation-requests", nil).JSON(t, &reqs)
	if len(reqs.AllocationRequests) != 1 || reqs.AllocationRequests[0].Contract.ContractID != string(trade.Created) {
		t.Fatalf("bob's allocation requests = %+v", reqs)
	}
	path := "/v0/wallet/token-standard/allocation-requests/" + string(trade.Created) + "/reject"
	if r := bob.Do(http.MethodPost, path, nil); r.Status != http.StatusNotFound {
		t.Errorf("bob (a receiver only) rejects = %d %s, want 404", r.Status, r.Body)
	}
	if r := alice.Do(http.MethodPost, path, nil); r.Status != http.StatusOK {
		t.Fatalf("alice rejects = %d %s", r.Status, r.Body)
	}
	alice.Do(http.MethodGet, "/v0/wallet/token-standard/allocation-requests", nil).JSON(t, &reqs)
	if len(reqs.AllocationRequests) != 0 {
		t.Errorf("after rejection alice lists %d requests", len(reqs.AllocationRequests))
	}
}
