package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// Templates and interfaces of the trading app's DvP (Splice's
// TradingApp.daml and the token standard's allocation API).
const (
	otcProposalTemplate = "#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTradeProposal"
	otcTradeTemplate    = "#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTrade"
	allocationInterface = "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation"
)

var ledgerAPIRe = regexp.MustCompile(`ledger_api=(\S+)`)

// ownWalletWithLedgerAPI is ownWallet with its JSON Ledger API's URL,
// which the wallet logs when it is ready.
func ownWalletWithLedgerAPI(t *testing.T) (base, ledgerAPI string) {
	t.Helper()
	dir := t.TempDir()
	base = startCrashServerWith(t, walletBin, filepath.Join(dir, "wallet.db"), dir, "rateLimit: {burst: 0}\n").url
	log, err := os.ReadFile(filepath.Join(dir, "crash.log"))
	must(t, err)
	m := ledgerAPIRe.FindSubmatch(log)
	if m == nil {
		t.Fatalf("the wallet logged no Ledger API address:\n%s", log)
	}
	return base, "http://" + string(m[1])
}

// ledgerClient submits commands to the JSON Ledger API as one user.
type ledgerClient struct {
	t          *testing.T
	url, token string
	party      string
	// wallet is the wallet's app URL, whose registry names the coin.
	wallet string
	n      int
}

// submit runs one command as the client's party and returns the contracts
// its transaction created, by template name (the part after the last ':').
func (c *ledgerClient) submit(cmd map[string]any) map[string]string {
	c.t.Helper()
	c.n++
	body, _ := json.Marshal(map[string]any{"commands": map[string]any{
		"commands": []any{cmd}, "commandId": fmt.Sprintf("e2e-%d-%d", time.Now().UnixNano(), c.n),
		"actAs": []string{c.party}, "disclosedContracts": []any{},
	}})
	status, out, err := postJSON(http.DefaultClient, c.url+"/v2/commands/submit-and-wait-for-transaction", c.token, string(body))
	if err != nil || status != http.StatusOK {
		c.t.Fatalf("command %v = %d %s, %v", cmd, status, out, err)
	}
	var res struct {
		Transaction struct {
			Events []struct {
				CreatedEvent *struct {
					ContractID string `json:"contractId"`
					TemplateID string `json:"templateId"`
				} `json:"CreatedEvent"`
			} `json:"events"`
		} `json:"transaction"`
	}
	must(c.t, json.Unmarshal([]byte(out), &res))
	created := map[string]string{}
	for _, ev := range res.Transaction.Events {
		if e := ev.CreatedEvent; e != nil {
			created[e.TemplateID[strings.LastIndex(e.TemplateID, ":")+1:]] = e.ContractID
		}
	}
	return created
}

// allocations lists the active allocations the client's party sees,
// leg id -> contract id, through the Allocation interface.
func (c *ledgerClient) allocations() map[string]string {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.url+"/v2/state/ledger-end", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	must(c.t, err)
	var end struct {
		Offset int64 `json:"offset"`
	}
	must(c.t, json.NewDecoder(resp.Body).Decode(&end))
	resp.Body.Close()
	filter := map[string]any{"InterfaceFilter": map[string]any{"value": map[string]any{"interfaceId": allocationInterface, "includeInterfaceView": true, "includeCreatedEventBlob": false}}}
	body, _ := json.Marshal(map[string]any{"activeAtOffset": end.Offset, "verbose": false, "eventFormat": map[string]any{"verbose": false,
		"filtersByParty": map[string]any{c.party: map[string]any{"cumulative": []any{map[string]any{"identifierFilter": filter}}}}}})
	status, out, err := postJSON(http.DefaultClient, c.url+"/v2/state/active-contracts", c.token, string(body))
	if err != nil || status != http.StatusOK {
		c.t.Fatalf("active contracts = %d %s, %v", status, out, err)
	}
	var entries []struct {
		ContractEntry struct {
			JsActiveContract struct {
				CreatedEvent struct {
					ContractID     string `json:"contractId"`
					InterfaceViews []struct {
						ViewValue struct {
							Allocation struct {
								TransferLegID string `json:"transferLegId"`
							} `json:"allocation"`
						} `json:"viewValue"`
					} `json:"interfaceViews"`
				} `json:"createdEvent"`
			} `json:"JsActiveContract"`
		} `json:"contractEntry"`
	}
	must(c.t, json.Unmarshal([]byte(out), &entries))
	legs := map[string]string{}
	for _, e := range entries {
		ce := e.ContractEntry.JsActiveContract.CreatedEvent
		if len(ce.InterfaceViews) != 1 {
			c.t.Fatalf("allocation without its view: %s", out)
		}
		legs[ce.InterfaceViews[0].ViewValue.Allocation.TransferLegID] = ce.ContractID
	}
	return legs
}

func exerciseCmd(templateID, cid, choice string, arg any) map[string]any {
	return map[string]any{"ExerciseCommand": map[string]any{"templateId": templateID, "contractId": cid, "choice": choice, "choiceArgument": arg}}
}

