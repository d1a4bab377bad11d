package ledgerapi_test

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/rewards"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/ccwallet/ccwallet/web"
)

// The coin's own choices through the Ledger API, built as the wallet
// SDK (0.20.0) builds them: AmuletRules' choices with AmuletRules and
// the open round disclosed from the registry's transfer-factory context,
// the preapproval's choices on its template, the proposal as a
// CreateCommand; each by a local party (submit-and-wait) and an external
// one (prepare, sign, execute).

const (
	rulesTemplate               = "#splice-amulet:Splice.AmuletRules:AmuletRules"
	preapprovalTemplate         = "#splice-amulet:Splice.AmuletRules:TransferPreapproval"
	preapprovalProposalTemplate = "#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal"
	roundTemplate               = "#splice-amulet:Splice.Round:OpenMiningRound"
)

// rulesContext is what the SDK's createTap discloses: the registry's
// transfer-factory choice context for a transfer from the instrument's
// admin to receiver; and the open round among it.
func (e *env) rulesContext(receiver coin.PartyID) (disclose []map[string]any, openRound string) {
	e.t.Helper()
	dso := e.l.DSO()
	now := e.clock.Now()
	transfer := map[string]any{
		"sender": dso, "receiver": receiver, "amount": "200", "instrumentId": map[string]any{"admin": dso, "id": "Amulet"}, "lock": nil,
		"requestedAt": now.Add(-time.Minute).Format(time.RFC3339Nano), "executeBefore": now.Add(24 * time.Hour).Format(time.RFC3339Nano),
		"inputHoldingCids": []string{}, "meta": map[string]any{"values": map[string]any{}},
	}
	var factory struct {
		ChoiceContext choiceContext `json:"choiceContext"`
	}
	e.registry("/transfer-factory", map[string]any{"choiceArguments": map[string]any{"expectedAdmin": dso, "transfer": transfer, "extraArgs": emptyExtra()}}, &factory)
	disclose = disclosed(factory.ChoiceContext)
	var rules bool
	for _, d := range disclose {
		switch d["templateId"] {
		case roundTemplate:
			openRound = d["contractId"].(string)
		case rulesTemplate:
			rules = d["contractId"] == string(e.l.RulesContractID())
		}
	}
	if openRound == "" || !rules {
		e.t.Fatalf("the registry's context discloses no open round or AmuletRules: %v", disclose)
	}
	return disclose, openRound
}

func (e *env) tapCommand(receiver coin.PartyID, amount, openRound string) map[string]any {
	return exercise(rulesTemplate, string(e.l.RulesContractID()), "AmuletRules_DevNet_Tap",
		map[string]any{"receiver": receiver, "amount": amount, "openRound": openRound})
}

// balance is party's unlocked balance now.
func (e *env) balance(party coin.PartyID) coin.Amount {
	e.t.Helper()
	b, err := e.l.Balance(context.Background(), party)
	if err != nil {
		e.t.Fatal(err)
	}
	return b.EffectiveUnlocked
}

// wantCode checks a refusal's status and Canton error code.
func wantCode(t *testing.T, what string, code int, b []byte, status int, id string) {
	t.Helper()
	if code != status || !bytes.Contains(b, []byte(`"`+id+`"`)) {
		t.Errorf("%s: %d %s, want %d %s", what, code, b, status, id)
	}
}

// executeRefused prepares and executes cmd as x, wanting it refused with
// id: as Canton's execute is asynchronous, by the failed completion that
// follows execute's {}, or, for a command that runs before execute
// answers (a preapproval proposal, a DelegateProxy choice), by execute
// with status.
func (e *env) executeRefused(t *testing.T, x extParty, commandID string, cmd map[string]any, disclose []map[string]any, status int, id string) {
	t.Helper()
	p := e.mustPrepare(x, commandID, cmd, disclose)
	before := e.ledgerEnd()
	resp := e.execute(x.user, p.raw, signatures(x.party, x.key, p.hash))
	if resp.StatusCode() != http.StatusOK {
		wantCode(t, commandID, resp.StatusCode(), resp.Body, status, id)
		return
	}
	c, ok := e.awaitCompletion(x.user, []coin.PartyID{x.party}, commandID, before)
	if !ok || c.Code == 0 || !strings.HasPrefix(c.Message, id+"(") {
		t.Errorf("%s: completion %+v (found %v), want a failure %s", commandID, c, ok, id)
	}
}

