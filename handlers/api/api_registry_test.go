package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/google/go-cmp/cmp"
)

type choiceContextResp struct {
	ChoiceContextData struct {
		Values map[string]struct {
			Tag   string `json:"tag"`
			Value any    `json:"value"`
		} `json:"values"`
	} `json:"choiceContextData"`
	DisclosedContracts []struct {
		TemplateID       string         `json:"templateId"`
		ContractID       string         `json:"contractId"`
		CreatedEventBlob string         `json:"createdEventBlob"`
		SynchronizerID   string         `json:"synchronizerId"`
		DebugPackageName string         `json:"debugPackageName"`
		DebugPayload     map[string]any `json:"debugPayload"`
		DebugCreatedAt   string         `json:"debugCreatedAt"`
	} `json:"disclosedContracts"`
}

// TestRegistryChoiceContexts covers the transfer-instruction choice-context
// endpoints: every status, the debug fields, and the 409 of a reassignment.
func TestRegistryChoiceContexts(t *testing.T) { handlerstest.ForEachAPI(t, testRegistryChoiceContexts) }

func testRegistryChoiceContexts(t *testing.T, a *handlerstest.API) {
	alice, _ := a.User("alice", "100")
	_, bobPID := a.User("bob", "")
	admin := a.As("admin")
	anon := a.As("")
	exp := a.Clock.Now().Add(time.Hour)
	r := alice.Do(http.MethodPost, "/v0/wallet/token-standard/transfers", createTransferBody(bobPID, "10", exp, "x1"))
	var created tiResult
	r.JSON(t, &created)
	cid := created.Output.TransferInstructionCID
	ti, err := pending.New(a.L).TransferInstructionByID(t.Context(), "", coin.ContractID(cid))
	if err != nil {
		t.Fatal(err)
	}
	base := "/registry/transfer-instruction/v1/"

	for _, move := range []string{"withdraw", "accept", "reject"} {
		t.Run(move+" 200", func(t *testing.T) {
			r := anon.Do(http.MethodPost, base+cid+"/choice-contexts/"+move, map[string]any{"meta": map[string]string{"k": "v"}})
			if r.Status != http.StatusOK {
				t.Fatalf("= %d %s", r.Status, r.Body)
			}
			var cc choiceContextResp
			r.JSON(t, &cc)
			vals := map[string]string{}
			for k, v := range cc.ChoiceContextData.Values {
				vals[k] = v.Tag
			}
			if diff := cmp.Diff(map[string]string{"amulet-rules": "AV_ContractId", "open-round": "AV_ContractId", "expire-lock": "AV_Bool"}, vals); diff != "" {
				t.Errorf("context keys (-want +got):\n%s", diff)
			}
			if cc.ChoiceContextData.Values["expire-lock"].Value != true || cc.ChoiceContextData.Values["amulet-rules"].Value != string(a.L.RulesContractID()) {
				t.Errorf("context = %+v", cc.ChoiceContextData.Values)
			}
			var templates []string
			for _, d := range cc.DisclosedContracts {
				templates = append(templates, d.TemplateID)
				if d.SynchronizerID != a.L.SynchronizerID() || d.CreatedEventBlob == "" || d.DebugPackageName != "splice-amulet" || d.DebugPayload == nil || d.DebugCreatedAt == "" {
					t.Errorf("disclosed = %+v", d)
				}
				if id, tmpl, err := a.L.VerifyBlob(d.CreatedEventBlob); err != nil || string(id) != d.ContractID || tmpl != d.TemplateID {
					t.Errorf("blob of %s: %s %s %v", d.ContractID, id, tmpl, err)
				}
			}
			if diff := cmp.Diff([]string{ledger.TemplateAmuletRules, ledger.TemplateOpenMiningRound, ledger.TemplateLockedAmulet}, templates); diff != "" {
				t.Errorf("disclosed templates (-want +got):\n%s", diff)
			}
			if cc.DisclosedContracts[2].ContractID != string(ti.LockedHoldingCID) {
				t.Errorf("locked amulet = %s, want %s", cc.DisclosedContracts[2].ContractID, ti.LockedHoldingCID)
			}
		})
	}
	t.Run("excludeDebugFields", func(t *testing.T) {
		// The validator's proxy wants a token (any user's).
		r := alice.Do(http.MethodPost, "/api/validator/v0/scan-proxy"+base+cid+"/choice-contexts/withdraw", map[string]any{"excludeDebugFields": true})
		if r.Status != http.StatusOK || strings.Contains(string(r.Body), `"debug`) {
			t.Errorf("= %d %s; want 200 without debug fields", r.Status, r.Body)
		}
	})
	t.Run("errors", func(t *testing.T) {
		unknown := string(coin.NewContractID())
		cases := []struct {
			name, path string
			body       any
			want       int
			msg        string
		}{
			{"malformed id", base + "xyz/choice-contexts/withdraw", map[string]any{}, 400, ""},
			{"malformed body", base + cid + "/choice-contexts/withdraw", "{", 400, ""},
			{"wrong body type", base + cid + "/choice-contexts/withdraw", `{"excludeDebugFields": "yes"}`, 400, ""},
			{"unknown", base + unknown + "/choice-contexts/withdraw", map[string]any{}, 404, "AmuletTransferInstruction '" + unknown + "' not found."},
			{"unknown accept", base + unknown + "/choice-contexts/accept", map[string]any{}, 404, ""},
		}
		for _, c := range cases {
			r := anon.Do(http.MethodPost, c.path, c.body)
			if r.Status != c.want || c.msg != "" && !strings.HasSuffix(r.Error(), c.msg) {
				t.Errorf("%s: = %d %s, want %d %q", c.name, r.Status, r.Body, c.want, c.msg)
			}
		}
	})
	t.Run("reassignment 409", func(t *testing.T) {
		const target = "global-domain::1220feedfeed"
		body := map[string]any{"contract_id": a.L.RulesContractID(), "target_synchronizer_id": target}
		if r := alice.DoOwn(http.MethodPost, "/v0/admin/devnet/reassignments", body); r.Status != http.StatusForbidden {
			t.Errorf("reassign as a user = %d %s, want 403", r.Status, r.Body)
		}
		if r := admin.DoOwn(http.MethodPost, "/v0/admin/devnet/reassignments", body); r.Status != http.StatusOK {
			t.Fatalf("reassign = %d %s", r.Status, r.Body)
		}
		if r := admin.DoOwn(http.MethodPost, "/v0/admin/devnet/reassignments", body); r.Status != http.StatusConflict {
			t.Errorf("reassign twice = %d %s, want 409", r.Status, r.Body)
		}
		for _, move := range []string{"withdraw", "accept", "reject"} {
			r := anon.Do(http.MethodPost, base+cid+"/choice-contexts/"+move, map[string]any{})
			if r.Status != http.StatusConflict || !strings.Contains(r.Error(), "reassigned") {
				t.Errorf("%s during reassignment = %d %s, want 409", move, r.Status, r.Body)
			}
		}
		// The wallet refuses the same instruction alike (issue 22.8).
		if r := alice.DoOwn(http.MethodPost, "/v0/wallet/token-standard/transfers/"+cid+"/withdraw", nil); r.Status != http.StatusConflict || !strings.Contains(r.Error(), "reassigned") {
			t.Errorf("wallet withdraw during reassignment = %d %s, want 409", r.Status, r.Body)
		}
		if r := admin.DoOwn(http.MethodPost, "/v0/admin/devnet/reassignments/"+string(a.L.RulesContractID())+"/complete", nil); r.Status != http.StatusOK {
			t.Fatalf("complete = %d %s", r.Status, r.Body)
		}
		if r := admin.DoOwn(http.MethodPost, "/v0/admin/devnet/reassignments/"+string(a.L.RulesContractID())+"/complete", nil); r.Status != http.StatusNotFound {
			t.Errorf("complete twice = %d %s, want 404", r.Status, r.Body)
		}
		r := anon.Do(http.MethodPost, base+cid+"/choice-contexts/withdraw", map[string]any{})
		var cc choiceContextResp
		r.JSON(t, &cc)
		if r.Status != http.StatusOK || cc.DisclosedContracts[0].SynchronizerID != target {
			t.Errorf("after reassignment = %d %s; want the rules on %s", r.Status, r.Body, target)
		}
	})
	t.Run("finished instruction 404", func(t *testing.T) {
		if r := alice.Do(http.MethodPost, "/v0/wallet/token-standard/transfers/"+cid+"/withdraw", nil); r.Status != http.StatusOK {
			t.Fatalf("withdraw = %d %s", r.Status, r.Body)
		}
		r := anon.Do(http.MethodPost, base+cid+"/choice-contexts/withdraw", map[string]any{})
		if r.Status != http.StatusNotFound || r.Error() != "AmuletTransferInstruction '"+cid+"' not found." {
			t.Errorf("= %d %s", r.Status, r.Body)
		}
	})
}

