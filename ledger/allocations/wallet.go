package allocations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// The wallet's view of the DvP: the allocation requests of apps (the
// trading app's OTCTrade) a party trades in, with its legs and whether it
// allocated them, its pending allocations and the recently finished ones,
// and its Allocate button (AllocateLeg), which allocates through the
// allocation factory's own Allocate.

// RequestLeg is one transfer leg of an allocation request.
type RequestLeg struct {
	ID string
	allocationdata.TransferLeg
	// Allocation is the reader's pending allocation of this leg ("" when
	// it sends none, or has not allocated it).
	Allocation coin.ContractID
}

// AllocationRequest is an app's allocation request (an OTCTrade) as a
// trading party sees it: its legs by id, its executor (the venue) and
// deadlines.
type AllocationRequest struct {
	ContractID     coin.ContractID
	Executor       coin.PartyID
	Legs           []RequestLeg
	RequestedAt    time.Time
	AllocateBefore time.Time
	SettleBefore   time.Time
	// Closed is true once the time to allocate has passed: AllocateLeg
	// refuses, and the venue can no longer settle; only Reject is left.
	Closed bool
}

// allocationClosed is the rule of Closed.
func allocationClosed(allocateBefore, now time.Time) bool { return !now.Before(allocateBefore) }

// AwaitsAllocation reports whether party sends a leg of r it has not
// allocated yet.
func (r *AllocationRequest) AwaitsAllocation(party coin.PartyID) bool {
	for _, leg := range r.Legs {
		if leg.Sender == party && leg.Allocation == "" {
			return true
		}
	}
	return false
}

// AllocationRequestsFor lists the active OTC trades party trades in,
// oldest first, each leg marked with party's pending allocation of it.
func (s *Service) AllocationRequestsFor(ctx context.Context, party coin.PartyID) ([]AllocationRequest, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), allocationdata.TemplateOTCTrade, party)
	if err != nil {
		return nil, err
	}
	mine, err := s.PendingAllocations(ctx, party)
	if err != nil {
		return nil, err
	}
	out := []AllocationRequest{}
	for i := range cs {
		var tr allocationdata.OTCTrade
		if err := json.Unmarshal([]byte(cs[i].Payload), &tr); err != nil {
			return nil, fmt.Errorf("OTC trade %s: %w", cs[i].ContractID, err)
		}
		if !slices.Contains(tradingParties(tr.TransferLegs), party) {
			continue
		}
		r := AllocationRequest{ContractID: cs[i].ContractID, Executor: tr.Venue}
		r.RequestedAt, err = time.Parse(time.RFC3339Nano, tr.CreatedAt)
		if err == nil {
			r.AllocateBefore, err = time.Parse(time.RFC3339Nano, tr.PrepareUntil)
		}
		if err == nil {
			r.SettleBefore, err = time.Parse(time.RFC3339Nano, tr.SettleBefore)
		}
		if err != nil {
			return nil, fmt.Errorf("OTC trade %s: %w", cs[i].ContractID, err)
		}
		r.Closed = allocationClosed(r.AllocateBefore, s.l.Now())
		for id, leg := range tr.TransferLegs {
			rl := RequestLeg{ID: id, TransferLeg: leg}
			for _, a := range mine {
				if leg.Sender == party && tr.AllocatedBy(id, a.Spec) {
					rl.Allocation = a.Contract.ContractID
				}
			}
			r.Legs = append(r.Legs, rl)
		}
		slices.SortFunc(r.Legs, func(a, b RequestLeg) int { return strings.Compare(a.ID, b.ID) })
		out = append(out, r)
	}
	return out, nil
}

// PendingAllocations lists the allocations party sends that are still
// pending (allocated, coin locked), oldest first.
func (s *Service) PendingAllocations(ctx context.Context, party coin.PartyID) ([]Allocation, error) {
	return s.pendingAllocationsIn(ctx, s.l.DB(), party)
}

// pendingAllocationsIn is PendingAllocations read inside db.
func (s *Service) pendingAllocationsIn(ctx context.Context, db bun.IDB, party coin.PartyID) ([]Allocation, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, db, allocationdata.TemplateAmuletAllocation, party)
	if err != nil {
		return nil, err
	}
	out := []Allocation{}
	for i := range cs {
		var p allocationdata.AllocationPayload
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, fmt.Errorf("allocation %s: %w", cs[i].ContractID, err)
		}
		if p.Allocation.TransferLeg.Sender == party {
			out = append(out, Allocation{Spec: p.Allocation, LockedHoldingCID: p.LockedAmulet, Contract: apiread.LedgerContractOf(s.l, &cs[i])})
		}
	}
	return out, nil
}

// AllocationState is how an allocation ended.
type AllocationState string

// The ends of an allocation, by the history subtype that records them.
var allocationEnds = map[string]AllocationState{
	"Allocation_ExecuteTransfer": "executed",
	"Allocation_Withdraw":        "withdrawn",
	"Allocation_Cancel":          "cancelled",
	"Allocation_Expire":          "expired",
}

// FinishedAllocation is an allocation that ended, as its sender or
// receiver sees it.
type FinishedAllocation struct {
	Allocation
	State AllocationState
	At    time.Time
}

// finishedScan is how many of a party's newest history rows
// FinishedAllocations looks through: the page shows a short history, not
// all of it (the History page has everything).
const finishedScan = 200