// TestCoinTap: AmuletRules_DevNet_Tap mints exactly the amount in coin,
// for a local party and an external one; a replay is DUPLICATE_COMMAND;
// tapping for another party, a bad amount, an unknown field, a contract
// that is not AmuletRules or a round that is not open are refused and
// mint nothing.
func TestCoinTap(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice, bob := e.user("alice", ""), e.user("bob", "")
		x := e.external("xena", "")
		disclose, round := e.rulesContext(alice)

		e.mustCommand("alice", "tap-1", alice, e.tapCommand(alice, "200", round), disclose)
		if got := e.holds("alice", alice); !got.Equal(coin.MustParse("200")) {
			t.Errorf("alice holds %s after tapping 200", got)
		}
		code, b := e.command("alice", "tap-1", alice, e.tapCommand(alice, "200", round), disclose)
		wantCode(t, "replay", code, b, http.StatusConflict, "DUPLICATE_COMMAND")

		code, b = e.command("alice", "tap-2", alice, e.tapCommand(bob, "5", round), disclose)
		wantCode(t, "alice taps for bob", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		code, b = e.command("alice", "tap-3", alice, e.tapCommand(alice, "-5", round), disclose)
		wantCode(t, "negative amount", code, b, http.StatusBadRequest, "INVALID_ARGUMENT")
		bad := e.tapCommand(alice, "5", round)
		bad["ExerciseCommand"].(map[string]any)["choiceArgument"].(map[string]any)["extra"] = "x"
		code, b = e.command("alice", "tap-4", alice, bad, disclose)
		wantCode(t, "unknown field", code, b, http.StatusBadRequest, "INVALID_ARGUMENT")
		notRules := exercise(rulesTemplate, round, "AmuletRules_DevNet_Tap", map[string]any{"receiver": alice, "amount": "5", "openRound": round})
		code, b = e.command("alice", "tap-5", alice, notRules, disclose)
		wantCode(t, "not AmuletRules", code, b, http.StatusNotFound, "CONTRACT_NOT_FOUND")
		code, b = e.command("alice", "tap-6", alice, e.tapCommand(alice, "5", string(e.l.RulesContractID())), disclose)
		wantCode(t, "not a round", code, b, http.StatusNotFound, "CONTRACT_NOT_FOUND")
		if got := e.holds("alice", alice); !got.Equal(coin.MustParse("200")) {
			t.Errorf("alice holds %s after the refusals", got)
		}
		if got := e.holds("bob", bob); !got.IsZero() {
			t.Errorf("bob holds %s", got)
		}

		// An external party taps by prepare, sign and execute, as the
		// SDK's createTap and prepareSignExecuteAndWaitFor do.
		e.run(x, "tap-x", e.tapCommand(x.party, "20000000", round), disclose)
		if got := e.holds(x.user, x.party); !got.Equal(coin.MustParse("20000000")) {
			t.Errorf("xena holds %s after tapping 20000000", got)
		}
		// Submitting for it directly is refused, as Canton does.
		code, b = e.command(x.user, "tap-x2", x.party, e.tapCommand(x.party, "1", round), disclose)
		wantCode(t, "external by submit", code, b, http.StatusForbidden, "SUBMITTER_CANNOT_ACT_VIA_PARTICIPANT")
	})
}

// TestCoinFeatureApp: AmuletRules_DevNet_FeatureApp makes the provider
// featured, locally and externally; a second grant and a grant for
// another party are refused.
func TestCoinFeatureApp(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", ""), e.user("bob", "")
		x := e.external("xena", "")
		disclose, _ := e.rulesContext(alice)
		grant := func(p coin.PartyID) map[string]any {
			return exercise(rulesTemplate, string(e.l.RulesContractID()), "AmuletRules_DevNet_FeatureApp", map[string]any{"provider": p})
		}
		code, b := e.command("alice", "f-0", alice, grant(bob), disclose)
		wantCode(t, "alice grants bob", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		e.mustCommand("alice", "f-1", alice, grant(alice), disclose)
		code, b = e.command("alice", "f-1", alice, grant(alice), disclose)
		wantCode(t, "replay", code, b, http.StatusConflict, "DUPLICATE_COMMAND")
		code, b = e.command("alice", "f-2", alice, grant(alice), disclose)
		wantCode(t, "second grant", code, b, http.StatusBadRequest, "DAML_INTERPRETATION_ERROR")
		e.run(x, "f-x", grant(x.party), disclose)
		for p, want := range map[coin.PartyID]bool{alice: true, bob: false, x.party: true} {
			if got, err := featured.New(e.l).IsFeatured(ctx, p); err != nil || got != want {
				t.Errorf("%s featured %v (%v), want %v", p, got, err, want)
			}
		}
		rights := e.acs("alice", filter(alice, templateFilter("#splice-amulet:Splice.Amulet:FeaturedAppRight", false)), e.ledgerEnd())
		if len(rights) != 1 {
			t.Errorf("alice has %d featured app rights, want 1", len(rights))
		}
	})
}

// TestCoinOutsideDevNet: the faucet and the featured-app self-grant are
// development-network choices: elsewhere they fail their requirement and
// change nothing.
func TestCoinOutsideDevNet(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			clock := ledgertest.NewClock()
			l, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, engine), ledger.Config{AdminUsers: []string{"admin"}, Now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			e := newEnvOn(t, l, clock)
			alice := e.user("alice", "")
			disclose, round := e.rulesContext(alice)
			code, b := e.command("alice", "tap", alice, e.tapCommand(alice, "200", round), disclose)
			wantCode(t, "tap", code, b, http.StatusBadRequest, "DAML_INTERPRETATION_ERROR")
			grant := exercise(rulesTemplate, string(e.l.RulesContractID()), "AmuletRules_DevNet_FeatureApp", map[string]any{"provider": alice})
			code, b = e.command("alice", "grant", alice, grant, disclose)
			wantCode(t, "feature app", code, b, http.StatusBadRequest, "DAML_INTERPRETATION_ERROR")
			if got := e.balance(alice); !got.IsZero() {
				t.Errorf("alice holds %s", got)
			}
			if f, _ := featured.New(e.l).IsFeatured(context.Background(), alice); f {
				t.Error("alice is featured")
			}
		})
	}
}

func (e *env) proposal(receiver, provider coin.PartyID, dso *coin.PartyID) map[string]any {
	args := map[string]any{"receiver": receiver, "provider": provider}
	if dso != nil {
		args["expectedDso"] = *dso
	}
	return map[string]any{"CreateCommand": map[string]any{"templateId": preapprovalProposalTemplate, "createArguments": args}}
}

