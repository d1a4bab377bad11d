// Package allocations owns the token standard's DvP workflow on this
// ledger: AllocationFactory_Allocate and an allocation's moves (execute,
// withdraw, cancel, expire), the example trading app's choices
// (TradingApp.daml's OTCTradeProposal and OTCTrade) and the wallet's view
// of its allocation requests. Its contracts' data (templates, payloads,
// interface views) are the core's (ledger/allocation_types.go), since the
// Ledger API's reads show them.
package allocations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// Service is the allocation workflow of one ledger.
type Service struct {
	l       *ledger.Ledger
	history *history.Service
}

// New builds the allocation workflow on l.
func New(l *ledger.Ledger) *Service { return &Service{l: l, history: history.New(l)} }

// Allocations: the token standard's DvP leg. AllocationFactory_Allocate
// locks the sender's coin for one transfer leg of a settlement until the
// settlement deadline and creates the AmuletAllocation holding the lock;
// the settlement's executor later executes the leg (the receiver gets the
// coin), or the allocation ends without transfer (withdrawn by the sender,
// cancelled by the executor, or expired after the deadline) and the coin
// goes back. The allocation is a contract of the generic contract store:
// active while pending, archived once it ended.

// MaxMetaEntries bounds the metadata entries of a request's Metadata.
const MaxMetaEntries = 32

// allocationActor says who may make an allocation move.
type allocationActor int

const (
	byExecutor allocationActor = iota
	bySender
	byAnyone
)

// deadlineRule says when, relative to the settlement deadline, a move is
// allowed.
type deadlineRule int

const (
	anytime deadlineRule = iota
	beforeDeadline
	afterDeadline
)

// allocationRules is the allocation's state machine, as data: each move
// ends the allocation. Execution (by the settlement's executor, who
// exercises it with the trading parties' authority) is only possible
// before the settlement deadline, as Splice's two-step transfer checks;
// expiry only after it; withdraw and cancel only give the sender's coin
// back, so they are allowed any time.
var allocationRules = map[allocationdata.AllocationMove]struct {
	actor    allocationActor
	deadline deadlineRule
}{
	allocationdata.AllocationExecute:  {byExecutor, beforeDeadline},
	allocationdata.AllocationWithdraw: {bySender, anytime},
	allocationdata.AllocationCancel:   {byExecutor, anytime},
	allocationdata.AllocationExpire:   {byAnyone, afterDeadline},
}

// ErrAllocationFinished is returned for a move on an allocation that has
// already ended: its contract is archived, so it is not found any more.
var ErrAllocationFinished = fmt.Errorf("allocation is no longer pending: %w", fault.ErrNotFound)

// CheckAllocationMove applies the rules: whether actor ("" for the expiry
// automation) may make move on an allocation of spec at now.
func CheckAllocationMove(spec allocationdata.AllocationSpecification, move allocationdata.AllocationMove, actor coin.PartyID, now time.Time) error {
	rule, ok := allocationRules[move]
	if !ok {
		return fault.Invalid("move", "unknown allocation move %q", move)
	}
	switch rule.actor {
	case byExecutor:
		if actor != spec.Settlement.Executor {
			return fmt.Errorf("%w: only the settlement's executor %s may %s an allocation", fault.ErrForbidden, spec.Settlement.Executor, move)
		}
	case bySender:
		if actor != spec.TransferLeg.Sender {
			return fmt.Errorf("%w: only the sender %s may %s an allocation", fault.ErrForbidden, spec.TransferLeg.Sender, move)
		}
	}
	settleBefore, err := time.Parse(time.RFC3339Nano, spec.Settlement.SettleBefore)
	if err != nil {
		return fmt.Errorf("allocation's settleBefore %q: %w", spec.Settlement.SettleBefore, err)
	}
	switch rule.deadline {
	case beforeDeadline:
		if !now.Before(settleBefore) {
			return fmt.Errorf("%w: the allocation had to be settled before %s", fault.ErrExpired, spec.Settlement.SettleBefore)
		}
	case afterDeadline:
		if now.Before(settleBefore) {
			return fmt.Errorf("%w: the allocation does not expire before %s", fault.ErrConflict, spec.Settlement.SettleBefore)
		}
	}
	return nil
}

