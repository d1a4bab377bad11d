package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Allocations: the token standard's DvP leg. AllocationFactory_Allocate
// locks the sender's coin for one transfer leg of a settlement until the
// settlement deadline and creates the AmuletAllocation holding the lock;
// the settlement's executor later executes the leg (the receiver gets the
// coin), or the allocation ends without transfer (withdrawn by the sender,
// cancelled by the executor, or expired after the deadline) and the coin
// goes back. The allocation is a contract of the generic contract store:
// active while pending, archived once it ended.

// Templates and interfaces of the allocation workflow.
const (
	TemplateAmuletAllocation   = "#splice-amulet:Splice.AmuletAllocation:AmuletAllocation"
	InterfaceAllocation        = "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation"
	InterfaceAllocationFactory = "#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory"
)

// MaxMetaEntries bounds the metadata entries of a request's Metadata.
const MaxMetaEntries = 32

// InstrumentRef is the token standard's InstrumentId.
type InstrumentRef = instrumentRef

// Metadata is the token standard's Metadata.
type Metadata = metadata

// Reference is the token standard's settlement Reference.
type Reference struct {
	ID  string           `json:"id"`
	CID *coin.ContractID `json:"cid"`
}

// SettlementInfo is the token standard's SettlementInfo, in Daml-JSON.
type SettlementInfo struct {
	Executor       coin.PartyID `json:"executor"`
	SettlementRef  Reference    `json:"settlementRef"`
	RequestedAt    string       `json:"requestedAt"`
	AllocateBefore string       `json:"allocateBefore"`
	SettleBefore   string       `json:"settleBefore"`
	Meta           Metadata     `json:"meta"`
}

// TransferLeg is the token standard's TransferLeg, in Daml-JSON.
type TransferLeg struct {
	Sender       coin.PartyID  `json:"sender"`
	Receiver     coin.PartyID  `json:"receiver"`
	Amount       coin.Amount   `json:"amount"`
	InstrumentID InstrumentRef `json:"instrumentId"`
	Meta         Metadata      `json:"meta"`
}

// AllocationSpecification is the token standard's AllocationSpecification:
// one transfer leg of a settlement.
type AllocationSpecification struct {
	Settlement    SettlementInfo `json:"settlement"`
	TransferLegID string         `json:"transferLegId"`
	TransferLeg   TransferLeg    `json:"transferLeg"`
}

// amuletAllocationPayload is Splice's AmuletAllocation.
type amuletAllocationPayload struct {
	LockedAmulet coin.ContractID         `json:"lockedAmulet"`
	Allocation   AllocationSpecification `json:"allocation"`
}

// allocationView is the token standard's AllocationView.
type allocationView struct {
	Allocation  AllocationSpecification `json:"allocation"`
	HoldingCids []coin.ContractID       `json:"holdingCids"`
	Meta        metadata                `json:"meta"`
}

// AllocationMove is something that happens to an allocation.
type AllocationMove string

// The moves of an allocation.
const (
	AllocationExecute  AllocationMove = "execute"
	AllocationWithdraw AllocationMove = "withdraw"
	AllocationCancel   AllocationMove = "cancel"
	AllocationExpire   AllocationMove = "expire"
)

// allocationActor says who may make an allocation move.
type allocationActor int

const (
	byExecutor allocationActor = iota
	bySender
	byAnyone
)

// allocationRules is the allocation's state machine, as data: each move
// ends the allocation. Execution (by the settlement's executor, who
// exercises it with the trading parties' authority) is only possible
// before the settlement deadline, as Splice's two-step transfer checks;
// expiry only after it; withdraw and cancel only give the sender's coin
// back, so they are allowed any time.
var allocationRules = map[AllocationMove]struct {
	actor    allocationActor
	deadline deadlineRule
}{
	AllocationExecute:  {byExecutor, beforeDeadline},
	AllocationWithdraw: {bySender, anytime},
	AllocationCancel:   {byExecutor, anytime},
	AllocationExpire:   {byAnyone, afterDeadline},
}

// ErrAllocationFinished is returned for a move on an allocation that has
// already ended: its contract is archived, so it is not found any more.
var ErrAllocationFinished = fmt.Errorf("allocation is no longer pending: %w", ErrNotFound)

