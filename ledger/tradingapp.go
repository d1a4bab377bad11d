package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// The token standard's example trading app (Splice's TradingApp.daml), as
// contracts of this ledger so apps can run a DvP through the Ledger API:
// traders propose and approve an OTC trade (OTCTradeProposal), the venue
// initiates its settlement (OTCTrade, an AllocationRequest the traders
// allocate for), and settles it by executing every leg's allocation in one
// update. Each choice's rule is here, as the Daml template has it.

// Templates and interface of the trading app.
const (
	TemplateOTCTradeProposal   = "#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTradeProposal"
	TemplateOTCTrade           = "#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTrade"
	InterfaceAllocationRequest = "#splice-api-token-allocation-request-v1:Splice.Api.Token.AllocationRequestV1:AllocationRequest"
)

// MaxTradeLegs bounds the transfer legs of one trade.
const MaxTradeLegs = 16

// tradeRefID is the settlement reference id of a trade: the proposal's
// template name, as TradingApp's makeTradeRef sets it.
const tradeRefID = "OTCTradeProposal"

// OTCTradeProposal is the trading app's OTCTradeProposal, in Daml-JSON.
type OTCTradeProposal struct {
	Venue        coin.PartyID           `json:"venue"`
	TradeCid     *coin.ContractID       `json:"tradeCid"`
	TransferLegs map[string]TransferLeg `json:"transferLegs"`
	Approvers    []coin.PartyID         `json:"approvers"`
}

// OTCTrade is the trading app's OTCTrade, in Daml-JSON.
type OTCTrade struct {
	Venue        coin.PartyID           `json:"venue"`
	TransferLegs map[string]TransferLeg `json:"transferLegs"`
	TradeCid     coin.ContractID        `json:"tradeCid"`
	CreatedAt    string                 `json:"createdAt"`
	PrepareUntil string                 `json:"prepareUntil"`
	SettleBefore string                 `json:"settleBefore"`
}

// allocationRequestView is the token standard's AllocationRequestView.
type allocationRequestView struct {
	Settlement   SettlementInfo         `json:"settlement"`
	TransferLegs map[string]TransferLeg `json:"transferLegs"`
	Meta         metadata               `json:"meta"`
}

// TradeResult is what a trading-app command made: the contract it created
// (none for a settlement or a rejection) and its update's offset.
type TradeResult struct {
	Created coin.ContractID
	// Executed are the settled (or cancelled) legs' results, by leg id.
	Executed map[string]*AllocationResult
	Offset   int64
}