// AllocationResult is what an allocation's creation or end made.
type AllocationResult struct {
	// AllocationCID is the allocation (created or ended).
	AllocationCID       coin.ContractID
	SenderChangeCIDs    []coin.ContractID
	ReceiverHoldingCIDs []coin.ContractID
	// Offset is the ledger update that made it.
	Offset int64
}

// Allocation is the read model of an allocation.
type Allocation struct {
	Spec             allocationdata.AllocationSpecification
	LockedHoldingCID coin.ContractID
	Contract         apiread.LedgerContract
}

// checkMeta bounds a request's metadata.
func checkMeta(field string, m ledger.Metadata) error {
	if len(m.Values) > MaxMetaEntries {
		return fault.Invalid(field, "at most %d entries", MaxMetaEntries)
	}
	for k, v := range m.Values {
		if err := bounds.CheckID(field+" key", k); err != nil {
			return err
		}
		if err := bounds.CheckText(field+"["+k+"]", v); err != nil {
			return err
		}
	}
	return nil
}

// checkAllocation checks spec and writes its times in the ledger's form.
func (s *Service) checkAllocation(ctx context.Context, spec *allocationdata.AllocationSpecification, now time.Time) (settleBefore time.Time, err error) {
	leg, st := &spec.TransferLeg, &spec.Settlement
	if dso := s.l.DSO(); leg.InstrumentID.Admin != dso || leg.InstrumentID.ID != ledger.InstrumentID {
		return time.Time{}, fault.Invalid("transferLeg.instrumentId", "%s/%s is not this registry's instrument; it holds %s/%s", leg.InstrumentID.Admin, leg.InstrumentID.ID, dso, ledger.InstrumentID)
	}
	if err := bounds.CheckAmount("transferLeg.amount", leg.Amount); err != nil {
		return time.Time{}, err
	}
	for _, f := range []struct{ name, v string }{{"transferLegId", spec.TransferLegID}, {"settlement.settlementRef.id", st.SettlementRef.ID}} {
		if err := bounds.CheckText(f.name, f.v); err != nil {
			return time.Time{}, err
		}
	}
	if st.SettlementRef.CID != nil {
		if _, err := coin.ParseContractID(string(*st.SettlementRef.CID)); err != nil {
			return time.Time{}, fault.Invalid("settlement.settlementRef.cid", "%v", err)
		}
	}
	if err := checkMeta("settlement.meta", st.Meta); err != nil {
		return time.Time{}, err
	}
	if err := checkMeta("transferLeg.meta", leg.Meta); err != nil {
		return time.Time{}, err
	}
	requested, err := bounds.ParseTime("settlement.requestedAt", st.RequestedAt)
	if err != nil {
		return time.Time{}, err
	}
	allocateBefore, err := bounds.ParseTime("settlement.allocateBefore", st.AllocateBefore)
	if err != nil {
		return time.Time{}, err
	}
	if settleBefore, err = bounds.ParseTime("settlement.settleBefore", st.SettleBefore); err != nil {
		return time.Time{}, err
	}
	if requested.After(now) {
		return time.Time{}, fault.Invalid("settlement.requestedAt", "%s is in the future", st.RequestedAt)
	}
	if !now.Before(allocateBefore) {
		return time.Time{}, fmt.Errorf("%w: the settlement had to be allocated before %s", fault.ErrExpired, st.AllocateBefore)
	}
	if settleBefore.Before(allocateBefore) {
		return time.Time{}, fault.Invalid("settlement.settleBefore", "must not be before allocateBefore")
	}
	st.RequestedAt, st.AllocateBefore, st.SettleBefore = ledger.FormatTime(requested), ledger.FormatTime(allocateBefore), ledger.FormatTime(settleBefore)
	for _, p := range []coin.PartyID{leg.Receiver, st.Executor} {
		if err := s.l.KnownParty(ctx, p); err != nil {
			return time.Time{}, err
		}
	}
	if spec.Settlement.Meta.Values == nil {
		spec.Settlement.Meta.Values = map[string]string{}
	}
	if spec.TransferLeg.Meta.Values == nil {
		spec.TransferLeg.Meta.Values = map[string]string{}
	}
	return settleBefore, nil
}