// proposeTrade runs the trading app's steps before allocation through the
// Ledger API: the first sender proposes the trade, the other traders
// approve it, and the venue initiates its settlement (allocate within an
// hour, settle within two). It returns the OTCTrade's contract id.
func proposeTrade(t *testing.T, venue *ledgerClient, traders []*ledgerClient, legs map[string][3]string) string {
	t.Helper()
	coin := map[string]any{"admin": dsoParty(t, venue.wallet), "id": "Amulet"}
	transferLegs := map[string]any{}
	for id, l := range legs {
		transferLegs[id] = map[string]any{"sender": l[0], "receiver": l[1], "amount": l[2], "instrumentId": coin, "meta": map[string]any{"values": map[string]any{}}}
	}
	created := traders[0].submit(map[string]any{"CreateCommand": map[string]any{"templateId": otcProposalTemplate,
		"createArguments": map[string]any{"venue": venue.party, "tradeCid": nil, "transferLegs": transferLegs, "approvers": []string{traders[0].party}}}})
	proposal := created["OTCTradeProposal"]
	for _, tr := range traders[1:] {
		proposal = tr.submit(exerciseCmd(otcProposalTemplate, proposal, "OTCTradeProposal_Accept", map[string]any{"approver": tr.party}))["OTCTradeProposal"]
	}
	now := time.Now().UTC()
	trade := venue.submit(exerciseCmd(otcProposalTemplate, proposal, "OTCTradeProposal_InitiateSettlement", map[string]any{
		"prepareUntil": now.Add(time.Hour).Format(time.RFC3339Nano), "settleBefore": now.Add(2 * time.Hour).Format(time.RFC3339Nano)}))["OTCTrade"]
	if trade == "" {
		t.Fatal("the venue's InitiateSettlement created no OTCTrade")
	}
	return trade
}

// dsoParty is the registry's admin (the coin's instrument admin) of the
// wallet at base.
func dsoParty(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/registry/metadata/v1/info")
	must(t, err)
	defer resp.Body.Close()
	var info struct {
		AdminID string `json:"adminId"`
	}
	must(t, json.NewDecoder(resp.Body).Decode(&info))
	if info.AdminID == "" {
		t.Fatal("the registry names no admin")
	}
	return info.AdminID
}