// TestCoinPreapprovals: an external party proposes a preapproval to the
// operator (the SDK's createTransferPreapprovalCommand) and the
// operator's automation accepts it at once, paying the fee; the operator
// renews it (TransferPreapproval_Renew) to the date asked, paying for the
// extension; the receiver cancels it (TransferPreapproval_Cancel). Each
// refusal (another party acting, another DSO, another provider, a date
// before the expiry, a stranger cancelling) changes nothing.
func TestCoinPreapprovals(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		op, dso := e.l.Operator(), e.l.DSO()
		bob := e.user("bob", "")
		x := e.external("xena", "")
		ledgertest.Mint(t, e.l, op, "100000")
		price := e.currentPrice()
		before := e.balance(op)

		wrongDSO := bob
		code, b := e.command("bob", "p-0", bob, e.proposal(x.party, op, &dso), nil)
		wantCode(t, "bob proposes for xena", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		e.executeRefused(t, x, "p-1", e.proposal(x.party, op, &wrongDSO), nil, http.StatusBadRequest, "DAML_INTERPRETATION_ERROR")
		e.executeRefused(t, x, "p-2", e.proposal(x.party, bob, &dso), nil, http.StatusBadRequest, "INVALID_ARGUMENT")
		if _, err := provider.New(e.l).Preapproval(ctx, x.party); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("a preapproval after the refusals: %v", err)
		}

		e.run(x, "p-3", e.proposal(x.party, op, &dso), nil)
		pre, err := provider.New(e.l).Preapproval(ctx, x.party)
		if err != nil {
			t.Fatalf("no preapproval after the proposal: %v", err)
		}
		if pre.Provider != op || !pre.ExpiresAt.Equal(e.clock.Now().Add(ledger.PreapprovalLifetime)) {
			t.Errorf("preapproval %+v", pre)
		}
		fee := e.l.Preapprovals().Fee(ledger.PreapprovalLifetime, price)
		if got := e.balance(op); !got.Equal(before.Sub(fee)) {
			t.Errorf("the operator holds %s, want %s - %s", got, before, fee)
		}
		if ps := e.acs(x.user, filter(x.party, templateFilter(preapprovalProposalTemplate, false)), e.ledgerEnd()); len(ps) != 0 {
			t.Errorf("the proposal is still active: %+v", ps)
		}
		only(t, "xena's preapproval", e.acs(x.user, filter(x.party, templateFilter(preapprovalTemplate, false)), e.ledgerEnd()))

		renew := func(until time.Time) map[string]any {
			return exercise(preapprovalTemplate, string(pre.ContractID), "TransferPreapproval_Renew", map[string]any{
				"context": map[string]any{"context": map[string]any{"openMiningRound": "", "issuingMiningRounds": []any{}, "validatorRights": []any{}, "featuredAppRight": nil},
					"amuletRules": string(e.l.RulesContractID())},
				"inputs": []any{}, "newExpiresAt": until.Format(time.RFC3339Nano),
			})
		}
		e.executeRefused(t, x, "r-0", renew(pre.ExpiresAt.Add(time.Hour)), nil, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		code, b = e.command("admin", "r-1", op, renew(pre.ExpiresAt.Add(-time.Hour)), nil)
		wantCode(t, "renew to before the expiry", code, b, http.StatusBadRequest, "INVALID_ARGUMENT")
		before = e.balance(op)
		until := pre.ExpiresAt.Add(30 * 24 * time.Hour)
		e.mustCommand("admin", "r-2", op, renew(until), nil)
		renewed, err := provider.New(e.l).Preapproval(ctx, x.party)
		if err != nil || renewed.ContractID == pre.ContractID || !renewed.ExpiresAt.Equal(until) {
			t.Fatalf("after renewal: %+v %v", renewed, err)
		}
		if got, want := e.balance(op), before.Sub(e.l.Preapprovals().Fee(30*24*time.Hour, price)); !got.Equal(want) {
			t.Errorf("the operator holds %s after renewing, want %s", got, want)
		}
		code, b = e.command("admin", "r-3", op, renew(until.Add(time.Hour)), nil)
		wantCode(t, "renew the archived one", code, b, http.StatusNotFound, "CONTRACT_NOT_FOUND")

		cancel := func(p coin.PartyID) map[string]any {
			return exercise(preapprovalTemplate, string(renewed.ContractID), "TransferPreapproval_Cancel", map[string]any{"p": p})
		}
		code, b = e.command("bob", "c-0", bob, cancel(bob), nil)
		wantCode(t, "bob cancels", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		e.run(x, "c-1", cancel(x.party), nil)
		if _, err := provider.New(e.l).Preapproval(ctx, x.party); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("a preapproval after cancelling: %v", err)
		}
		code, b = e.command("admin", "c-2", op, cancel(op), nil)
		wantCode(t, "cancel again", code, b, http.StatusNotFound, "CONTRACT_NOT_FOUND")

		// A local receiver proposes by submit-and-wait.
		e.mustCommand("bob", "p-4", bob, e.proposal(bob, op, nil), nil)
		if p, err := provider.New(e.l).Preapproval(ctx, bob); err != nil || p.Provider != op {
			t.Errorf("bob's preapproval %+v %v", p, err)
		}
	})
}