// TestRegistryTransferFactory covers getTransferFactory.
func TestRegistryTransferFactory(t *testing.T) {
	handlerstest.ForEachAPI(t, testRegistryTransferFactory)
}

func testRegistryTransferFactory(t *testing.T, a *handlerstest.API) {
	_, alicePID := a.User("alice", "100")
	_, bobPID := a.User("bob", "")
	anon := a.As("")
	args := func(sender, receiver coin.PartyID, admin string) map[string]any {
		return map[string]any{
			"expectedAdmin": admin,
			"transfer": map[string]any{
				"sender": sender, "receiver": receiver, "amount": "5.0000000000",
				"instrumentId":     map[string]any{"admin": admin, "id": "Amulet"},
				"requestedAt":      ledger.FormatTime(a.Clock.Now()),
				"executeBefore":    ledger.FormatTime(a.Clock.Now().Add(time.Hour)),
				"inputHoldingCids": []string{}, "meta": map[string]any{"values": map[string]string{}},
			},
			"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
		}
	}
	dso := string(a.L.DSO())
	const path = "/registry/transfer-instruction/v1/transfer-factory"
	for _, c := range []struct {
		name             string
		sender, receiver coin.PartyID
		kind             string
	}{{"offer", alicePID, bobPID, "offer"}, {"self", alicePID, alicePID, "self"}} {
		t.Run(c.name, func(t *testing.T) {
			r := anon.Do(http.MethodPost, path, map[string]any{"choiceArguments": args(c.sender, c.receiver, dso)})
			var f struct {
				FactoryID     string            `json:"factoryId"`
				TransferKind  string            `json:"transferKind"`
				ChoiceContext choiceContextResp `json:"choiceContext"`
			}
			r.JSON(t, &f)
			if r.Status != http.StatusOK || f.TransferKind != c.kind || f.FactoryID == "" {
				t.Fatalf("= %d %s", r.Status, r.Body)
			}
			if len(f.ChoiceContext.DisclosedContracts) != 3 || f.ChoiceContext.DisclosedContracts[0].TemplateID != ledger.TemplateExternalPartyRule ||
				f.ChoiceContext.DisclosedContracts[0].ContractID != f.FactoryID {
				t.Errorf("disclosed = %+v", f.ChoiceContext.DisclosedContracts)
			}
		})
	}
	// A remembered answer's JSON is kept (getTransferFactory), each with
	// or without the debug fields as asked, and none outlives its answer:
	// once bob has a preapproval the kind is direct.
	t.Run("kept", func(t *testing.T) {
		ask := func(exclude bool) string {
			r := anon.Do(http.MethodPost, path, map[string]any{"choiceArguments": args(alicePID, bobPID, dso), "excludeDebugFields": exclude})
			if r.Status != http.StatusOK {
				t.Fatalf("= %d %s", r.Status, r.Body)
			}
			return string(r.Body)
		}
		debug, plain := ask(false), ask(true)
		if !strings.Contains(debug, `"debugPayload"`) || strings.Contains(plain, `"debugPayload"`) {
			t.Fatalf("with debug fields:\n%s\nwithout:\n%s", debug, plain)
		}
		if again := ask(false); again != debug {
			t.Errorf("asked again with debug fields:\n%s\nfirst:\n%s", again, debug)
		}
		if again := ask(true); again != plain {
			t.Errorf("asked again without debug fields:\n%s\nfirst:\n%s", again, plain)
		}
		if _, _, err := a.L.Preapprovals().Create(t.Context(), bobPID); err != nil {
			t.Fatal(err)
		}
		for _, exclude := range []bool{true, false} {
			if got := ask(exclude); !strings.Contains(got, `"transferKind":"direct"`) {
				t.Errorf("after bob's preapproval (excludeDebugFields %v): %s", exclude, got)
			}
		}
	})
	for _, c := range []struct {
		name string
		body any
	}{
		{"no choiceArguments", map[string]any{}},
		{"malformed", "{"},
		{"no transfer", map[string]any{"choiceArguments": map[string]any{}}},
		{"bad party", map[string]any{"choiceArguments": args("x", bobPID, dso)}},
		{"other instrument", map[string]any{"choiceArguments": args(alicePID, bobPID, "other::1220")}},
	} {
		if r := anon.Do(http.MethodPost, path, c.body); r.Status != http.StatusBadRequest {
			t.Errorf("%s = %d %s, want 400", c.name, r.Status, r.Body)
		}
	}
}

