package allocations

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// The token standard's example trading app (Splice's TradingApp.daml), as
// contracts of this ledger so apps can run a DvP through the Ledger API:
// traders propose and approve an OTC trade (OTCTradeProposal), the venue
// initiates its settlement (OTCTrade, an AllocationRequest the traders
// allocate for), and settles it by executing every leg's allocation in one
// update. Each choice's rule is here, as the Daml template has it.

// TradeResult is what a trading-app command made: the contract it created
// (none for a settlement or a rejection) and its update's offset.
type TradeResult struct {
	Created coin.ContractID
	// Executed are the settled (or cancelled) legs' results, by leg id.
	Executed map[string]*AllocationResult
	Offset   int64
}

// tradingParties are the senders and receivers of legs, sorted.
func tradingParties(legs map[string]allocationdata.TransferLeg) []coin.PartyID {
	var ps []coin.PartyID
	for _, l := range legs {
		ps = append(ps, l.Sender, l.Receiver)
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

// require is TradingApp's require.
func require(msg string, ok bool) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%w: the requirement '%s' was not met", fault.ErrRequirement, msg)
}

// checkLegs bounds a trade's legs: each moves this registry's coin
// between known parties.
func (s *Service) checkLegs(ctx context.Context, legs map[string]allocationdata.TransferLeg) error {
	if len(legs) == 0 || len(legs) > allocationdata.MaxTradeLegs {
		return fault.Invalid("transferLegs", "a trade has 1 to %d legs, not %d", allocationdata.MaxTradeLegs, len(legs))
	}
	for id, leg := range legs {
		field := "transferLegs[" + id + "]"
		if err := bounds.CheckID(field, id); err != nil {
			return err
		}
		if dso := s.l.DSO(); leg.InstrumentID.Admin != dso || leg.InstrumentID.ID != ledger.InstrumentID {
			return fault.Invalid(field+".instrumentId", "%s/%s is not an instrument of this ledger; it holds %s/%s", leg.InstrumentID.Admin, leg.InstrumentID.ID, dso, ledger.InstrumentID)
		}
		if err := bounds.CheckAmount(field+".amount", leg.Amount); err != nil {
			return err
		}
		if err := checkMeta(field+".meta", leg.Meta); err != nil {
			return err
		}
		if leg.Meta.Values == nil {
			leg.Meta.Values = map[string]string{}
			legs[id] = leg
		}
		for _, p := range []coin.PartyID{leg.Sender, leg.Receiver} {
			if err := s.l.KnownParty(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// ProposeTrade creates an OTCTradeProposal; its approvers sign it, so all
// of them must be among actAs.
func (s *Service) ProposeTrade(ctx context.Context, actAs []coin.PartyID, p allocationdata.OTCTradeProposal, cmd commands.Command) (*TradeResult, error) {
	if err := s.checkLegs(ctx, p.TransferLegs); err != nil {
		return nil, err
	}
	if err := s.l.KnownParty(ctx, p.Venue); err != nil {
		return nil, err
	}
	if len(p.Approvers) == 0 || len(p.Approvers) > 2*allocationdata.MaxTradeLegs {
		return nil, fault.Invalid("approvers", "1 to %d parties", 2*allocationdata.MaxTradeLegs)
	}
	if err := ledger.Authorized(actAs, "creating an OTCTradeProposal", p.Approvers...); err != nil {
		return nil, err
	}
	if p.TradeCid != nil {
		if _, err := coin.ParseContractID(string(*p.TradeCid)); err != nil {
			return nil, fault.Invalid("tradeCid", "%v", err)
		}
	}
	return s.tradeTx(ctx, cmd, "propose-trade", "", "", func(x *ledger.Tx, _ *store.Contract) (*TradeResult, error) {
		cid := x.Create(allocationdata.TemplateOTCTradeProposal, p, append([]coin.PartyID{p.Venue}, append(slices.Clone(p.Approvers), tradingParties(p.TransferLegs)...)...)...)
		return &TradeResult{Created: cid}, nil
	})
}

// AcceptTradeProposal is OTCTradeProposal_Accept: a trading party that has
// not approved yet approves; the proposal is recreated with it.
func (s *Service) AcceptTradeProposal(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, approver coin.PartyID, cmd commands.Command) (*TradeResult, error) {
	if err := ledger.Authorized(actAs, "OTCTradeProposal_Accept", approver); err != nil {
		return nil, err
	}
	return s.tradeTx(ctx, cmd, "accept-trade-proposal", cid, allocationdata.TemplateOTCTradeProposal, func(x *ledger.Tx, c *store.Contract) (*TradeResult, error) {
		var p allocationdata.OTCTradeProposal
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			return nil, err
		}
		if err := require("Approver is a trading party", slices.Contains(tradingParties(p.TransferLegs), approver)); err != nil {
			return nil, err
		}
		if err := require("Approver is new", !slices.Contains(p.Approvers, approver)); err != nil {
			return nil, err
		}
		if p.TradeCid == nil {
			p.TradeCid = &cid
		}
		p.Approvers = append([]coin.PartyID{approver}, p.Approvers...)
		x.Archive(cid)
		return &TradeResult{Created: x.Create(allocationdata.TemplateOTCTradeProposal, p, ledger.ContractParties(c)...)}, nil
	})
}

// RejectTradeProposal is OTCTradeProposal_Reject: a trading party ends the
// proposal.
func (s *Service) RejectTradeProposal(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, trader coin.PartyID, cmd commands.Command) (*TradeResult, error) {
	if err := ledger.Authorized(actAs, "OTCTradeProposal_Reject", trader); err != nil {
		return nil, err
	}
	return s.tradeTx(ctx, cmd, "reject-trade-proposal", cid, allocationdata.TemplateOTCTradeProposal, func(x *ledger.Tx, c *store.Contract) (*TradeResult, error) {
		var p allocationdata.OTCTradeProposal
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			return nil, err
		}
		if err := require("Trader is a trading party", slices.Contains(tradingParties(p.TransferLegs), trader)); err != nil {
			return nil, err
		}
		x.Archive(cid)
		return &TradeResult{}, nil
	})
}

// InitiateTradeSettlement is OTCTradeProposal_InitiateSettlement: once
// every trading party approved, the venue turns the proposal into an
// OTCTrade the traders allocate for until prepareUntil.
func (s *Service) InitiateTradeSettlement(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, prepareUntil, settleBefore string, cmd commands.Command) (*TradeResult, error) {
	prep, err := bounds.ParseTime("prepareUntil", prepareUntil)
	if err != nil {
		return nil, err
	}
	settle, err := bounds.ParseTime("settleBefore", settleBefore)
	if err != nil {
		return nil, err
	}
	return s.tradeTx(ctx, cmd, "initiate-trade-settlement", cid, allocationdata.TemplateOTCTradeProposal, func(x *ledger.Tx, c *store.Contract) (*TradeResult, error) {
		var p allocationdata.OTCTradeProposal
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			return nil, err
		}
		if err := ledger.Authorized(actAs, "OTCTradeProposal_InitiateSettlement", p.Venue); err != nil {
			return nil, err
		}
		approvers := slices.Clone(p.Approvers)
		slices.Sort(approvers)
		if err := require("All trading parties have approved", slices.Equal(slices.Compact(approvers), tradingParties(p.TransferLegs))); err != nil {
			return nil, err
		}
		if err := require("Preparation time has not passed", x.Now().Before(prep)); err != nil {
			return nil, err
		}
		if err := require("Preparation time before settlement time", prep.Before(settle)); err != nil {
			return nil, err
		}
		tradeCid := cid
		if p.TradeCid != nil {
			tradeCid = *p.TradeCid
		}
		x.Archive(cid)
		trade := allocationdata.OTCTrade{Venue: p.Venue, TransferLegs: p.TransferLegs, TradeCid: tradeCid, CreatedAt: ledger.FormatTime(x.Now()),
			PrepareUntil: ledger.FormatTime(prep), SettleBefore: ledger.FormatTime(settle)}
		return &TradeResult{Created: x.Create(allocationdata.TemplateOTCTrade, trade, append([]coin.PartyID{p.Venue}, tradingParties(p.TransferLegs)...)...)}, nil
	})
}

// SettleTrade is OTCTrade_Settle: the venue executes, in one update, the
// allocation of every leg (allocations: leg id -> allocation), each of
// which must be exactly the allocation the trade asks for.
func (s *Service) SettleTrade(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, allocations map[string]coin.ContractID, cmd commands.Command) (*TradeResult, error) {
	return s.closeTrade(ctx, actAs, cid, allocations, allocationdata.AllocationExecute, cmd)
}

// CancelTrade is OTCTrade_Cancel: the venue cancels, in one update, the
// allocations given (any legs), each checked as for settlement, and the
// trade ends; the cancelled allocations' coin returns to their senders.
func (s *Service) CancelTrade(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, allocations map[string]coin.ContractID, cmd commands.Command) (*TradeResult, error) {
	return s.closeTrade(ctx, actAs, cid, allocations, allocationdata.AllocationCancel, cmd)
}

// closeTrade ends the trade cid by making move (execute: every leg, before
// the deadline; cancel: the legs given) on its allocations.
func (s *Service) closeTrade(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, allocations map[string]coin.ContractID, move allocationdata.AllocationMove, cmd commands.Command) (*TradeResult, error) {
	choice := map[allocationdata.AllocationMove]string{allocationdata.AllocationExecute: "OTCTrade_Settle", allocationdata.AllocationCancel: "OTCTrade_Cancel"}[move]
	return s.tradeTx(ctx, cmd, strings.ToLower(choice), cid, allocationdata.TemplateOTCTrade, func(x *ledger.Tx, c *store.Contract) (*TradeResult, error) {
		var tr allocationdata.OTCTrade
		if err := json.Unmarshal([]byte(c.Payload), &tr); err != nil {
			return nil, err
		}
		if err := ledger.Authorized(actAs, choice, tr.Venue); err != nil {
			return nil, err
		}
		if move == allocationdata.AllocationExecute {
			settleBefore, err := time.Parse(time.RFC3339Nano, tr.SettleBefore)
			if err != nil {
				return nil, err
			}
			if err := require("Settlement deadline has not passed", x.Now().Before(settleBefore)); err != nil {
				return nil, err
			}
		}
		for id := range allocations {
			if _, ok := tr.TransferLegs[id]; !ok {
				return nil, require("Allocation with context provided for unexpected leg "+id, false)
			}
		}
		legIDs := make([]string, 0, len(tr.TransferLegs))
		for id := range tr.TransferLegs {
			legIDs = append(legIDs, id)
		}
		slices.Sort(legIDs)
		res := &TradeResult{Executed: map[string]*AllocationResult{}}
		for _, id := range legIDs {
			acid, ok := allocations[id]
			if !ok && move == allocationdata.AllocationExecute {
				return nil, require("Allocation cid and extra arg is missing for leg "+id, false)
			}
			if !ok {
				continue
			}
			ac, p, err := allocationdata.AllocationContract(ctx, x.DB(), acid)
			if err == nil && ac.ArchivedOffset != nil {
				err = fmt.Errorf("allocation %s: %w", acid, ErrAllocationFinished)
			}
			if err != nil {
				return nil, err
			}
			if err := require("Allocation matches expected allocation (leg "+id+")", tr.AllocatedBy(id, p.Allocation)); err != nil {
				return nil, err
			}
			if err := CheckAllocationMove(p.Allocation, move, tr.Venue, x.Now()); err != nil {
				return nil, fmt.Errorf("allocation %s: %w", acid, err)
			}
			if res.Executed[id], err = s.finishAllocation(ctx, x, acid, p, move); err != nil {
				return nil, err
			}
		}
		x.Archive(cid)
		return res, nil
	})
}

// tradeTx runs one trading-app command as one ledger update
// (ledger.ContractCommand), recording cmd.
func (s *Service) tradeTx(ctx context.Context, cmd commands.Command, kind string, cid coin.ContractID, template string, fn func(x *ledger.Tx, c *store.Contract) (*TradeResult, error)) (*TradeResult, error) {
	return ledger.ContractCommand(ctx, s.l, "trading-app:", cmd, kind, cid, func(ctx context.Context, tx bun.IDB) (*store.Contract, error) {
		c, err := store.ContractByID(ctx, tx, cid)
		if err == nil && (c.TemplateID != template || c.ArchivedOffset != nil) {
			err = fault.ErrNotFound
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s is not active: %w", template, cid, err)
		}
		return c, nil
	}, fn)
}

// Committed records the update's offset and returns the contract created.
func (r *TradeResult) Committed(offset int64) coin.ContractID {
	r.Offset = offset
	return r.Created
}

// RejectAllocationRequest is AllocationRequest_Reject on an OTCTrade: a
// sender of one of its legs (actor, among actAs) declines to allocate, and
// the trade ends.
func (s *Service) RejectAllocationRequest(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, actor coin.PartyID, cmd commands.Command) (*TradeResult, error) {
	if err := ledger.Authorized(actAs, "AllocationRequest_Reject", actor); err != nil {
		return nil, err
	}
	return s.tradeTx(ctx, cmd, "reject-allocation-request", cid, allocationdata.TemplateOTCTrade, func(x *ledger.Tx, c *store.Contract) (*TradeResult, error) {
		if !slices.Contains(ledger.ContractParties(c), actor) {
			// Not a stakeholder: the trade is invisible to it.
			return nil, fmt.Errorf("%s %s: %w", allocationdata.TemplateOTCTrade, cid, fault.ErrNotFound)
		}
		var tr allocationdata.OTCTrade
		if err := json.Unmarshal([]byte(c.Payload), &tr); err != nil {
			return nil, err
		}
		sender := false
		for _, leg := range tr.TransferLegs {
			sender = sender || leg.Sender == actor
		}
		if err := require("Actor is a sender", sender); err != nil {
			return nil, err
		}
		x.Archive(cid)
		return &TradeResult{}, nil
	})
}

// WithdrawAllocationRequest is AllocationRequest_Withdraw on an OTCTrade:
// the venue (its settlement's executor) ends the trade.
func (s *Service) WithdrawAllocationRequest(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, cmd commands.Command) (*TradeResult, error) {
	return s.tradeTx(ctx, cmd, "withdraw-allocation-request", cid, allocationdata.TemplateOTCTrade, func(x *ledger.Tx, c *store.Contract) (*TradeResult, error) {
		var tr allocationdata.OTCTrade
		if err := json.Unmarshal([]byte(c.Payload), &tr); err != nil {
			return nil, err
		}
		if err := ledger.Authorized(actAs, "AllocationRequest_Withdraw", tr.Venue); err != nil {
			return nil, err
		}
		x.Archive(cid)
		return &TradeResult{}, nil
	})
}

// AllocationRequestsOf lists the active OTC trades party trades in (a
// sender or receiver of a leg), oldest first.
func (s *Service) AllocationRequestsOf(ctx context.Context, party coin.PartyID) ([]ledger.Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), allocationdata.TemplateOTCTrade, party)
	if err != nil {
		return nil, err
	}
	var out []ledger.Contract
	for i := range cs {
		var tr allocationdata.OTCTrade
		if err := json.Unmarshal([]byte(cs[i].Payload), &tr); err != nil {
			return nil, fmt.Errorf("OTC trade %s: %w", cs[i].ContractID, err)
		}
		if slices.Contains(tradingParties(tr.TransferLegs), party) {
			out = append(out, s.l.ContractView(&cs[i]))
		}
	}
	return out, nil
}
