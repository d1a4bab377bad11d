package allocations_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/google/go-cmp/cmp"
)

// TestTradingAppDvP runs the trading app's DvP on both engines: alice
// proposes a trade of coin with bob at a venue, bob approves, the venue
// initiates settlement, both allocate what the trade's AllocationRequest
// view asks for, and the venue settles both legs in one update; each
// choice's rule refuses what the Daml template refuses.
func TestTradingAppDvP(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock) {
		ctx := context.Background()
		alice, bob, venue := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "100")
		ledgertest.Mint(t, l, bob, "100")
		cc := ledger.InstrumentRef{Admin: l.DSO(), ID: ledger.InstrumentID}
		legs := map[string]allocationdata.TransferLeg{
			"leg0": {Sender: alice, Receiver: bob, Amount: coin.MustParse("30"), InstrumentID: cc},
			"leg1": {Sender: bob, Receiver: alice, Amount: coin.MustParse("10.5"), InstrumentID: cc},
		}
		if _, err := s.ProposeTrade(ctx, []coin.PartyID{venue}, allocationdata.OTCTradeProposal{Venue: venue, TransferLegs: legs, Approvers: []coin.PartyID{alice}}, commands.Command{}); !errors.Is(err, fault.ErrForbidden) {
			t.Fatalf("propose without the approver's authority = %v", err)
		}
		prop, err := s.ProposeTrade(ctx, []coin.PartyID{alice}, allocationdata.OTCTradeProposal{Venue: venue, TransferLegs: legs, Approvers: []coin.PartyID{alice}}, commands.Command{Key: "p1"})
		if err != nil {
			t.Fatal(err)
		}
		now := clock.Now()
		prepare, settle := ledger.FormatTime(now.Add(time.Hour)), ledger.FormatTime(now.Add(2*time.Hour))
		if _, err := s.InitiateTradeSettlement(ctx, []coin.PartyID{venue}, prop.Created, prepare, settle, commands.Command{}); !errors.Is(err, fault.ErrConflict) {
			t.Fatalf("initiate before bob approved = %v", err)
		}
		if _, err := s.AcceptTradeProposal(ctx, []coin.PartyID{alice}, prop.Created, alice, commands.Command{}); !errors.Is(err, fault.ErrConflict) {
			t.Fatalf("alice approving twice = %v", err)
		}
		acc, err := s.AcceptTradeProposal(ctx, []coin.PartyID{bob}, prop.Created, bob, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AcceptTradeProposal(ctx, []coin.PartyID{bob}, prop.Created, bob, commands.Command{}); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("accepting the archived proposal = %v", err)
		}
		init, err := s.InitiateTradeSettlement(ctx, []coin.PartyID{venue}, acc.Created, prepare, settle, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		trade, err := apiread.New(l).LedgerContractByID(ctx, init.Created)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := apiread.New(l).InterfaceView(trade, allocationdata.InterfaceAllocationRequest)
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Settlement   allocationdata.SettlementInfo         `json:"settlement"`
			TransferLegs map[string]allocationdata.TransferLeg `json:"transferLegs"`
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		if req.Settlement.SettlementRef.CID == nil || *req.Settlement.SettlementRef.CID != prop.Created || req.Settlement.Executor != venue {
			t.Fatalf("AllocationRequest view settlement = %+v", req.Settlement)
		}
		allocs := map[string]coin.ContractID{}
		for id, leg := range req.TransferLegs {
			res, err := s.Allocate(ctx, allocationdata.AllocationSpecification{Settlement: req.Settlement, TransferLegID: id, TransferLeg: leg}, commands.Command{})
			if err != nil {
				t.Fatal(err)
			}
			allocs[id] = res.AllocationCID
		}
		if _, err := s.SettleTrade(ctx, []coin.PartyID{alice}, init.Created, allocs, commands.Command{}); !errors.Is(err, fault.ErrForbidden) {
			t.Fatalf("settle by alice = %v", err)
		}
		swapped := map[string]coin.ContractID{"leg0": allocs["leg1"], "leg1": allocs["leg0"]}
		if _, err := s.SettleTrade(ctx, []coin.PartyID{venue}, init.Created, swapped, commands.Command{}); !errors.Is(err, fault.ErrConflict) {
			t.Fatalf("settle with swapped allocations = %v", err)
		}
		if _, err := s.SettleTrade(ctx, []coin.PartyID{venue}, init.Created, map[string]coin.ContractID{"leg0": allocs["leg0"]}, commands.Command{}); !errors.Is(err, fault.ErrConflict) {
			t.Fatalf("settle with a leg missing = %v", err)
		}
		if diff := cmp.Diff([]string{"unlocked=70.0000000000 locked=30.0000000000", "unlocked=89.5000000000 locked=10.5000000000"}, ledgertest.Balances(t, l, alice, bob)); diff != "" {
			t.Fatalf("after allocating (-want +got):\n%s", diff)
		}
		res, err := s.SettleTrade(ctx, []coin.PartyID{venue}, init.Created, allocs, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Executed) != 2 || res.Executed["leg0"].Offset != 0 {
			t.Errorf("executed = %+v", res.Executed)
		}
		if diff := cmp.Diff([]string{"unlocked=80.5000000000 locked=0.0000000000", "unlocked=119.5000000000 locked=0.0000000000"}, ledgertest.Balances(t, l, alice, bob)); diff != "" {
			t.Errorf("after settlement (-want +got):\n%s", diff)
		}
		for _, cid := range append([]coin.ContractID{init.Created}, allocs["leg0"], allocs["leg1"]) {
			if c, err := apiread.New(l).LedgerContractByID(ctx, cid); err != nil || c.ArchivedOffset != res.Offset {
				t.Errorf("%s archived at %d, %v; want the settlement's offset %d", cid, c.ArchivedOffset, err, res.Offset)
			}
		}
		if _, err := s.SettleTrade(ctx, []coin.PartyID{venue}, init.Created, allocs, commands.Command{}); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("settling twice = %v", err)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestTradingAppCancelAndWithdraw: the venue cancels a trade with an
// allocated leg (OTCTrade_Cancel: that coin returns) and withdraws
// another (AllocationRequest_Withdraw), on both engines.
func TestTradingAppCancelAndWithdraw(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock) {
		ctx := context.Background()
		alice, bob, venue := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "100")
		cc := ledger.InstrumentRef{Admin: l.DSO(), ID: ledger.InstrumentID}
		legs := map[string]allocationdata.TransferLeg{
			"a": {Sender: alice, Receiver: bob, Amount: coin.MustParse("20"), InstrumentID: cc},
			"b": {Sender: bob, Receiver: alice, Amount: coin.MustParse("5"), InstrumentID: cc},
		}
		trade := func() coin.ContractID {
			t.Helper()
			p, err := s.ProposeTrade(ctx, []coin.PartyID{alice, bob}, allocationdata.OTCTradeProposal{Venue: venue, TransferLegs: legs, Approvers: []coin.PartyID{alice, bob}}, commands.Command{})
			if err != nil {
				t.Fatal(err)
			}
			now := clock.Now()
			tr, err := s.InitiateTradeSettlement(ctx, []coin.PartyID{venue}, p.Created, ledger.FormatTime(now.Add(time.Hour)), ledger.FormatTime(now.Add(2*time.Hour)), commands.Command{})
			if err != nil {
				t.Fatal(err)
			}
			return tr.Created
		}
		first := trade()
		tc, err := apiread.New(l).LedgerContractByID(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := apiread.New(l).InterfaceView(tc, allocationdata.InterfaceAllocationRequest)
		var req struct {
			Settlement allocationdata.SettlementInfo `json:"settlement"`
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		a, err := s.Allocate(ctx, allocationdata.AllocationSpecification{Settlement: req.Settlement, TransferLegID: "a", TransferLeg: legs["a"]}, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CancelTrade(ctx, []coin.PartyID{alice}, first, map[string]coin.ContractID{"a": a.AllocationCID}, commands.Command{}); !errors.Is(err, fault.ErrForbidden) {
			t.Fatalf("cancel by alice = %v", err)
		}
		if _, err := s.CancelTrade(ctx, []coin.PartyID{venue}, first, map[string]coin.ContractID{"a": a.AllocationCID}, commands.Command{}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"unlocked=100.0000000000 locked=0.0000000000"}, ledgertest.Balances(t, l, alice)); diff != "" {
			t.Errorf("after cancel (-want +got):\n%s", diff)
		}
		second := trade()
		if _, err := s.WithdrawAllocationRequest(ctx, []coin.PartyID{alice}, second, commands.Command{}); !errors.Is(err, fault.ErrForbidden) {
			t.Fatalf("withdraw by alice = %v", err)
		}
		if _, err := s.WithdrawAllocationRequest(ctx, []coin.PartyID{venue}, second, commands.Command{}); err != nil {
			t.Fatal(err)
		}
		for _, cid := range []coin.ContractID{first, second, a.AllocationCID} {
			if c, err := apiread.New(l).LedgerContractByID(ctx, cid); err != nil || c.ArchivedOffset == 0 {
				t.Errorf("%s still active (%v)", cid, err)
			}
		}
		ledgertest.Conserved(t, l)
	})
}