// Allocate is AllocationFactory_Allocate: the leg's sender locks the
// leg's amount until the settlement deadline, and the AmuletAllocation
// holding the lock is created, in one transaction. As for transfer
// instructions no fee is charged for the lock; the accrued holding fees of
// the spent inputs are burned. cmd's key, when set, deduplicates the
// command (the Ledger API's change id), and its completion is written
// with it.
func (s *Service) Allocate(ctx context.Context, spec allocationdata.AllocationSpecification, cmd commands.Command) (*AllocationResult, error) {
	return s.allocate(ctx, spec, cmd, nil)
}

// allocate is Allocate; guard, when set, runs in the change's transaction
// under the sender's lock before anything is written (the wallet's own
// checks of AllocateLeg), so no concurrent allocation slips past it.
func (s *Service) allocate(ctx context.Context, spec allocationdata.AllocationSpecification, cmd commands.Command, guard func(ctx context.Context, tx bun.IDB) error) (*AllocationResult, error) {
	l := s.l
	now := l.Now()
	if err := bounds.CheckID("commandId", cmd.Key); err != nil {
		return nil, err
	}
	settleBefore, err := s.checkAllocation(ctx, &spec, now)
	if err != nil {
		return nil, fmt.Errorf("allocate: %w", err)
	}
	sender := spec.TransferLeg.Sender
	cmd = cmd.Under("allocate:")
	var res *AllocationResult
	err = l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.ClaimOnce(ctx, cmd.Key); err != nil {
			return err
		}
		if err := x.LockParties(ctx, sender); err != nil {
			return err
		}
		if guard != nil {
			if err := guard(ctx, x.DB()); err != nil {
				return err
			}
		}
		if err := s.refuseSecondAllocation(ctx, x.DB(), spec); err != nil {
			return err
		}
		if err := x.Begin(ctx, "allocate"); err != nil {
			return err
		}
		if err := x.UsingRules(ctx); err != nil {
			return err
		}
		cid := coin.NewContractID()
		amount := spec.TransferLeg.Amount
		tr, err := x.Transfer(ctx, sender, []ledger.Output{{Receiver: sender, Amount: amount, Lock: &ledger.Lock{
			Holder: string(cid), ExpiresAt: settleBefore,
			Context: fmt.Sprintf("allocation for transfer leg %q to '%s'", spec.TransferLegID, spec.TransferLeg.Receiver),
		}}})
		if err != nil {
			return err
		}
		x.CreateWithID(cid, allocationdata.TemplateAmuletAllocation, allocationdata.AllocationPayload{LockedAmulet: tr.Outputs[0], Allocation: spec},
			l.DSO(), sender, spec.Settlement.Executor)
		x.Record(sender, ledger.HistoryTransfer, "AllocationFactory_Allocate", spec.TransferLeg.Receiver, tr.Cost(amount).Neg(), tr.Fees.Add(tr.HoldingFees),
			spec.TransferLeg.Meta.Values[ledger.MetaReason], ledger.HistoryDetails{Provider: spec.Settlement.Executor, HoldingFees: tr.HoldingFees, Fees: tr.Fees, ContractID: cid})
		res = &AllocationResult{AllocationCID: cid, SenderChangeCIDs: []coin.ContractID{}, ReceiverHoldingCIDs: []coin.ContractID{}}
		if tr.Change != "" {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, tr.Change)
		}
		// The update's offset is drawn at its commit.
		x.AfterCommit(func(context.Context) error {
			res.Offset = x.Offset()
			return nil
		})
		if cmd.Key != "" {
			x.SaveCommand(cmd, sender, "allocate", string(cid))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("allocate %s from %s: %w", spec.TransferLeg.Amount, sender, err)
	}
	return res, nil
}