// FinishedAllocations lists, newest first, at most limit allocations
// party sent or received that ended (executed, withdrawn, cancelled or
// expired) among its newest history rows.
func (s *Service) FinishedAllocations(ctx context.Context, party coin.PartyID, limit int) ([]FinishedAllocation, error) {
	items, err := s.history.List(ctx, party, history.Query{PageSize: finishedScan})
	if err != nil {
		return nil, err
	}
	out := []FinishedAllocation{}
	for _, it := range items {
		state, ok := allocationEnds[it.Subtype]
		if !ok || len(out) == limit {
			continue
		}
		a, err := s.AllocationByID(ctx, party, it.Details.ContractID)
		if errors.Is(err, fault.ErrNotFound) {
			continue // pruned
		} else if err != nil {
			return nil, err
		}
		out = append(out, FinishedAllocation{Allocation: a, State: state, At: it.Time})
	}
	return out, nil
}

// AllocateLeg is the wallet's Allocate: party allocates its leg legID of
// the allocation request (OTCTrade) cid exactly as the trade asks, through
// the allocation factory's Allocate (its coin locked until the settlement
// deadline). The wallet refuses, in words, a request that is no longer
// open, a leg party does not send, a passed deadline and a leg party has
// allocated already. key, when set, deduplicates the command.
func (s *Service) AllocateLeg(ctx context.Context, party coin.PartyID, cid coin.ContractID, legID, key string) (*AllocationResult, error) {
	// Bounded before any words repeat it.
	if err := bounds.CheckID("leg", legID); err != nil {
		return nil, err
	}
	gone := problem(fault.ErrNotFound, "this allocation request is no longer open (it was settled, rejected or withdrawn meanwhile); reload the page")
	trade := func(db bun.IDB) (*allocationdata.OTCTrade, error) {
		c, err := store.ContractByID(ctx, db, cid)
		if err == nil && (c.TemplateID != allocationdata.TemplateOTCTrade || c.ArchivedOffset != nil || !slices.Contains(ledger.ContractParties(c), party)) {
			err = gone
		}
		if err != nil {
			return nil, err
		}
		var tr allocationdata.OTCTrade
		return &tr, json.Unmarshal([]byte(c.Payload), &tr)
	}
	tr, err := trade(s.l.DB())
	if err != nil {
		return nil, err
	}
	leg, ok := tr.TransferLegs[legID]
	if !ok || leg.Sender != party {
		return nil, problem(fault.ErrNotFound, "this allocation request has no leg %q that you send; reload the page", legID)
	}
	prep, err := time.Parse(time.RFC3339Nano, tr.PrepareUntil)
	if err != nil {
		return nil, err
	}
	if allocationClosed(prep, s.l.Now()) {
		return nil, problem(fault.ErrExpired, "the time to allocate for this trade ended at %s; reject it, or ask the venue for a new trade", wallClock(prep))
	}
	settle, err := time.Parse(time.RFC3339Nano, tr.SettleBefore)
	if err != nil {
		return nil, err
	}
	return s.allocate(ctx, tr.AllocationSpec(legID), commands.Command{Key: key}, func(ctx context.Context, tx bun.IDB) error {
		// Under the sender's lock: the trade is still open and this leg
		// not allocated yet, so a double click locks the coin once.
		if _, err := trade(tx); err != nil {
			return err
		}
		mine, err := s.pendingAllocationsIn(ctx, tx, party)
		if err != nil {
			return err
		}
		for _, a := range mine {
			if tr.AllocatedBy(legID, a.Spec) {
				return problem(fault.ErrConflict, "you already allocated this leg: its %s CC are locked until %s; nothing changed",
					ledger.HumanCC(leg.Amount), wallClock(settle))
			}
		}
		return nil
	})
}

// wallClock writes a deadline for a person, to the minute.
func wallClock(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// RejectAllocationRequestAs is the wallet's Reject of an allocation
// request: RejectAllocationRequest by party, refused in words.
func (s *Service) RejectAllocationRequestAs(ctx context.Context, party coin.PartyID, cid coin.ContractID) error {
	_, err := s.RejectAllocationRequest(ctx, []coin.PartyID{party}, cid, party, commands.Command{})
	switch {
	case errors.Is(err, fault.ErrRequirement):
		return problem(fault.ErrConflict, "you send no leg of this trade, so it is not yours to reject; only a sender can")
	case errors.Is(err, fault.ErrNotFound):
		return problem(fault.ErrNotFound, "this allocation request is no longer open (it was settled, rejected or withdrawn meanwhile); reload the page")
	}
	return err
}

// WithdrawAllocationAs is the wallet's Withdraw of party's pending
// allocation cid: its coin comes back; refused in words.
func (s *Service) WithdrawAllocationAs(ctx context.Context, party coin.PartyID, cid coin.ContractID) (*AllocationResult, error) {
	res, err := s.MoveAllocation(ctx, party, cid, allocationdata.AllocationWithdraw, commands.Command{})
	switch {
	case errors.Is(err, fault.ErrForbidden):
		return nil, problem(fault.ErrNotFound, "this allocation is not one you send, so it is not yours to withdraw")
	case errors.Is(err, fault.ErrNotFound):
		return nil, problem(fault.ErrNotFound, "this allocation is no longer pending (it was settled, cancelled, withdrawn or expired meanwhile); reload the page")
	}
	return res, err
}

// Awaiting lists the allocation requests with a leg party sends and has
// not allocated yet (AwaitsAllocation), oldest first: what waits on its
// Home beside the offers and instructions of ledger.Incoming.
func (s *Service) Awaiting(ctx context.Context, party coin.PartyID) ([]AllocationRequest, error) {
	rs, err := s.AllocationRequestsFor(ctx, party)
	if err != nil {
		return nil, err
	}
	var out []AllocationRequest
	for _, r := range rs {
		if r.AwaitsAllocation(party) {
			out = append(out, r)
		}
	}
	return out, nil
}

// problem is a *fault.Problem of sentinel kind: the words a person reads.
func problem(kind error, format string, args ...any) error {
	return &fault.Problem{Err: kind, Msg: fmt.Sprintf(format, args...)}
}
