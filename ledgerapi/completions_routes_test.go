package ledgerapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/commands"
)

// TestCompletionsOfEveryRoute runs, through submit-and-wait, the routes of
// the command table no other test runs to success (Allocation_Withdraw,
// OTCTradeProposal_Reject, AllocationRequest_Withdraw,
// AppPaymentRequest_Reject and _Withdraw): each command's success writes
// its completion with its effects. The test clients check that of every
// command they submit and wait for (completing), so with this test every
// route the table serves is checked; a route that ran its command without
// its completion (the context that carried it before was easy to drop)
// fails here.
func TestCompletionsOfEveryRoute(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob, venue, shop := e.user("alice", "100"), e.user("bob", "100"), e.user("venue", ""), e.user("shop", "")
		begin := e.ledgerEnd()
		dso := e.l.DSO()
		cc := map[string]any{"admin": dso, "id": "Amulet"}
		legs := map[string]any{
			"leg0": map[string]any{"sender": alice, "receiver": bob, "amount": "30.0000000000", "instrumentId": cc, "meta": map[string]any{"values": map[string]any{}}},
		}
		propose := func(id string) createdEvent {
			t.Helper()
			e.mustCommand("alice", id, alice, map[string]any{"CreateCommand": map[string]any{"templateId": proposalTemplate,
				"createArguments": map[string]any{"venue": venue, "tradeCid": nil, "transferLegs": legs, "approvers": []coin.PartyID{alice}}}}, nil)
			return only(t, "bob's proposals", e.acs("bob", filter(bob, templateFilter(proposalTemplate, false)), e.ledgerEnd()))
		}

		// OTCTradeProposal_Reject by a trader.
		prop := propose("propose-1")
		e.mustCommand("bob", "reject-proposal", bob, exercise(proposalTemplate, prop.ContractID, "OTCTradeProposal_Reject", map[string]any{"trader": bob}), nil)

		// AllocationRequest_Withdraw by the venue, of a trade in settlement.
		prop = propose("propose-2")
		e.mustCommand("bob", "accept-proposal", bob, exercise(proposalTemplate, prop.ContractID, "OTCTradeProposal_Accept", map[string]any{"approver": bob}), nil)
		prop = only(t, "venue's proposals", e.acs("venue", filter(venue, templateFilter(proposalTemplate, false)), e.ledgerEnd()))
		now := e.clock.Now()
		e.mustCommand("venue", "initiate", venue, exercise(proposalTemplate, prop.ContractID, "OTCTradeProposal_InitiateSettlement", map[string]any{
			"prepareUntil": now.Add(time.Hour).Format(time.RFC3339Nano), "settleBefore": now.Add(2 * time.Hour).Format(time.RFC3339Nano)}), nil)
		trade := only(t, "venue's trades", e.acs("venue", filter(venue, templateFilter(tradeTemplate, false)), e.ledgerEnd()))
		e.mustCommand("venue", "withdraw-request", venue, exercise(allocRequestIface, trade.ContractID, "AllocationRequest_Withdraw",
			map[string]any{"extraArgs": emptyExtra()}), nil)

		// Allocation_Withdraw by the sender.
		alloc, err := e.w.Allocations.Allocate(ctx, allocationdata.AllocationSpecification{
			Settlement: allocationdata.SettlementInfo{Executor: venue, SettlementRef: allocationdata.Reference{ID: "trade-1"},
				RequestedAt: ledger.FormatTime(now), AllocateBefore: ledger.FormatTime(now.Add(30 * time.Minute)), SettleBefore: ledger.FormatTime(now.Add(time.Hour))},
			TransferLegID: "leg0",
			TransferLeg:   allocationdata.TransferLeg{Sender: alice, Receiver: bob, Amount: coin.MustParse("10"), InstrumentID: ledger.InstrumentRef{Admin: dso, ID: ledger.InstrumentID}},
		}, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		e.mustCommand("alice", "withdraw-allocation", alice, exercise(allocationIface, string(alloc.AllocationCID), "Allocation_Withdraw",
			map[string]any{"extraArgs": emptyExtra()}), nil)

		// AppPaymentRequest_Reject by the sender, _Withdraw by the provider.
		request := func(id string) createdEvent {
			t.Helper()
			e.mustCommand("shop", id, shop, map[string]any{"CreateCommand": map[string]any{"templateId": paymentRequestTemplate, "createArguments": map[string]any{
				"sender": alice, "provider": shop, "dso": dso, "description": "a coffee origin=https://shop.example",
				"expiresAt":       e.clock.Now().Add(time.Hour).Format(time.RFC3339Nano),
				"receiverAmounts": []any{map[string]any{"receiver": shop, "amount": map[string]any{"amount": "1", "unit": "AmuletUnit"}}},
			}}}, nil)
			return only(t, "alice's payment requests", e.acs("alice", filter(alice, templateFilter(paymentRequestTemplate, false)), e.ledgerEnd()))
		}
		req := request("request-1")
		e.mustCommand("alice", "reject-payment", alice, exercise(paymentRequestTemplate, req.ContractID, "AppPaymentRequest_Reject", map[string]any{}), nil)
		req = request("request-2")
		e.mustCommand("shop", "withdraw-payment", shop, exercise(paymentRequestTemplate, req.ContractID, "AppPaymentRequest_Withdraw", map[string]any{}), nil)

		// What the transport checked one by one, in order.
		for _, w := range []struct {
			user  string
			party coin.PartyID
			ids   []string
		}{
			{"alice", alice, []string{"propose-1", "propose-2", "withdraw-allocation", "reject-payment"}},
			{"bob", bob, []string{"reject-proposal", "accept-proposal"}},
			{"venue", venue, []string{"initiate", "withdraw-request"}},
			{"shop", shop, []string{"request-1", "request-2", "withdraw-payment"}},
		} {
			cs := e.completions(w.user, []coin.PartyID{w.party}, begin, 0)
			if len(cs) != len(w.ids) {
				t.Errorf("%s's completions %+v, want %v", w.user, cs, w.ids)
				continue
			}
			for i, c := range cs {
				if c.CommandID != w.ids[i] || c.Status.Code != 0 || c.UpdateID == "" {
					t.Errorf("%s's completion %d: %+v, want %s's success", w.user, i, c, w.ids[i])
				}
			}
		}
	})
}