// TestRegistryMetadata covers the token-metadata endpoints.
func TestRegistryMetadata(t *testing.T) { handlerstest.ForEachAPI(t, testRegistryMetadata) }

func testRegistryMetadata(t *testing.T, a *handlerstest.API) {
	a.User("alice", "100")
	a.User("bob", "23.5")
	anon := a.As("")
	r := anon.Do(http.MethodGet, "/registry/metadata/v1/info", nil)
	var info struct {
		AdminID       string         `json:"adminId"`
		SupportedApis map[string]int `json:"supportedApis"`
	}
	r.JSON(t, &info)
	if r.Status != 200 || info.AdminID != string(a.L.DSO()) || info.SupportedApis["splice-api-token-transfer-instruction-v1"] != 1 {
		t.Errorf("info = %d %s", r.Status, r.Body)
	}
	type instrument struct {
		ID, Name, Symbol, TotalSupply, TotalSupplyAsOf string
		Decimals                                       int
	}
	r = anon.Do(http.MethodGet, "/registry/metadata/v1/instruments/Amulet", nil)
	var in instrument
	r.JSON(t, &in)
	want := instrument{ID: "Amulet", Name: "Amulet", Symbol: "CC", TotalSupply: "123.5000000000", Decimals: 10, TotalSupplyAsOf: ledger.FormatTime(a.Clock.Now())}
	if diff := cmp.Diff(want, in); r.Status != 200 || diff != "" {
		t.Errorf("instrument = %d (-want +got):\n%s", r.Status, diff)
	}
	if r := anon.Do(http.MethodGet, "/registry/metadata/v1/instruments/Bitcoin", nil); r.Status != 404 {
		t.Errorf("unknown instrument = %d", r.Status)
	}
	for _, c := range []struct {
		query string
		n     int
		next  string
		want  int
	}{{"", 1, "", 200}, {"?pageSize=1", 1, "", 200}, {"?pageToken=Amulet", 0, "", 200}, {"?pageSize=0", 0, "", 400}, {"?pageSize=x", 0, "", 400}} {
		r := anon.Do(http.MethodGet, "/registry/metadata/v1/instruments"+c.query, nil)
		var l struct {
			Instruments   []instrument `json:"instruments"`
			NextPageToken string       `json:"nextPageToken"`
		}
		if r.Status != c.want {
			t.Errorf("list%s = %d %s, want %d", c.query, r.Status, r.Body, c.want)
			continue
		}
		if r.Status == 200 {
			r.JSON(t, &l)
			if len(l.Instruments) != c.n || l.NextPageToken != c.next {
				t.Errorf("list%s = %s", c.query, r.Body)
			}
		}
	}
}