// TestCoinBuyTraffic: AmuletRules_BuyMemberTraffic, as the SDK's
// buyMemberTraffic builds it, burns exactly the traffic's price from the
// provider and credits this participant's traffic, for an external party
// and a local one; a wrong member, synchronizer, DSO, amount or provider
// is refused and burns nothing.
func TestCoinBuyTraffic(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		dso := e.l.DSO()
		alice := e.user("alice", "1000")
		x := e.external("xena", "1000")
		disclose, round := e.rulesContext(alice)
		member := "PAR::" + e.l.ParticipantID()
		buy := func(provider coin.PartyID, member, sync string, bytes int64, dso coin.PartyID) map[string]any {
			return exercise(rulesTemplate, string(e.l.RulesContractID()), "AmuletRules_BuyMemberTraffic", map[string]any{
				"context":  map[string]any{"openMiningRound": round, "issuingMiningRounds": []any{}, "validatorRights": []any{}, "featuredAppRight": nil},
				"inputs":   []any{},
				"provider": provider, "memberId": member, "synchronizerId": sync, "migrationId": 0, "trafficAmount": bytes, "expectedDso": dso,
			})
		}
		sync := e.l.SynchronizerID()
		status := func() int64 {
			s, err := traffic.New(e.l).TrafficStatus(ctx, alice)
			if err != nil {
				t.Fatal(err)
			}
			return s.Purchased
		}
		start := status()
		price := e.currentPrice()
		cost := e.l.Rules().TrafficCost(200000, price)

		e.run(x, "b-x", buy(x.party, member, sync, 200000, dso), disclose)
		if got, want := e.balance(x.party), coin.MustParse("1000").Sub(cost); !got.Equal(want) {
			t.Errorf("xena holds %s after buying traffic, want %s", got, want)
		}
		e.mustCommand("alice", "b-a", alice, buy(alice, member, sync, 200000, dso), disclose)
		if got, want := e.balance(alice), coin.MustParse("1000").Sub(cost); !got.Equal(want) {
			t.Errorf("alice holds %s after buying traffic, want %s", got, want)
		}
		if got := status(); got != start+400000 {
			t.Errorf("purchased traffic %d, want %d", got, start+400000)
		}
		for _, c := range []struct {
			name   string
			cmd    map[string]any
			status int
			code   string
		}{
			{"other member", buy(alice, "PAR::participant::other", sync, 200000, dso), http.StatusBadRequest, "INVALID_ARGUMENT"},
			{"other synchronizer", buy(alice, member, "global-domain::other", 200000, dso), http.StatusBadRequest, "INVALID_ARGUMENT"},
			{"other DSO", buy(alice, member, sync, 200000, alice), http.StatusBadRequest, "DAML_INTERPRETATION_ERROR"},
			{"too little", buy(alice, member, sync, 1, dso), http.StatusBadRequest, "INVALID_ARGUMENT"},
			{"for xena", buy(x.party, member, sync, 200000, dso), http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR"},
		} {
			code, b := e.command("alice", "b-"+strings.ReplaceAll(c.name, " ", "-"), alice, c.cmd, disclose)
			wantCode(t, c.name, code, b, c.status, c.code)
		}
		if got, want := e.balance(alice), coin.MustParse("1000").Sub(cost); !got.Equal(want) {
			t.Errorf("alice holds %s after the refusals, want %s", got, want)
		}
	})
}

// TestCoinChoicesSupportedList: an unsupported choice on AmuletRules
// answers 501 naming the coin's choices served.
func TestCoinChoicesSupportedList(t *testing.T) {
	e := newEnv(t, 0)
	alice := e.user("alice", "")
	code, b := e.command("alice", "u", alice, exercise(rulesTemplate, string(e.l.RulesContractID()), "AmuletRules_Transfer", map[string]any{}), nil)
	if code != http.StatusNotImplemented || !bytes.Contains(b, []byte("AmuletRules_DevNet_Tap")) || !bytes.Contains(b, []byte("TransferPreapprovalProposal")) {
		t.Errorf("unsupported choice: %d %s", code, b)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Error(err)
	}
}