// tradingParties are the senders and receivers of legs, sorted.
func tradingParties(legs map[string]TransferLeg) []coin.PartyID {
	var ps []coin.PartyID
	for _, l := range legs {
		ps = append(ps, l.Sender, l.Receiver)
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

// settlement is the SettlementInfo of a trade, as OTCTrade builds it.
func (tr *OTCTrade) settlement() SettlementInfo {
	ref := tr.TradeCid
	return SettlementInfo{
		Executor: tr.Venue, SettlementRef: Reference{ID: tradeRefID, CID: &ref}, RequestedAt: tr.CreatedAt,
		AllocateBefore: tr.PrepareUntil, SettleBefore: tr.SettleBefore, Meta: Metadata{Values: map[string]string{}},
	}
}

// allocationSpec is the allocation the trade asks for its leg id.
func (tr *OTCTrade) allocationSpec(id string) AllocationSpecification {
	return AllocationSpecification{Settlement: tr.settlement(), TransferLegID: id, TransferLeg: tr.TransferLegs[id]}
}

// allocatedBy reports whether spec is exactly the allocation the trade
// asks for its leg id.
func (tr *OTCTrade) allocatedBy(id string, spec AllocationSpecification) bool {
	want, _ := json.Marshal(tr.allocationSpec(id))
	got, _ := json.Marshal(spec)
	return string(want) == string(got)
}

// ErrRequirement is a trading-app choice's failed requirement (a Daml
// assertion: the command is refused as the interpreter would).
var ErrRequirement = fmt.Errorf("%w: requirement not met", ErrConflict)

// require is TradingApp's require.
func require(msg string, ok bool) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%w: the requirement '%s' was not met", ErrRequirement, msg)
}

// checkLegs bounds a trade's legs: each moves this registry's coin
// between known parties.
func (l *Ledger) checkLegs(ctx context.Context, legs map[string]TransferLeg) error {
	if len(legs) == 0 || len(legs) > MaxTradeLegs {
		return invalid("transferLegs", "a trade has 1 to %d legs, not %d", MaxTradeLegs, len(legs))
	}
	for id, leg := range legs {
		field := "transferLegs[" + id + "]"
		if err := checkID(field, id); err != nil {
			return err
		}
		if leg.InstrumentID.Admin != l.dso || leg.InstrumentID.ID != InstrumentID {
			return invalid(field+".instrumentId", "%s/%s is not an instrument of this ledger; it holds %s/%s", leg.InstrumentID.Admin, leg.InstrumentID.ID, l.dso, InstrumentID)
		}
		if err := checkAmount(field+".amount", leg.Amount); err != nil {
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
			if err := l.KnownParty(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// ProposeTrade creates an OTCTradeProposal; its approvers sign it, so all
// of them must be among actAs.
func (l *Ledger) ProposeTrade(ctx context.Context, actAs []coin.PartyID, p OTCTradeProposal, key string) (*TradeResult, error) {
	if err := l.checkLegs(ctx, p.TransferLegs); err != nil {
		return nil, err
	}
	if err := l.KnownParty(ctx, p.Venue); err != nil {
		return nil, err
	}
	if len(p.Approvers) == 0 || len(p.Approvers) > 2*MaxTradeLegs {
		return nil, invalid("approvers", "1 to %d parties", 2*MaxTradeLegs)
	}
	if err := authorized(actAs, "creating an OTCTradeProposal", p.Approvers...); err != nil {
		return nil, err
	}
	if p.TradeCid != nil {
		if _, err := coin.ParseContractID(string(*p.TradeCid)); err != nil {
			return nil, invalid("tradeCid", "%v", err)
		}
	}
	return l.tradeTx(ctx, key, "propose-trade", "", "", func(t *txn, _ *store.Contract) (*TradeResult, error) {
		cid := t.create(TemplateOTCTradeProposal, p, append([]coin.PartyID{p.Venue}, append(slices.Clone(p.Approvers), tradingParties(p.TransferLegs)...)...)...)
		return &TradeResult{Created: cid}, nil
	})
}

// AcceptTradeProposal is OTCTradeProposal_Accept: a trading party that has
// not approved yet approves; the proposal is recreated with it.
func (l *Ledger) AcceptTradeProposal(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, approver coin.PartyID, key string) (*TradeResult, error) {
	if err := authorized(actAs, "OTCTradeProposal_Accept", approver); err != nil {
		return nil, err
	}
	return l.tradeTx(ctx, key, "accept-trade-proposal", cid, TemplateOTCTradeProposal, func(t *txn, c *store.Contract) (*TradeResult, error) {
		var p OTCTradeProposal
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
		t.archive(cid)
		return &TradeResult{Created: t.create(TemplateOTCTradeProposal, p, contractParties(c)...)}, nil
	})
}

// RejectTradeProposal is OTCTradeProposal_Reject: a trading party ends the
// proposal.
func (l *Ledger) RejectTradeProposal(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, trader coin.PartyID, key string) (*TradeResult, error) {
	if err := authorized(actAs, "OTCTradeProposal_Reject", trader); err != nil {
		return nil, err
	}
	return l.tradeTx(ctx, key, "reject-trade-proposal", cid, TemplateOTCTradeProposal, func(t *txn, c *store.Contract) (*TradeResult, error) {
		var p OTCTradeProposal
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			return nil, err
		}
		if err := require("Trader is a trading party", slices.Contains(tradingParties(p.TransferLegs), trader)); err != nil {
			return nil, err
		}
		t.archive(cid)
		return &TradeResult{}, nil
	})
}

// InitiateTradeSettlement is OTCTradeProposal_InitiateSettlement: once
// every trading party approved, the venue turns the proposal into an
// OTCTrade the traders allocate for until prepareUntil.
func (l *Ledger) InitiateTradeSettlement(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, prepareUntil, settleBefore string, key string) (*TradeResult, error) {
	prep, err := parseTime("prepareUntil", prepareUntil)
	if err != nil {
		return nil, err
	}
	settle, err := parseTime("settleBefore", settleBefore)
	if err != nil {
		return nil, err
	}
	return l.tradeTx(ctx, key, "initiate-trade-settlement", cid, TemplateOTCTradeProposal, func(t *txn, c *store.Contract) (*TradeResult, error) {
		var p OTCTradeProposal
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			return nil, err
		}
		if err := authorized(actAs, "OTCTradeProposal_InitiateSettlement", p.Venue); err != nil {
			return nil, err
		}
		approvers := slices.Clone(p.Approvers)
		slices.Sort(approvers)
		if err := require("All trading parties have approved", slices.Equal(slices.Compact(approvers), tradingParties(p.TransferLegs))); err != nil {
			return nil, err
		}
		if err := require("Preparation time has not passed", t.now.Before(prep)); err != nil {
			return nil, err
		}
		if err := require("Preparation time before settlement time", prep.Before(settle)); err != nil {
			return nil, err
		}
		tradeCid := cid
		if p.TradeCid != nil {
			tradeCid = *p.TradeCid
		}
		t.archive(cid)
		trade := OTCTrade{Venue: p.Venue, TransferLegs: p.TransferLegs, TradeCid: tradeCid, CreatedAt: FormatTime(t.now),
			PrepareUntil: FormatTime(prep), SettleBefore: FormatTime(settle)}
		return &TradeResult{Created: t.create(TemplateOTCTrade, trade, append([]coin.PartyID{p.Venue}, tradingParties(p.TransferLegs)...)...)}, nil
	})
}

// SettleTrade is OTCTrade_Settle: the venue executes, in one update, the
// allocation of every leg (allocations: leg id -> allocation), each of
// which must be exactly the allocation the trade asks for.
func (l *Ledger) SettleTrade(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, allocations map[string]coin.ContractID, key string) (*TradeResult, error) {
	return l.closeTrade(ctx, actAs, cid, allocations, AllocationExecute, key)
}

// CancelTrade is OTCTrade_Cancel: the venue cancels, in one update, the
// allocations given (any legs), each checked as for settlement, and the
// trade ends; the cancelled allocations' coin returns to their senders.
func (l *Ledger) CancelTrade(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, allocations map[string]coin.ContractID, key string) (*TradeResult, error) {
	return l.closeTrade(ctx, actAs, cid, allocations, AllocationCancel, key)
}

// closeTrade ends the trade cid by making move (execute: every leg, before
// the deadline; cancel: the legs given) on its allocations.
func (l *Ledger) closeTrade(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, allocations map[string]coin.ContractID, move AllocationMove, key string) (*TradeResult, error) {
	choice := map[AllocationMove]string{AllocationExecute: "OTCTrade_Settle", AllocationCancel: "OTCTrade_Cancel"}[move]
	return l.tradeTx(ctx, key, strings.ToLower(choice), cid, TemplateOTCTrade, func(t *txn, c *store.Contract) (*TradeResult, error) {
		var tr OTCTrade
		if err := json.Unmarshal([]byte(c.Payload), &tr); err != nil {
			return nil, err
		}
		if err := authorized(actAs, choice, tr.Venue); err != nil {
			return nil, err
		}
		if move == AllocationExecute {
			settleBefore, err := time.Parse(time.RFC3339Nano, tr.SettleBefore)
			if err != nil {
				return nil, err
			}
			if err := require("Settlement deadline has not passed", t.now.Before(settleBefore)); err != nil {
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
			if !ok && move == AllocationExecute {
				return nil, require("Allocation cid and extra arg is missing for leg "+id, false)
			}
			if !ok {
				continue
			}
			ac, p, err := l.allocationIn(ctx, t.tx, acid)
			if err == nil && ac.ArchivedOffset != nil {
				err = fmt.Errorf("allocation %s: %w", acid, ErrAllocationFinished)
			}
			if err != nil {
				return nil, err
			}
			if err := require("Allocation matches expected allocation (leg "+id+")", tr.allocatedBy(id, p.Allocation)); err != nil {
				return nil, err
			}
			if err := CheckAllocationMove(p.Allocation, move, tr.Venue, t.now); err != nil {
				return nil, fmt.Errorf("allocation %s: %w", acid, err)
			}
			if res.Executed[id], err = t.finishAllocation(ctx, acid, p, move); err != nil {
				return nil, err
			}
		}
		t.archive(cid)
		return res, nil
	})
}

// tradeTx runs one trading-app command as one ledger update
// (contractCommand).
func (l *Ledger) tradeTx(ctx context.Context, key, kind string, cid coin.ContractID, template string, fn func(t *txn, c *store.Contract) (*TradeResult, error)) (*TradeResult, error) {
	return contractCommand(ctx, l, "trading-app:", key, kind, cid, func(ctx context.Context, tx bun.IDB) (*store.Contract, error) {
		c, err := store.ContractByID(ctx, tx, cid)
		if err == nil && (c.TemplateID != template || c.ArchivedOffset != nil) {
			err = ErrNotFound
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s is not active: %w", template, cid, err)
		}
		return c, nil
	}, fn)
}

func (r *TradeResult) Committed(offset int64) coin.ContractID {
	r.Offset = offset
	return r.Created
}

// contractCommand is ContractCommand for the core's own workflows, whose
// bodies work on the txn.
func contractCommand[R CommandResult](ctx context.Context, l *Ledger, prefix, key, kind string, cid coin.ContractID,
	read func(ctx context.Context, tx bun.IDB) (*store.Contract, error), fn func(t *txn, c *store.Contract) (R, error)) (R, error) {
	return ContractCommand(ctx, l, prefix, key, kind, cid, read, func(x *Tx, c *store.Contract) (R, error) { return fn(x.t(), c) })
}

// RejectAllocationRequest is AllocationRequest_Reject on an OTCTrade: a
// sender of one of its legs (actor, among actAs) declines to allocate, and
// the trade ends.
func (l *Ledger) RejectAllocationRequest(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, actor coin.PartyID, key string) (*TradeResult, error) {
	if err := authorized(actAs, "AllocationRequest_Reject", actor); err != nil {
		return nil, err
	}
	return l.tradeTx(ctx, key, "reject-allocation-request", cid, TemplateOTCTrade, func(t *txn, c *store.Contract) (*TradeResult, error) {
		if !slices.Contains(contractParties(c), actor) {
			// Not a stakeholder: the trade is invisible to it.
			return nil, fmt.Errorf("%s %s: %w", TemplateOTCTrade, cid, ErrNotFound)
		}
		var tr OTCTrade
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
		t.archive(cid)
		return &TradeResult{}, nil
	})
}

// WithdrawAllocationRequest is AllocationRequest_Withdraw on an OTCTrade:
// the venue (its settlement's executor) ends the trade.
func (l *Ledger) WithdrawAllocationRequest(ctx context.Context, actAs []coin.PartyID, cid coin.ContractID, key string) (*TradeResult, error) {
	return l.tradeTx(ctx, key, "withdraw-allocation-request", cid, TemplateOTCTrade, func(t *txn, c *store.Contract) (*TradeResult, error) {
		var tr OTCTrade
		if err := json.Unmarshal([]byte(c.Payload), &tr); err != nil {
			return nil, err
		}
		if err := authorized(actAs, "AllocationRequest_Withdraw", tr.Venue); err != nil {
			return nil, err
		}
		t.archive(cid)
		return &TradeResult{}, nil
	})
}

// AllocationRequestsOf lists the active OTC trades party trades in (a
// sender or receiver of a leg), oldest first.
func (l *Ledger) AllocationRequestsOf(ctx context.Context, party coin.PartyID) ([]Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateOTCTrade, party)
	if err != nil {
		return nil, err
	}
	var out []Contract
	for i := range cs {
		var tr OTCTrade
		if err := json.Unmarshal([]byte(cs[i].Payload), &tr); err != nil {
			return nil, fmt.Errorf("OTC trade %s: %w", cs[i].ContractID, err)
		}
		if slices.Contains(tradingParties(tr.TransferLegs), party) {
			out = append(out, l.contractView(&cs[i]))
		}
	}
	return out, nil
}