// MoveAllocation makes move on the allocation cid on behalf of actor (""
// for the expiry automation): execute gives the locked coin to the leg's
// receiver; withdraw, cancel and expire give it back to the sender. cmd's
// key, when set, deduplicates the command, and its completion is written
// with it. A refused move changes nothing.
func (s *Service) MoveAllocation(ctx context.Context, actor coin.PartyID, cid coin.ContractID, move allocationdata.AllocationMove, cmd commands.Command) (*AllocationResult, error) {
	if err := bounds.CheckID("commandId", cmd.Key); err != nil {
		return nil, err
	}
	cmd = cmd.Under("allocation-move:")
	var res *AllocationResult
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.ClaimOnce(ctx, cmd.Key); err != nil {
			return err
		}
		var err error
		res, err = s.moveAllocationIn(ctx, x, actor, cid, move)
		if err != nil || cmd.Key == "" {
			return err
		}
		x.SaveCommand(cmd, actor, string(move)+"-allocation", string(cid))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s allocation: %w", move, err)
	}
	return res, nil
}

// moveAllocationIn is MoveAllocation inside change x.
func (s *Service) moveAllocationIn(ctx context.Context, x *ledger.Tx, actor coin.PartyID, cid coin.ContractID, move allocationdata.AllocationMove) (*AllocationResult, error) {
	_, p, err := allocationdata.AllocationContract(ctx, x.DB(), cid)
	if err != nil {
		return nil, err
	}
	spec := p.Allocation
	if actor != "" && actor != spec.TransferLeg.Sender && actor != spec.TransferLeg.Receiver && actor != spec.Settlement.Executor {
		// Not a controller: the allocation is invisible to it.
		return nil, fmt.Errorf("allocation %s: %w", cid, fault.ErrNotFound)
	}
	if err := x.LockParties(ctx, spec.TransferLeg.Sender, spec.TransferLeg.Receiver); err != nil {
		return nil, err
	}
	// Re-read under the parties' locks: a concurrent move may have won.
	ac, p, err := allocationdata.AllocationContract(ctx, x.DB(), cid)
	if err != nil {
		return nil, err
	}
	if ac.ArchivedOffset != nil {
		return nil, fmt.Errorf("allocation %s: %w", cid, ErrAllocationFinished)
	}
	if err := x.Begin(ctx, string(move)+"-allocation"); err != nil {
		return nil, err
	}
	if err := CheckAllocationMove(spec, move, actor, x.Now()); err != nil {
		return nil, fmt.Errorf("allocation %s: %w", cid, err)
	}
	res, err := s.finishAllocation(ctx, x, cid, p, move)
	if err != nil {
		return nil, err
	}
	// The update's offset is drawn at its commit; the command's record
	// (MoveAllocation's next step) reads it then.
	x.AfterCommit(func(context.Context) error {
		res.Offset = x.Offset()
		return nil
	})
	return res, nil
}