// currentPrice is the open round's coin price.
func (e *env) currentPrice() coin.Amount {
	e.t.Helper()
	_, price, err := e.l.CurrentRound(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return price
}

const (
	mergeProposalTemplate = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:MergeDelegationProposal"
	mergeTemplate         = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:MergeDelegation"
	batchMergeTemplate    = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation:BatchMergeUtility"
)

// holdingIDs lists party's holdings, as the Holding interface shows them.
func (e *env) holdingIDs(user string, party coin.PartyID) []string {
	e.t.Helper()
	var out []string
	for _, h := range e.acs(user, filter(party, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()) {
		out = append(out, h.ContractID)
	}
	return out
}

// selfTransferArg is the SDK's merge: TransferFactory_Transfer of the
// inputs' total from owner to owner.
func (e *env) selfTransferArg(owner coin.PartyID, receiver coin.PartyID, amount string, inputs []string) map[string]any {
	dso := e.l.DSO()
	now := e.clock.Now()
	return map[string]any{"expectedAdmin": dso, "transfer": map[string]any{
		"sender": owner, "receiver": receiver, "amount": amount, "instrumentId": map[string]any{"admin": dso, "id": "Amulet"}, "lock": nil,
		"requestedAt": now.Add(-time.Minute).Format(time.RFC3339Nano), "executeBefore": now.Add(24 * time.Hour).Format(time.RFC3339Nano),
		"inputHoldingCids": inputs, "meta": map[string]any{"values": map[string]any{reasonMetaKey: "merge-utxos"}},
	}, "extraArgs": emptyExtra()}
}

// TestCoinMergeDelegation is the SDK's merge-delegation flow: the
// operator creates its BatchMergeUtility, an external owner proposes a
// merge delegation (prepare, sign, execute), the operator accepts it and
// merges the owner's 12 holdings into one by BatchMergeUtility_BatchMerge
// (and 3 more by MergeDelegation_Merge); the total is kept exactly. Each
// refusal (another party acting, another operator, a second proposal,
// someone else's holding, a transfer to another party) changes nothing.
func TestCoinMergeDelegation(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		op := e.l.Operator()
		bob := e.user("bob", "5")
		x := e.external("xena", "")
		for range 12 {
			ledgertest.Mint(t, e.l, x.party, "10")
		}
		code, b := e.command("bob", "u-0", bob, map[string]any{"CreateCommand": map[string]any{"templateId": batchMergeTemplate, "createArguments": map[string]any{"operator": op}}}, nil)
		wantCode(t, "bob creates the operator's utility", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		e.mustCommand("admin", "u-1", op, map[string]any{"CreateCommand": map[string]any{"templateId": batchMergeTemplate, "createArguments": map[string]any{"operator": op}}}, nil)
		utility := only(t, "the utility", e.acs("admin", filter(op, templateFilter(batchMergeTemplate, false)), e.ledgerEnd())).ContractID

		propose := func(operator coin.PartyID) map[string]any {
			return map[string]any{"CreateCommand": map[string]any{"templateId": mergeProposalTemplate, "createArguments": map[string]any{
				"delegation": map[string]any{"operator": operator, "owner": x.party, "meta": map[string]any{"values": map[string]any{}}}}}}
		}
		e.executeRefused(t, x, "m-0", propose(bob), nil, http.StatusBadRequest, "INVALID_ARGUMENT")
		e.run(x, "m-1", propose(op), nil)
		e.executeRefused(t, x, "m-2", propose(op), nil, http.StatusBadRequest, "DAML_INTERPRETATION_ERROR")
		proposal := only(t, "the proposal", e.acs(x.user, filter(x.party, templateFilter(mergeProposalTemplate, false)), e.ledgerEnd())).ContractID

		accept := exercise(mergeProposalTemplate, proposal, "MergeDelegationProposal_Accept", map[string]any{})
		code, b = e.command("bob", "a-0", bob, accept, nil)
		wantCode(t, "bob accepts", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		e.mustCommand("admin", "a-1", op, accept, nil)
		delegation := only(t, "the delegation", e.acs(x.user, filter(x.party, templateFilter(mergeTemplate, false)), e.ledgerEnd())).ContractID

		cmd, disclose := e.transferCommand(bob, x.party, "1", nil)
		factory := cmd["ExerciseCommand"].(map[string]any)["contractId"].(string)
		inputs := e.holdingIDs(x.user, x.party)
		if len(inputs) != 12 {
			t.Fatalf("xena has %d holdings, want 12", len(inputs))
		}
		batch := func(arg map[string]any) map[string]any {
			return exercise(batchMergeTemplate, utility, "BatchMergeUtility_BatchMerge", map[string]any{"mergeCalls": []any{map[string]any{
				"delegationCid": delegation, "choiceArg": map[string]any{"optMergeTransfer": map[string]any{"factoryCid": factory, "choiceArg": arg}}}}})
		}
		code, b = e.command("bob", "b-0", bob, batch(e.selfTransferArg(x.party, x.party, "120", inputs)), disclose)
		wantCode(t, "bob merges", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		withBob := append(slices.Clone(inputs), e.holdingIDs("bob", bob)...)
		code, b = e.command("admin", "b-1", op, batch(e.selfTransferArg(x.party, x.party, "125", withBob)), disclose)
		wantCode(t, "bob's holding among the inputs", code, b, http.StatusBadRequest, "DAML_INTERPRETATION_ERROR")
		code, b = e.command("admin", "b-2", op, batch(e.selfTransferArg(x.party, bob, "120", inputs)), disclose)
		wantCode(t, "a transfer to bob", code, b, http.StatusBadRequest, "DAML_INTERPRETATION_ERROR")
		if n := len(e.holdingIDs(x.user, x.party)); n != 12 {
			t.Fatalf("xena has %d holdings after the refusals", n)
		}

		e.mustCommand("admin", "b-3", op, batch(e.selfTransferArg(x.party, x.party, "120", inputs)), disclose)
		if n := len(e.holdingIDs(x.user, x.party)); n != 1 {
			t.Errorf("xena has %d holdings after the merge, want 1", n)
		}
		if got := e.holds(x.user, x.party); !got.Equal(coin.MustParse("120")) {
			t.Errorf("xena holds %s after the merge, want 120", got)
		}
		code, b = e.command("admin", "b-3", op, batch(e.selfTransferArg(x.party, x.party, "120", inputs)), disclose)
		wantCode(t, "replay", code, b, http.StatusConflict, "DUPLICATE_COMMAND")

		// MergeDelegation_Merge on the delegation itself.
		for range 3 {
			ledgertest.Mint(t, e.l, x.party, "1")
		}
		all := e.holdingIDs(x.user, x.party)
		e.mustCommand("admin", "d-1", op, exercise(mergeTemplate, delegation, "MergeDelegation_Merge", map[string]any{
			"optMergeTransfer": map[string]any{"factoryCid": factory, "choiceArg": e.selfTransferArg(x.party, x.party, "123", all)}}), disclose)
		if hs := e.holdingIDs(x.user, x.party); len(hs) != 1 || !e.holds(x.user, x.party).Equal(coin.MustParse("123")) {
			t.Errorf("xena has %d holdings worth %s, want 1 worth 123", len(hs), e.holds(x.user, x.party))
		}
		if ds, err := delegations.New(e.l).MergeDelegations(ctx, x.party); err != nil || len(ds) != 1 || ds[0].Status != delegations.MergeActive {
			t.Errorf("xena's merge delegations %+v %v", ds, err)
		}
	})
}

// TestCoinAsyncCompletions: the coin's choices submitted asynchronously
// complete on /v2/commands/completions, a success with its update (and
// its effect made), a refusal with Canton's code; each completion once.
func TestCoinAsyncCompletions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		op := e.l.Operator()
		alice, bob := e.user("alice", ""), e.user("bob", "")
		disclose, round := e.rulesContext(alice)
		async := func(commandID string, cmd map[string]any) {
			t.Helper()
			req := map[string]any{"commands": []any{cmd}, "commandId": commandID, "actAs": []coin.PartyID{alice}, "disclosedContracts": disclose}
			r, err := e.as("alice").PostV2CommandsAsyncSubmitWithBodyWithResponse(ctx, jsonType, body(t, req))
			if err != nil || r.StatusCode() != http.StatusOK {
				t.Fatalf("async %s: %v %s", commandID, err, r.Body)
			}
			e.api.Wait()
		}
		begin := e.ledgerEnd()
		async("a-tap", e.tapCommand(alice, "50", round))
		async("a-tap-bob", e.tapCommand(bob, "50", round))
		async("a-grant", exercise(rulesTemplate, string(e.l.RulesContractID()), "AmuletRules_DevNet_FeatureApp", map[string]any{"provider": alice}))
		async("a-proposal", e.proposal(alice, op, nil))
		cs := e.completions("alice", []coin.PartyID{alice}, begin, 0)
		want := []struct {
			id   string
			code int
		}{{"a-tap", 0}, {"a-tap-bob", 3}, {"a-grant", 0}, {"a-proposal", 0}}
		if len(cs) != len(want) {
			t.Fatalf("completions %+v, want %d", cs, len(want))
		}
		for i, w := range want {
			if cs[i].CommandID != w.id || cs[i].Status.Code != w.code || (w.code == 0) != (cs[i].UpdateID != "") {
				t.Errorf("completion %d: %+v, want %s code %d", i, cs[i], w.id, w.code)
			}
		}
		if got := e.holds("alice", alice); !got.Equal(coin.MustParse("50")) {
			t.Errorf("alice holds %s", got)
		}
		if f, _ := featured.New(e.l).IsFeatured(ctx, alice); !f {
			t.Error("alice is not featured")
		}
		if _, err := provider.New(e.l).Preapproval(ctx, alice); err != nil {
			t.Errorf("alice's preapproval: %v", err)
		}
	})
}