// TestRegistryAfterAdvanceRounds: right after a developer's jump of 1 and
// of n rounds every registry choice context and the transfer factory (of
// each kind) answer 200 and name the round the wallet uses (issue 22.2;
// they answered 404 "No open usable OpenMiningRound found." until the wall
// clock reached the jumped-to round's start).
func TestRegistryAfterAdvanceRounds(t *testing.T) {
	handlerstest.ForEachAPI(t, testRegistryAfterAdvanceRounds)
}

func testRegistryAfterAdvanceRounds(t *testing.T, a *handlerstest.API) {
	alice, alicePID := a.User("alice", "100")
	_, bobPID := a.User("bob", "")
	_, carolPID := a.User("carol", "")
	if _, _, err := a.L.Preapprovals().Create(t.Context(), carolPID); err != nil {
		t.Fatal(err)
	}
	admin, anon := a.As("admin"), a.As("")
	r := alice.Do(http.MethodPost, "/v0/wallet/token-standard/transfers", createTransferBody(bobPID, "10", a.Clock.Now().Add(24*time.Hour), "jump"))
	var created tiResult
	r.JSON(t, &created)
	cid := created.Output.TransferInstructionCID
	dso := string(a.L.DSO())
	factory := func(receiver coin.PartyID) map[string]any {
		return map[string]any{"choiceArguments": map[string]any{
			"expectedAdmin": dso,
			"transfer": map[string]any{
				"sender": alicePID, "receiver": receiver, "amount": "1.0000000000",
				"instrumentId": map[string]any{"admin": dso, "id": "Amulet"},
			},
		}}
	}
	for _, n := range []int{1, 7} {
		if r := admin.DoOwn(http.MethodPost, "/v0/admin/devnet/advance-rounds", map[string]any{"rounds": n}); r.Status != http.StatusOK {
			t.Fatalf("advance %d = %d %s", n, r.Status, r.Body)
		}
		var bal struct {
			Round int64 `json:"round"`
		}
		alice.Do(http.MethodGet, "/v0/wallet/balance", nil).JSON(t, &bal)
		rs, err := a.L.Rounds().OpenRounds(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var want string
		for _, r := range rs {
			if int64(r.Number) == bal.Round {
				want = string(r.ContractID)
			}
		}
		if want == "" || bal.Round != int64(rs[len(rs)-1].Number) {
			t.Fatalf("after %d: the wallet uses round %d, open are %+v", n, bal.Round, rs)
		}
		calls := map[string]handlerstest.APIResponse{}
		for _, move := range []string{"accept", "reject", "withdraw"} {
			calls[move] = anon.Do(http.MethodPost, "/registry/transfer-instruction/v1/"+cid+"/choice-contexts/"+move, map[string]any{})
		}
		for name, receiver := range map[string]coin.PartyID{"factory offer": bobPID, "factory direct": carolPID, "factory self": alicePID} {
			calls[name] = anon.Do(http.MethodPost, "/registry/transfer-instruction/v1/transfer-factory", factory(receiver))
		}
		for name, r := range calls {
			var body struct {
				choiceContextResp
				ChoiceContext choiceContextResp `json:"choiceContext"`
			}
			r.JSON(t, &body)
			vals := body.ChoiceContextData.Values
			if strings.HasPrefix(name, "factory") {
				vals = body.ChoiceContext.ChoiceContextData.Values
			}
			if r.Status != http.StatusOK || vals["open-round"].Value != want {
				t.Errorf("after advancing %d: %s = %d %s; want 200 naming round %d (%s)", n, name, r.Status, r.Body, bal.Round, want)
			}
		}
	}
}