// TestDvPFromTheAllocationsPage is issue 26's DvP: alice proposes an OTC
// trade of coin with bob at a venue through the JSON Ledger API, bob
// approves and the venue initiates its settlement; alice (with
// JavaScript, her page live) and bob (without) each allocate their leg on
// the Allocations page; the venue settles with OTCTrade_Settle through
// the Ledger API; both pages show the trade executed and the balances are
// exact. Then alice rejects a second trade from the page. The page passes
// the accessibility check and fits a phone with the trade on it.
func TestDvPFromTheAllocationsPage(t *testing.T) {
	t.Parallel()
	base, lapi := ownWalletWithLedgerAPI(t)
	alice, bob := newPage(t, true), newPage(t, false)
	loginAt(t, alice, base, "alice", false)
	must(t, alice.Locator("#tap-amount").Fill("100"))
	must(t, testID(alice, "tap-submit").Click())
	mustBalance(t, testID(alice, "balance-cc"), "20,000.00 CC")
	loginAt(t, bob, base, "bob", false)
	must(t, bob.Locator("#tap-amount").Fill("5"))
	must(t, testID(bob, "tap-submit").Click())
	mustBalance(t, testID(bob, "balance-cc"), "1,000.00 CC")
	party := func(p playwright.Page) string {
		s, err := testID(p, "party-id").GetAttribute("title")
		must(t, err)
		return s
	}
	aliceParty, bobParty := party(alice), party(bob)

	venueToken := devToken(t, walletBin, "venue")
	status, out, err := postJSON(http.DefaultClient, base+"/v0/register", venueToken, "")
	if err != nil || status != http.StatusOK {
		t.Fatalf("register the venue = %d %s, %v", status, out, err)
	}
	var reg struct {
		PartyID string `json:"party_id"`
	}
	must(t, json.Unmarshal([]byte(out), &reg))
	venue := &ledgerClient{t: t, url: lapi, token: venueToken, party: reg.PartyID, wallet: base}
	aliceAPI := &ledgerClient{t: t, url: lapi, token: devToken(t, walletBin, "alice"), party: aliceParty, wallet: base}
	bobAPI := &ledgerClient{t: t, url: lapi, token: devToken(t, walletBin, "bob"), party: bobParty, wallet: base}

	// Alice's page is open and live when the trade comes.
	openLive(t, alice, base+"/allocations")
	must(t, expect.Locator(testID(alice, "allocation-requests-empty")).ToBeVisible())
	trade := proposeTrade(t, venue, []*ledgerClient{aliceAPI, bobAPI}, map[string][3]string{
		"leg0": {aliceParty, bobParty, "30"}, "leg1": {bobParty, aliceParty, "12.5"}})
	request := alice.Locator(`[data-testid="allocation-request"][data-cid="` + trade + `"]`)
	must(t, expect.Locator(request).ToBeVisible()) // live: mustBeSameDocument below
	mustBeSameDocument(t, alice, "allocations")
	must(t, expect.Locator(request.GetByTestId("allocation-executor")).ToHaveAttribute("title", reg.PartyID))
	must(t, expect.Locator(request.GetByTestId("allocation-leg")).ToHaveCount(2))
	must(t, expect.Locator(request.GetByTestId("allocate")).ToHaveCount(1))
	checkA11yWidths(t, alice, "alice /allocations with a trade")
	// Home's card of the request, too.
	_, err = alice.Goto(base + "/")
	must(t, err)
	must(t, expect.Locator(alice.Locator(`[data-testid="incoming-card"][data-kind="allocations"]`)).ToHaveCount(1))
	checkA11yWidths(t, alice, "alice / with an allocation request")
	checkLayout(t, alice, "alice", []string{base + "/allocations", base + "/"})
	openLive(t, alice, base+"/allocations") // checkLayout loaded it anew

	// Alice allocates her leg in place.
	must(t, request.Locator(`[data-leg="leg0"]`).GetByTestId("allocate").Click())
	must(t, expect.Locator(testID(alice, "flash")).ToContainText("Allocated"))
	must(t, expect.Locator(request.GetByTestId("leg-allocated")).ToHaveCount(1))
	must(t, expect.Locator(testID(alice, "allocations-row")).ToHaveCount(1))
	mustBalance(t, testID(alice, "allocations-balance"), "19,970.00 CC")
	screenshot(t, alice, "allocations")

	// Bob, without JavaScript, finds the request on Home and allocates.
	_, err = bob.Goto(base + "/")
	must(t, err)
	card := bob.Locator(`[data-testid="incoming-card"][data-kind="allocations"][data-cid="` + trade + `"]`)
	must(t, expect.Locator(card.GetByTestId("incoming-amount")).ToHaveText("12.50 CC"))
	must(t, card.GetByTestId("incoming-allocations").Click())
	waitURL(t, bob, base+"/allocations")
	must(t, bob.Locator(`[data-testid="allocation-request"][data-cid="`+trade+`"] [data-leg="leg1"]`).GetByTestId("allocate").Click())
	waitURL(t, bob, base+"/allocations?done=allocations-allocate")
	must(t, expect.Locator(testID(bob, "leg-allocated")).ToHaveCount(1))
	mustBalance(t, testID(bob, "allocations-balance"), "987.50 CC")

	// The venue finds both allocations and settles the trade.
	legs := venue.allocations()
	if len(legs) != 2 {
		t.Fatalf("the venue sees allocations %v, want leg0 and leg1", legs)
	}
	noExtra := map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}}
	withContext := map[string]any{}
	for leg, cid := range legs {
		withContext[leg] = map[string]any{"_1": cid, "_2": noExtra}
	}
	venue.submit(exerciseCmd(otcTradeTemplate, trade, "OTCTrade_Settle", map[string]any{"allocationsWithContext": withContext}))

	// Alice's live page shows the trade executed, as bob's does on reload.
	must(t, expect.Locator(testID(alice, "allocation-requests-empty")).ToBeVisible())
	must(t, expect.Locator(alice.Locator(`[data-testid="allocations-finished-row"][data-state="executed"]`)).ToHaveCount(2))
	must(t, expect.Locator(testID(alice, "allocations-balance")).ToHaveAttribute("title", "19982.5000000000 CC"))
	mustBeSameDocument(t, alice, "allocations")
	_, err = bob.Goto(base + "/allocations")
	must(t, err)
	must(t, expect.Locator(bob.Locator(`[data-testid="allocations-finished-row"][data-state="executed"]`)).ToHaveCount(2))
	must(t, expect.Locator(testID(bob, "allocations-empty")).ToBeVisible())
	for _, u := range []struct {
		p    playwright.Page
		want string
	}{{alice, "19982.5000000000 CC"}, {bob, "1017.5000000000 CC"}} {
		_, err := u.p.Goto(base + "/")
		must(t, err)
		must(t, expect.Locator(testID(u.p, "balance-cc")).ToHaveAttribute("title", u.want))
		must(t, expect.Locator(testID(u.p, "balance-total")).ToHaveAttribute("title", u.want))
	}

	// A second trade, which alice rejects from the page: it is gone for bob too.
	second := proposeTrade(t, venue, []*ledgerClient{aliceAPI, bobAPI}, map[string][3]string{"leg0": {aliceParty, bobParty, "7"}})
	openLive(t, alice, base+"/allocations")
	rejected := alice.Locator(`[data-testid="allocation-request"][data-cid="` + second + `"]`)
	must(t, rejected.GetByTestId("reject").Click())
	must(t, expect.Locator(testID(alice, "flash")).ToContainText("rejected"))
	must(t, expect.Locator(rejected).ToHaveCount(0))
	_, err = bob.Goto(base + "/allocations")
	must(t, err)
	must(t, expect.Locator(testID(bob, "allocation-requests-empty")).ToBeVisible())
	must(t, expect.Locator(testID(alice, "allocations-balance")).ToHaveAttribute("title", "19982.5000000000 CC"))
}