const (
	proxyTemplate = "#splice-util-featured-app-proxies:Splice.Util.FeaturedApp.DelegateProxy:DelegateProxy"
)

// appRewards lists party's app reward coupon amounts (the ledger's: the
// Ledger API's active contracts do not list reward coupons yet).
func (e *env) appRewards(party coin.PartyID) []coin.Amount {
	e.t.Helper()
	cs, err := rewards.New(e.l).Coupons(context.Background(), party, ledger.RewardApp)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []coin.Amount
	for _, c := range cs {
		var p struct {
			Amount string `json:"amount"`
		}
		json.Unmarshal(c.Payload, &p)
		out = append(out, coin.MustParse(p.Amount))
	}
	return out
}

// TestCoinDelegateProxy is the SDK's exchange extension: the operator
// (the exchange, a featured provider) creates a DelegateProxy for its
// treasury, an external party, which sends through it
// (DelegateProxy_TransferFactory_Transfer, prepare, sign, execute); a
// local receiver accepts through its own proxy
// (DelegateProxy_TransferInstruction_Accept). Each use pays the
// beneficiaries their weight of the featured app reward; a use by another
// party, weights above 1 or a right not the provider's are refused and
// change nothing.
func TestCoinDelegateProxy(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		op := e.l.Operator()
		bob, carol := e.user("bob", ""), e.user("carol", "")
		x := e.external("xena", "1000")
		right, err := featured.New(e.l).SelfGrant(ctx, op)
		if err != nil {
			t.Fatal(err)
		}
		carolRight, err := featured.New(e.l).SelfGrant(ctx, carol)
		if err != nil {
			t.Fatal(err)
		}
		proxy := func(delegate coin.PartyID) map[string]any {
			return map[string]any{"CreateCommand": map[string]any{"templateId": proxyTemplate, "createArguments": map[string]any{"provider": op, "delegate": delegate}}}
		}
		code, b := e.command("bob", "x-0", bob, proxy(bob), nil)
		wantCode(t, "bob creates the operator's proxy", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		e.mustCommand("admin", "x-1", op, proxy(x.party), nil)
		e.mustCommand("admin", "x-2", op, proxy(bob), nil)
		var xProxy, bobProxy string
		for _, c := range e.acs("admin", filter(op, templateFilter(proxyTemplate, true)), e.ledgerEnd()) {
			var p struct {
				Delegate string `json:"delegate"`
			}
			json.Unmarshal(c.CreateArgument, &p)
			if p.Delegate == string(x.party) {
				xProxy = c.ContractID
			} else {
				bobProxy = c.ContractID
			}
		}
		inner, disclose := e.transferCommand(x.party, bob, "100", nil)
		ex := inner["ExerciseCommand"].(map[string]any)
		use := func(proxyCid, choice string, inner map[string]any, right coin.ContractID, weight string) map[string]any {
			ex := inner["ExerciseCommand"].(map[string]any)
			return exercise(proxyTemplate, proxyCid, "DelegateProxy_"+choice, map[string]any{"cid": ex["contractId"], "proxyArg": map[string]any{
				"featuredAppRightCid": right, "beneficiaries": []any{map[string]any{"beneficiary": carol, "weight": weight}}, "choiceArg": ex["choiceArgument"]}})
		}
		code, b = e.command("bob", "x-3", bob, use(xProxy, "TransferFactory_Transfer", inner, right, "0.5"), disclose)
		wantCode(t, "bob uses xena's proxy", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		e.executeRefused(t, x, "x-4", use(xProxy, "TransferFactory_Transfer", inner, right, "1.5"), disclose, http.StatusBadRequest, "DAML_INTERPRETATION_ERROR")
		e.executeRefused(t, x, "x-5", use(xProxy, "TransferFactory_Transfer", inner, carolRight, "0.5"), disclose, http.StatusNotFound, "CONTRACT_NOT_FOUND")
		if got := e.appRewards(carol); len(got) != 0 {
			t.Fatalf("carol's rewards after the refusals: %v", got)
		}
		if ex["choice"] != "TransferFactory_Transfer" {
			t.Fatalf("inner command %v", ex)
		}

		e.run(x, "x-6", use(xProxy, "TransferFactory_Transfer", inner, right, "0.5"), disclose)
		reward := ledger.USDToCoin(e.l.Rules().ExtraFeaturedAppRewardUSD, e.currentPrice())
		half := reward.Mul(coin.MustParse("0.5"))
		if got := e.appRewards(carol); len(got) != 1 || !got[0].Equal(half) {
			t.Errorf("carol's rewards after the proxied transfer: %v, want [%s]", got, half)
		}
		accept, acceptDisclose := e.acceptCommand("bob", bob)
		e.mustCommand("bob", "x-7", bob, use(bobProxy, "TransferInstruction_Accept", accept, right, "1.0"), acceptDisclose)
		if got := e.holds("bob", bob); !got.Equal(coin.MustParse("100")) {
			t.Errorf("bob holds %s after accepting through the proxy", got)
		}
		if got := e.appRewards(carol); len(got) != 2 || !got[0].Add(got[1]).Equal(half.Add(reward)) {
			t.Errorf("carol's rewards after the proxied accept: %v, want %s and %s", got, half, reward)
		}
	})
}