// finishAllocation carries out an allowed move inside x, for the caller
// to commit (a trade's settlement ends several allocations in one update).
func (s *Service) finishAllocation(ctx context.Context, x *ledger.Tx, cid coin.ContractID, p *allocationdata.AllocationPayload, move allocationdata.AllocationMove) (*AllocationResult, error) {
	leg := p.Allocation.TransferLeg
	res := &AllocationResult{AllocationCID: cid, SenderChangeCIDs: []coin.ContractID{}, ReceiverHoldingCIDs: []coin.ContractID{}}
	value, fee, locked, err := x.ReleaseLock(ctx, p.LockedAmulet, cid)
	if err != nil {
		return nil, err
	}
	if !locked && move == allocationdata.AllocationExecute {
		return nil, fault.NotFoundf("LockedAmulet '%s' not found for AmuletAllocation '%s'", p.LockedAmulet, cid)
	}
	// The allocation, and when the coin is still locked the holding, the
	// rules and the open round it moves through.
	if locked {
		err = x.UsingRules(ctx, cid, p.LockedAmulet)
	} else {
		err = x.RefuseReassigning(ctx, cid)
	}
	if err != nil {
		return nil, fmt.Errorf("allocation %s: %w", cid, err)
	}
	x.Archive(cid)
	subtype := "Allocation_" + map[allocationdata.AllocationMove]string{allocationdata.AllocationExecute: "ExecuteTransfer", allocationdata.AllocationWithdraw: "Withdraw", allocationdata.AllocationCancel: "Cancel", allocationdata.AllocationExpire: "Expire"}[move]
	desc := leg.Meta.Values[ledger.MetaReason]
	d := ledger.HistoryDetails{Provider: p.Allocation.Settlement.Executor, HoldingFees: fee, ContractID: cid}
	if move == allocationdata.AllocationExecute {
		if value.IsPositive() {
			res.ReceiverHoldingCIDs = append(res.ReceiverHoldingCIDs, x.NewHolding(leg.Receiver, value, nil))
		}
		// The locked coin left the sender's available balance when it was
		// allocated; the receiver's grows.
		x.RecordPair(leg.Sender, leg.Receiver, ledger.HistoryTransfer, subtype, coin.Zero, fee, value, coin.Zero, desc, d)
		// Splice executes an allocation as a two-step transfer that allows
		// featuring: a featured executor earns the featured app reward, as
		// a featured preapproval provider does for a send.
		executor := p.Allocation.Settlement.Executor
		featured, err := ledger.IsFeatured(ctx, x.DB(), executor)
		if err != nil {
			return nil, err
		}
		if featured {
			x.AddRewardCoupon(ledger.RewardApp, executor, ledger.USDToCoin(x.Rules().ExtraFeaturedAppRewardUSD, x.Round().Price), true)
		}
	} else {
		if value.IsPositive() {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, x.NewHolding(leg.Sender, value, nil))
		}
		x.Record(leg.Sender, ledger.HistoryBalanceChange, subtype, leg.Receiver, value, fee, desc, d)
	}
	return res, nil
}

// ExpireAllocations ends every allocation past its settlement deadline:
// the locked coin returns to its sender. It returns how many it expired;
// the expiry automation calls it periodically.
func (s *Service) ExpireAllocations(ctx context.Context) (int, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), allocationdata.TemplateAmuletAllocation, "")
	if err != nil {
		return 0, err
	}
	now, n := s.l.Now(), 0
	for _, c := range cs {
		var p allocationdata.AllocationPayload
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			return n, fmt.Errorf("allocation %s: %w", c.ContractID, err)
		}
		if CheckAllocationMove(p.Allocation, allocationdata.AllocationExpire, "", now) != nil {
			continue
		}
		_, err := s.MoveAllocation(ctx, "", c.ContractID, allocationdata.AllocationExpire, commands.Command{})
		switch {
		case err == nil:
			n++
		case errors.Is(err, ErrAllocationFinished), errors.Is(err, ledger.ErrReassigning):
			// Finished meanwhile, or expired on a later run.
		default:
			return n, fmt.Errorf("expire allocation %s: %w", c.ContractID, err)
		}
	}
	return n, nil
}

// AllocationByID returns an allocation, active or ended. Only its sender,
// receiver and executor may see it (viewer ""; the registry sees all).
func (s *Service) AllocationByID(ctx context.Context, viewer coin.PartyID, cid coin.ContractID) (Allocation, error) {
	c, p, err := allocationdata.AllocationContract(ctx, s.l.DB(), cid)
	if err != nil {
		return Allocation{}, err
	}
	leg := p.Allocation.TransferLeg
	if viewer != "" && viewer != leg.Sender && viewer != leg.Receiver && viewer != p.Allocation.Settlement.Executor {
		return Allocation{}, fmt.Errorf("allocation %s: %w", cid, fault.ErrNotFound)
	}
	return Allocation{Spec: p.Allocation, LockedHoldingCID: p.LockedAmulet, Contract: apiread.LedgerContractOf(s.l, c)}, nil
}

// AllocationsOf lists the active allocations party is the sender of,
// oldest first.
func (s *Service) AllocationsOf(ctx context.Context, party coin.PartyID) ([]ledger.Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), allocationdata.TemplateAmuletAllocation, party)
	if err != nil {
		return nil, err
	}
	var out []ledger.Contract
	for i := range cs {
		var p allocationdata.AllocationPayload
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, fmt.Errorf("allocation %s: %w", cs[i].ContractID, err)
		}
		if p.Allocation.TransferLeg.Sender == party {
			out = append(out, s.l.ContractView(&cs[i]))
		}
	}
	return out, nil
}
