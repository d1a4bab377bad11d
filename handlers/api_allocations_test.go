package handlers_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/google/go-cmp/cmp"
)

// TestRegistryAllocations covers the allocation registry endpoints
// (allocation-instruction-v1.yaml, allocation-v1.yaml), each exchange
// validated against the specs: the factory with its context, the choice
// contexts of a live allocation, and the 404 of an ended one.
func TestRegistryAllocations(t *testing.T) { forEachEngine(t, testRegistryAllocations) }

func testRegistryAllocations(t *testing.T, a *testAPI) {
	_, alicePID := a.user("alice", "100")
	_, bobPID := a.user("bob", "")
	_, venuePID := a.user("venue", "")
	anon := a.as("")
	dso := a.l.DSO()
	now := a.clock.Now()
	spec := ledger.AllocationSpecification{
		Settlement: ledger.SettlementInfo{
			Executor: venuePID, SettlementRef: ledger.Reference{ID: "trade"}, RequestedAt: ledger.FormatTime(now),
			AllocateBefore: ledger.FormatTime(now.Add(time.Hour)), SettleBefore: ledger.FormatTime(now.Add(2 * time.Hour)),
		},
		TransferLegID: "leg0",
		TransferLeg: ledger.TransferLeg{Sender: alicePID, Receiver: bobPID, Amount: coin.MustParse("5"),
			InstrumentID: ledger.InstrumentRef{Admin: dso, ID: ledger.InstrumentID}},
	}
	const factory = "/registry/allocation-instruction/v1/allocation-factory"
	args := func(admin coin.PartyID) map[string]any {
		s := spec
		s.TransferLeg.InstrumentID.Admin = admin
		return map[string]any{"expectedAdmin": admin, "allocation": s, "requestedAt": ledger.FormatTime(now), "inputHoldingCids": []string{},
			"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}}}
	}
	r := anon.do(http.MethodPost, factory, map[string]any{"choiceArguments": args(dso)})
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
		if r := anon.do(http.MethodPost, factory, body); r.Status != http.StatusBadRequest {
			t.Errorf("factory %s = %d %s, want 400", name, r.Status, r.Body)
		}
	}

	res, err := a.l.Allocate(t.Context(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	base := "/registry/allocations/v1/" + string(res.AllocationCID) + "/choice-contexts/"
	for move, keys := range map[string][]string{
		"execute-transfer": {"amulet-rules", "open-round"},
		"withdraw":         {"amulet-rules", "expire-lock", "open-round"},
		"cancel":           {"amulet-rules", "expire-lock", "open-round"},
	} {
		r := anon.do(http.MethodPost, base+move, map[string]any{"meta": map[string]string{}})
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
	if r := anon.do(http.MethodPost, "/registry/allocations/v1/nope/choice-contexts/withdraw", map[string]any{}); r.Status != http.StatusBadRequest {
		t.Errorf("malformed id = %d %s, want 400", r.Status, r.Body)
	}
	if _, err := a.l.MoveAllocation(t.Context(), alicePID, res.AllocationCID, ledger.AllocationWithdraw, ""); err != nil {
		t.Fatal(err)
	}
	if r := anon.do(http.MethodPost, base+"execute-transfer", map[string]any{}); r.Status != http.StatusNotFound {
		t.Errorf("execute-transfer of a withdrawn allocation = %d %s, want 404", r.Status, r.Body)
	}
}