// TestCoinPackagesListed: GET /v2/packages lists the released ids of
// the packages the SDK's examples check before using them (its
// isPackageUploaded), and commands name their templates by those ids.
func TestCoinPackagesListed(t *testing.T) {
	e := newEnv(t, 0)
	e.user("alice", "")
	resp, err := e.as("alice").GetV2PackagesWithResponse(context.Background())
	if err != nil || resp.JSON200 == nil {
		t.Fatalf("packages: %v %s", err, resp.Body)
	}
	for _, id := range []string{
		"1da198cb7968fa478cfa12aba9fdf128a63a8af6ab284ea6be238cf92a3733ac", // splice-util-token-standard-wallet
		"81dd5a9e5c02d0de03208522a895fb85eeb12fbea4aca7c4ad0ad106f3b0bfce", // splice-util-featured-app-proxies
		"e5c9847d5a88d3b8d65436f01765fc5ba142cc58529692e2dacdd865d9939f71", // splice-token-test-trading-app
	} {
		if resp.JSON200.PackageIds == nil || !slices.Contains(*resp.JSON200.PackageIds, id) {
			t.Errorf("package %s is not listed", id)
		}
	}
	op := e.l.Operator()
	e.mustCommand("admin", "by-id", op, map[string]any{"CreateCommand": map[string]any{
		"templateId":      "1da198cb7968fa478cfa12aba9fdf128a63a8af6ab284ea6be238cf92a3733ac:Splice.Util.Token.Wallet.MergeDelegation:BatchMergeUtility",
		"createArguments": map[string]any{"operator": op}}}, nil)
}

// scanProxy GETs path from the validator's scan proxy on the app port as
// user, as the SDK's ScanProxyClient does.
func (e *env) scanProxy(user, path string, out any) {
	e.t.Helper()
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{testKID: e.signer.Public()}, Audience: testAudience}, slog.New(slog.DiscardHandler))
	if err != nil {
		e.t.Fatal(err)
	}
	srv := httptest.NewServer(handlers.New(e.l, handlers.Config{Auth: v}, nil).Routes(nil))
	defer srv.Close()
	tok, err := web.SignDevToken(e.signer, testKID, "", testAudience, user, time.Hour)
	if err != nil {
		e.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/validator/v0/scan-proxy"+path, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("scan proxy %s: %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		e.t.Fatal(err)
	}
}

// scanContract is a contract as Scan hands it out.
type scanContract struct {
	TemplateID       string `json:"template_id"`
	ContractID       string `json:"contract_id"`
	CreatedEventBlob string `json:"created_event_blob"`
}