// CheckAllocationMove applies the rules: whether actor ("" for the expiry
// automation) may make move on an allocation of spec at now.
func CheckAllocationMove(spec AllocationSpecification, move AllocationMove, actor coin.PartyID, now time.Time) error {
	rule, ok := allocationRules[move]
	if !ok {
		return invalid("move", "unknown allocation move %q", move)
	}
	switch rule.actor {
	case byExecutor:
		if actor != spec.Settlement.Executor {
			return fmt.Errorf("%w: only the settlement's executor %s may %s an allocation", ErrForbidden, spec.Settlement.Executor, move)
		}
	case bySender:
		if actor != spec.TransferLeg.Sender {
			return fmt.Errorf("%w: only the sender %s may %s an allocation", ErrForbidden, spec.TransferLeg.Sender, move)
		}
	}
	settleBefore, err := time.Parse(time.RFC3339Nano, spec.Settlement.SettleBefore)
	if err != nil {
		return fmt.Errorf("allocation's settleBefore %q: %w", spec.Settlement.SettleBefore, err)
	}
	switch rule.deadline {
	case beforeDeadline:
		if !now.Before(settleBefore) {
			return fmt.Errorf("%w: the allocation had to be settled before %s", ErrExpired, spec.Settlement.SettleBefore)
		}
	case afterDeadline:
		if now.Before(settleBefore) {
			return fmt.Errorf("%w: the allocation does not expire before %s", ErrConflict, spec.Settlement.SettleBefore)
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
	Spec             AllocationSpecification
	LockedHoldingCID coin.ContractID
	Contract         LedgerContract
}

// checkMeta bounds a request's metadata.
func checkMeta(field string, m Metadata) error {
	if len(m.Values) > MaxMetaEntries {
		return invalid(field, "at most %d entries", MaxMetaEntries)
	}
	for k, v := range m.Values {
		if err := checkID(field+" key", k); err != nil {
			return err
		}
		if err := checkText(field+"["+k+"]", v); err != nil {
			return err
		}
	}
	return nil
}

// normalize checks spec and writes its times in the ledger's form.
func (l *Ledger) checkAllocation(ctx context.Context, spec *AllocationSpecification, now time.Time) (settleBefore time.Time, err error) {
	leg, st := &spec.TransferLeg, &spec.Settlement
	if leg.InstrumentID.Admin != l.dso || leg.InstrumentID.ID != InstrumentID {
		return time.Time{}, invalid("transferLeg.instrumentId", "%s/%s is not this registry's instrument; it holds %s/%s", leg.InstrumentID.Admin, leg.InstrumentID.ID, l.dso, InstrumentID)
	}
	if err := checkAmount("transferLeg.amount", leg.Amount); err != nil {
		return time.Time{}, err
	}
	for _, f := range []struct{ name, v string }{{"transferLegId", spec.TransferLegID}, {"settlement.settlementRef.id", st.SettlementRef.ID}} {
		if err := checkText(f.name, f.v); err != nil {
			return time.Time{}, err
		}
	}
	if st.SettlementRef.CID != nil {
		if _, err := coin.ParseContractID(string(*st.SettlementRef.CID)); err != nil {
			return time.Time{}, invalid("settlement.settlementRef.cid", "%v", err)
		}
	}
	if err := checkMeta("settlement.meta", st.Meta); err != nil {
		return time.Time{}, err
	}
	if err := checkMeta("transferLeg.meta", leg.Meta); err != nil {
		return time.Time{}, err
	}
	requested, err := parseTime("settlement.requestedAt", st.RequestedAt)
	if err != nil {
		return time.Time{}, err
	}
	allocateBefore, err := parseTime("settlement.allocateBefore", st.AllocateBefore)
	if err != nil {
		return time.Time{}, err
	}
	if settleBefore, err = parseTime("settlement.settleBefore", st.SettleBefore); err != nil {
		return time.Time{}, err
	}
	if requested.After(now) {
		return time.Time{}, invalid("settlement.requestedAt", "%s is in the future", st.RequestedAt)
	}
	if !now.Before(allocateBefore) {
		return time.Time{}, fmt.Errorf("%w: the settlement had to be allocated before %s", ErrExpired, st.AllocateBefore)
	}
	if settleBefore.Before(allocateBefore) {
		return time.Time{}, invalid("settlement.settleBefore", "must not be before allocateBefore")
	}
	st.RequestedAt, st.AllocateBefore, st.SettleBefore = FormatTime(requested), FormatTime(allocateBefore), FormatTime(settleBefore)
	for _, p := range []coin.PartyID{leg.Receiver, st.Executor} {
		if err := l.KnownParty(ctx, p); err != nil {
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
// the spent inputs are burned. key, when set, deduplicates the command
// (the Ledger API's change id).
func (l *Ledger) Allocate(ctx context.Context, spec AllocationSpecification, key string) (*AllocationResult, error) {
	return l.allocate(ctx, spec, key, nil)
}

// allocate is Allocate; guard, when set, runs in the change's transaction
// under the sender's lock before anything is written (the wallet's own
// checks of AllocateLeg), so no concurrent allocation slips past it.
func (l *Ledger) allocate(ctx context.Context, spec AllocationSpecification, key string, guard func(ctx context.Context, tx bun.IDB) error) (*AllocationResult, error) {
	now := l.now()
	if err := checkID("commandId", key); err != nil {
		return nil, err
	}
	settleBefore, err := l.checkAllocation(ctx, &spec, now)
	if err != nil {
		return nil, fmt.Errorf("allocate: %w", err)
	}
	sender := spec.TransferLeg.Sender
	if key != "" {
		key = "allocate:" + key
	}
	var res *AllocationResult
	err = l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		if err := l.claimOnce(ctx, tx, key); err != nil {
			return err
		}
		if err := l.lockParties(ctx, tx, sender); err != nil {
			return err
		}
		if guard != nil {
			if err := guard(ctx, tx); err != nil {
				return err
			}
		}
		if err := l.refuseSecondAllocation(ctx, tx, spec); err != nil {
			return err
		}
		t, err := c.begin(ctx, "allocate")
		if err != nil {
			return err
		}
		if err := t.usingRules(ctx); err != nil {
			return err
		}
		cid := coin.NewContractID()
		amount := spec.TransferLeg.Amount
		tr, err := t.transfer(ctx, sender, []Output{{Receiver: sender, Amount: amount, Lock: &Lock{
			Holder: string(cid), ExpiresAt: settleBefore,
			Context: fmt.Sprintf("allocation for transfer leg %q to '%s'", spec.TransferLegID, spec.TransferLeg.Receiver),
		}}})
		if err != nil {
			return err
		}
		t.createWithID(cid, TemplateAmuletAllocation, amuletAllocationPayload{LockedAmulet: tr.Outputs[0], Allocation: spec},
			l.dso, sender, spec.Settlement.Executor)
		t.record(sender, HistoryTransfer, "AllocationFactory_Allocate", spec.TransferLeg.Receiver, tr.cost(amount).Neg(), tr.Fees.Add(tr.HoldingFees),
			spec.TransferLeg.Meta.Values[MetaReason], HistoryDetails{Provider: spec.Settlement.Executor, HoldingFees: tr.HoldingFees, Fees: tr.Fees, ContractID: cid})
		res = &AllocationResult{AllocationCID: cid, SenderChangeCIDs: []coin.ContractID{}, ReceiverHoldingCIDs: []coin.ContractID{}}
		if tr.Change != "" {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, tr.Change)
		}
		// The update's offset is drawn at its commit.
		t.afterCommit(func(ctx context.Context) error {
			res.Offset = t.offset
			if key == "" {
				return nil
			}
			return l.saveCommand(ctx, t, key, sender, "allocate", string(cid))
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("allocate %s from %s: %w", spec.TransferLeg.Amount, sender, err)
	}
	return res, nil
}

// allocationIn reads the allocation cid inside db; a contract of another
// template is not found.
func (l *Ledger) allocationIn(ctx context.Context, db bun.IDB, cid coin.ContractID) (*store.Contract, *amuletAllocationPayload, error) {
	c, err := store.ContractByID(ctx, db, cid)
	if err == nil && c.TemplateID != TemplateAmuletAllocation {
		err = ErrNotFound
	}
	if err != nil {
		return nil, nil, fmt.Errorf("allocation %s: %w", cid, err)
	}
	var p amuletAllocationPayload
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return nil, nil, fmt.Errorf("allocation %s: %w", cid, err)
	}
	return c, &p, nil
}

// MoveAllocation makes move on the allocation cid on behalf of actor (""
// for the expiry automation): execute gives the locked coin to the leg's
// receiver; withdraw, cancel and expire give it back to the sender. key,
// when set, deduplicates the command. A refused move changes nothing.
func (l *Ledger) MoveAllocation(ctx context.Context, actor coin.PartyID, cid coin.ContractID, move AllocationMove, key string) (*AllocationResult, error) {
	if err := checkID("commandId", key); err != nil {
		return nil, err
	}
	if key != "" {
		key = "allocation-move:" + key
	}
	var res *AllocationResult
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		if err := l.claimOnce(ctx, c.tx, key); err != nil {
			return err
		}
		var err error
		res, err = l.moveAllocationIn(ctx, c, actor, cid, move)
		if err != nil || key == "" {
			return err
		}
		t := c.t
		t.afterCommit(func(ctx context.Context) error {
			return l.saveCommand(ctx, t, key, actor, string(move)+"-allocation", string(cid))
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s allocation: %w", move, err)
	}
	return res, nil
}

// moveAllocationIn is MoveAllocation inside change c.
func (l *Ledger) moveAllocationIn(ctx context.Context, c *change, actor coin.PartyID, cid coin.ContractID, move AllocationMove) (*AllocationResult, error) {
	tx := c.tx
	_, p, err := l.allocationIn(ctx, tx, cid)
	if err != nil {
		return nil, err
	}
	spec := p.Allocation
	if actor != "" && actor != spec.TransferLeg.Sender && actor != spec.TransferLeg.Receiver && actor != spec.Settlement.Executor {
		// Not a controller: the allocation is invisible to it.
		return nil, fmt.Errorf("allocation %s: %w", cid, ErrNotFound)
	}
	if err := l.lockParties(ctx, tx, spec.TransferLeg.Sender, spec.TransferLeg.Receiver); err != nil {
		return nil, err
	}
	// Re-read under the parties' locks: a concurrent move may have won.
	ac, p, err := l.allocationIn(ctx, tx, cid)
	if err != nil {
		return nil, err
	}
	if ac.ArchivedOffset != nil {
		return nil, fmt.Errorf("allocation %s: %w", cid, ErrAllocationFinished)
	}
	t, err := c.begin(ctx, string(move)+"-allocation")
	if err != nil {
		return nil, err
	}
	if err := CheckAllocationMove(spec, move, actor, t.now); err != nil {
		return nil, fmt.Errorf("allocation %s: %w", cid, err)
	}
	res, err := t.finishAllocation(ctx, cid, p, move)
	if err != nil {
		return nil, err
	}
	// The update's offset is drawn at its commit; the command's record
	// (MoveAllocation's next step) reads it then.
	t.afterCommit(func(context.Context) error {
		res.Offset = t.offset
		return nil
	})
	return res, nil
}

// finishAllocation carries out an allowed move inside t, for the caller
// to commit (a trade's settlement ends several allocations in one update).
func (t *txn) finishAllocation(ctx context.Context, cid coin.ContractID, p *amuletAllocationPayload, move AllocationMove) (*AllocationResult, error) {
	leg := p.Allocation.TransferLeg
	res := &AllocationResult{AllocationCID: cid, SenderChangeCIDs: []coin.ContractID{}, ReceiverHoldingCIDs: []coin.ContractID{}}
	value, fee, locked, err := t.releaseLock(ctx, p.LockedAmulet, cid)
	if err != nil {
		return nil, err
	}
	if !locked && move == AllocationExecute {
		return nil, notFoundf("LockedAmulet '%s' not found for AmuletAllocation '%s'", p.LockedAmulet, cid)
	}
	uses := []coin.ContractID{cid}
	if locked {
		uses = append(uses, p.LockedAmulet, t.l.rulesCID, t.round.ContractID)
	}
	if err := t.l.refuseReassigning(ctx, t.tx, uses...); err != nil {
		return nil, fmt.Errorf("allocation %s: %w", cid, err)
	}
	t.archive(cid)
	subtype := "Allocation_" + map[AllocationMove]string{AllocationExecute: "ExecuteTransfer", AllocationWithdraw: "Withdraw", AllocationCancel: "Cancel", AllocationExpire: "Expire"}[move]
	desc := leg.Meta.Values[MetaReason]
	d := HistoryDetails{Provider: p.Allocation.Settlement.Executor, HoldingFees: fee, ContractID: cid}
	if move == AllocationExecute {
		if value.IsPositive() {
			res.ReceiverHoldingCIDs = append(res.ReceiverHoldingCIDs, t.newHolding(leg.Receiver, value, nil))
		}
		// The locked coin left the sender's available balance when it was
		// allocated; the receiver's grows.
		t.recordPair(leg.Sender, leg.Receiver, HistoryTransfer, subtype, coin.Zero, fee, value, coin.Zero, desc, d)
		// Splice executes an allocation as a two-step transfer that allows
		// featuring: a featured executor earns the featured app reward, as
		// a featured preapproval provider does for a send.
		executor := p.Allocation.Settlement.Executor
		featured, err := isFeatured(ctx, t.tx, executor)
		if err != nil {
			return nil, err
		}
		if featured {
			t.addRewardCoupon(RewardApp, executor, USDToCoin(t.l.rules.ExtraFeaturedAppRewardUSD, t.round.Price), true)
		}
	} else {
		if value.IsPositive() {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, t.newHolding(leg.Sender, value, nil))
		}
		t.record(leg.Sender, HistoryBalanceChange, subtype, leg.Receiver, value, fee, desc, d)
	}
	return res, nil
}

// ExpireAllocations ends every allocation past its settlement deadline:
// the locked coin returns to its sender. It returns how many it expired;
// the expiry automation calls it periodically.
func (l *Ledger) ExpireAllocations(ctx context.Context) (int, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateAmuletAllocation, "")
	if err != nil {
		return 0, err
	}
	now, n := l.now(), 0
	for _, c := range cs {
		var p amuletAllocationPayload
		if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
			return n, fmt.Errorf("allocation %s: %w", c.ContractID, err)
		}
		if CheckAllocationMove(p.Allocation, AllocationExpire, "", now) != nil {
			continue
		}
		_, err := l.MoveAllocation(ctx, "", c.ContractID, AllocationExpire, "")
		switch {
		case err == nil:
			n++
		case errors.Is(err, ErrAllocationFinished), errors.Is(err, ErrReassigning):
			// Finished meanwhile, or expired on a later run.
		default:
			return n, fmt.Errorf("expire allocation %s: %w", c.ContractID, err)
		}
	}
	return n, nil
}

// AllocationByID returns an allocation, active or ended. Only its sender,
// receiver and executor may see it (viewer ""; the registry sees all).
func (l *Ledger) AllocationByID(ctx context.Context, viewer coin.PartyID, cid coin.ContractID) (Allocation, error) {
	c, p, err := l.allocationIn(ctx, l.db, cid)
	if err != nil {
		return Allocation{}, err
	}
	leg := p.Allocation.TransferLeg
	if viewer != "" && viewer != leg.Sender && viewer != leg.Receiver && viewer != p.Allocation.Settlement.Executor {
		return Allocation{}, fmt.Errorf("allocation %s: %w", cid, ErrNotFound)
	}
	return Allocation{Spec: p.Allocation, LockedHoldingCID: p.LockedAmulet, Contract: l.ledgerContract(c)}, nil
}

// AllocationsOf lists the active allocations party is the sender of,
// oldest first.
func (l *Ledger) AllocationsOf(ctx context.Context, party coin.PartyID) ([]Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateAmuletAllocation, party)
	if err != nil {
		return nil, err
	}
	var out []Contract
	for i := range cs {
		var p amuletAllocationPayload
		if err := json.Unmarshal([]byte(cs[i].Payload), &p); err != nil {
			return nil, fmt.Errorf("allocation %s: %w", cs[i].ContractID, err)
		}
		if p.Allocation.TransferLeg.Sender == party {
			out = append(out, l.contractView(&cs[i]))
		}
	}
	return out, nil
}