// TestCoinScanProxyContext: the AmuletRules and open round the scan proxy
// hands out are what the SDK's buyMemberTraffic and
// createRenewTransferPreapproval disclose and name, and the commands run
// with them as they are.
func TestCoinScanProxyContext(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	alice := e.user("alice", "1000")
	op := e.l.Operator()
	var rules struct {
		AmuletRules struct {
			Contract scanContract `json:"contract"`
		} `json:"amulet_rules"`
	}
	e.scanProxy("alice", "/amulet-rules", &rules)
	var rounds struct {
		OpenMiningRounds []struct {
			Contract scanContract `json:"contract"`
		} `json:"open_mining_rounds"`
	}
	e.scanProxy("alice", "/open-and-issuing-mining-rounds", &rounds)
	if len(rounds.OpenMiningRounds) == 0 {
		t.Fatal("no open round")
	}
	round := rounds.OpenMiningRounds[len(rounds.OpenMiningRounds)-1].Contract
	sync := e.l.SynchronizerID()
	disclose := []map[string]any{}
	for _, c := range []scanContract{rules.AmuletRules.Contract, round} {
		disclose = append(disclose, map[string]any{"templateId": c.TemplateID, "contractId": c.ContractID, "createdEventBlob": c.CreatedEventBlob, "synchronizerId": sync})
	}
	amuletRules := rules.AmuletRules.Contract
	e.mustCommand("alice", "buy", alice, exercise(amuletRules.TemplateID, amuletRules.ContractID, "AmuletRules_BuyMemberTraffic", map[string]any{
		"context":  map[string]any{"openMiningRound": round.ContractID, "issuingMiningRounds": []any{}, "validatorRights": []any{}, "featuredAppRight": nil},
		"inputs":   []any{},
		"provider": alice, "memberId": e.l.ParticipantID(), "synchronizerId": sync, "migrationId": 0, "trafficAmount": 200000, "expectedDso": e.l.DSO(),
	}), disclose)
	e.mustCommand("alice", "tap", alice, exercise(amuletRules.TemplateID, amuletRules.ContractID, "AmuletRules_DevNet_Tap",
		map[string]any{"receiver": alice, "amount": "5", "openRound": round.ContractID}), disclose)

	pre, _, err := e.l.Preapprovals().Create(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	p, err := provider.New(e.l).Preapproval(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	e.mustCommand("admin", "renew", op, exercise(preapprovalTemplate, string(pre), "TransferPreapproval_Renew", map[string]any{
		"context": map[string]any{"context": map[string]any{"openMiningRound": round.ContractID, "issuingMiningRounds": []any{}, "validatorRights": []any{}, "featuredAppRight": nil},
			"amuletRules": amuletRules.ContractID},
		"inputs": []any{}, "newExpiresAt": p.ExpiresAt.Add(time.Hour).Format(time.RFC3339Nano),
	}), disclose)
}

// TestCoinChoicesLedgerEffects: in the ledger-effects shape the coin's
// consuming choices show as themselves: a renewal archives the old
// preapproval by TransferPreapproval_Renew, a cancellation by
// TransferPreapproval_Cancel.
func TestCoinChoicesLedgerEffects(t *testing.T) {
	e := newEnv(t, 0)
	ctx := context.Background()
	op := e.l.Operator()
	bob := e.user("bob", "")
	pre, _, err := e.l.Preapprovals().Create(ctx, bob)
	if err != nil {
		t.Fatal(err)
	}
	p, err := provider.New(e.l).Preapproval(ctx, bob)
	if err != nil {
		t.Fatal(err)
	}
	submit := func(user, commandID string, actAs coin.PartyID, cmd map[string]any) map[string]exercised {
		t.Helper()
		req := map[string]any{"commands": map[string]any{"commands": []any{cmd}, "commandId": commandID, "actAs": []coin.PartyID{actAs}},
			"transactionFormat": map[string]any{"eventFormat": filter(actAs), "transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"}}
		resp, err := e.as(user).PostV2CommandsSubmitAndWaitForTransactionWithBodyWithResponse(ctx, jsonType, body(t, req))
		if err != nil || resp.StatusCode() != http.StatusOK {
			t.Fatalf("%s: %v %s", commandID, err, resp.Body)
		}
		var tx struct {
			Transaction struct {
				Events []map[string]json.RawMessage `json:"events"`
			} `json:"transaction"`
		}
		json.Unmarshal(resp.Body, &tx)
		out := map[string]exercised{}
		for _, ev := range tx.Transaction.Events {
			if raw, ok := ev["ExercisedEvent"]; ok {
				var x exercised
				json.Unmarshal(raw, &x)
				out[x.ContractID] = x
			}
		}
		return out
	}
	renewed := submit("admin", "renew", op, exercise(preapprovalTemplate, string(pre), "TransferPreapproval_Renew", map[string]any{
		"context": map[string]any{}, "inputs": []any{}, "newExpiresAt": p.ExpiresAt.Add(time.Hour).Format(time.RFC3339Nano)}))
	if x := renewed[string(pre)]; x.Choice != "TransferPreapproval_Renew" || !x.Consuming {
		t.Errorf("the renewal shows %+v", renewed)
	}
	p2, err := provider.New(e.l).Preapproval(ctx, bob)
	if err != nil {
		t.Fatal(err)
	}
	cancelled := submit("bob", "cancel", bob, exercise(preapprovalTemplate, string(p2.ContractID), "TransferPreapproval_Cancel", map[string]any{"p": bob}))
	if x := cancelled[string(p2.ContractID)]; x.Choice != "TransferPreapproval_Cancel" || !x.Consuming {
		t.Errorf("the cancellation shows %+v", cancelled)
	}
}

// TestCoinPing: Canton's Ping, as the SDK's createPingCommand builds it
// (3.3's AdminWorkflows and 3.4's builtin package), is created by its
// initiator, local or external, signed by it and seen by the responder;
// executing the same prepared ping again completes as DUPLICATE_COMMAND; a ping in
// another party's name is refused.
func TestCoinPing(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice, bob := e.user("alice", ""), e.user("bob", "")
		x := e.external("xena", "")
		ping := func(template string, initiator, responder coin.PartyID) map[string]any {
			return map[string]any{"CreateCommand": map[string]any{"templateId": template, "createArguments": map[string]any{
				"id": "ping-" + string(responder)[:4], "initiator": initiator, "responder": responder}}}
		}
		const v33, v34 = "#AdminWorkflows:Canton.Internal.Ping:Ping", "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
		code, b := e.command("bob", "p-0", bob, ping(v33, alice, bob), nil)
		wantCode(t, "bob pings as alice", code, b, http.StatusBadRequest, "DAML_AUTHORIZATION_ERROR")
		e.mustCommand("alice", "p-1", alice, ping(v33, alice, bob), nil)
		seen := only(t, "bob's ping", e.acs("bob", filter(bob, templateFilter(v33, false)), e.ledgerEnd()))
		if len(seen.Signatories) != 1 || seen.Signatories[0] != string(alice) || len(seen.Observers) != 1 || seen.Observers[0] != string(bob) {
			t.Errorf("ping signed by %v, observed by %v", seen.Signatories, seen.Observers)
		}
		p := e.run(x, "p-2", ping(v34, x.party, x.party), nil)
		only(t, "xena's ping", e.acs(x.user, filter(x.party, templateFilter(v34, false)), e.ledgerEnd()))
		e.wantDuplicateExecute(x, p)
	})
}
