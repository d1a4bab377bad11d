package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Choice-context keys of the token standard (Splice TokenApiUtils.daml).
const (
	ContextAmuletRules        = "amulet-rules"
	ContextOpenRound          = "open-round"
	ContextExpireLock         = "expire-lock"
	ContextTransferPreapprove = "transfer-preapproval"
	ContextFeaturedAppRight   = "featured-app-right"
)

// ContextValue is one entry of a choice context, in Daml-JSON variant form:
// {"tag": "AV_ContractId", "value": "<cid>"} or {"tag": "AV_Bool", ...}.
type ContextValue struct {
	Tag   string `json:"tag"`
	Value any    `json:"value"`
}

// DisclosedContract is a contract a client must disclose to exercise a
// choice, with the data the registry API shows about it.
type DisclosedContract struct {
	Contract    Contract
	PackageName string
}

// ChoiceContext is what exercising a token-standard choice needs: the
// context values (referring to contracts by id) and those contracts.
type ChoiceContext struct {
	Values    map[string]ContextValue
	Disclosed []DisclosedContract
}

// ErrReassigning is returned when a contract that must be disclosed is
// being reassigned between synchronizers; the client retries later.
var ErrReassigning = fmt.Errorf("%w: contract is being reassigned", ErrConflict)

// notFoundError is ErrNotFound with the exact message the real registry
// gives, without our usual prefixes, for clients that match on it.

func cidValue(c coin.ContractID) ContextValue {
	return ContextValue{Tag: "AV_ContractId", Value: string(c)}
}

// InstructionChoiceContext answers the registry's choice-context request
// for move (accept, reject or withdraw) on a transfer instruction, as the
// real scan does: amulet-rules, the open round and expire-lock=true with
// the rules, round and locked holding disclosed. If the lock is already
// gone, accept is not found and reject/withdraw get expire-lock=false only.
func (l *Ledger) InstructionChoiceContext(ctx context.Context, cid coin.ContractID, move InstructionMove) (ChoiceContext, error) {
	notFound := notFoundf("AmuletTransferInstruction '%s' not found.", cid)
	ti, err := store.TransferInstructionByID(ctx, l.db, cid)
	if errors.Is(err, store.ErrNotFound) {
		return ChoiceContext{}, notFound
	} else if err != nil {
		return ChoiceContext{}, err
	}
	if ti.Status != string(InstructionPending) {
		return ChoiceContext{}, notFound
	}
	hs, err := store.HoldingsByIDs(ctx, l.db, []coin.ContractID{ti.LockedHoldingCID})
	if err != nil {
		return ChoiceContext{}, err
	}
	if len(hs) == 0 {
		if move == MoveAccept {
			return ChoiceContext{}, notFoundf("LockedAmulet '%s' not found for AmuletTransferInstruction '%s', which expires on %s",
				ti.LockedHoldingCID, cid, FormatTime(ti.ExecuteBefore))
		}
		return ChoiceContext{Values: map[string]ContextValue{ContextExpireLock: {Tag: "AV_Bool", Value: false}}, Disclosed: []DisclosedContract{}}, nil
	}
	r, err := l.usableRound(ctx, l.db)
	if err != nil {
		return ChoiceContext{}, err
	}
	round := r.ContractID
	if err := l.refuseReassigning(ctx, l.db, l.instructionUses(ti, true, round)...); err != nil {
		return ChoiceContext{}, err
	}
	cc := ChoiceContext{Values: map[string]ContextValue{
		ContextAmuletRules: cidValue(l.rulesCID),
		ContextOpenRound:   cidValue(round),
		ContextExpireLock:  {Tag: "AV_Bool", Value: true},
	}}
	cc.Disclosed, err = l.disclosed(ctx, l.rulesCID, round, ti.LockedHoldingCID)
	return cc, err
}

// instructionUses lists the contracts a move on the instruction ti uses,
// for the registry's choice context and the wallet's move alike: the
// instruction and, while its lock holds, the locked holding, AmuletRules
// and the open round round (the context's expire-lock).
func (l *Ledger) instructionUses(ti *store.TransferInstruction, locked bool, round coin.ContractID) []coin.ContractID {
	if !locked {
		return []coin.ContractID{ti.ContractID}
	}
	return []coin.ContractID{ti.ContractID, ti.LockedHoldingCID, l.rulesCID, round}
}

// refuseReassigning is the one check that none of the contracts a command
// is about to use is being reassigned between synchronizers: the
// registry's choice contexts and transfer factory, the wallet's moves on
// transfer instructions and offers, and external parties' submissions all
// refuse such a contract alike, with ErrReassigning (409), for the client
// to retry once the reassignment completes.
func (l *Ledger) refuseReassigning(ctx context.Context, db bun.IDB, ids ...coin.ContractID) error {
	rs, err := store.ReassignmentsOf(ctx, db, ids)
	if err != nil {
		return err
	}
	if len(rs) > 0 {
		return fmt.Errorf("%w: contract %s is being reassigned from synchronizer %s to %s; retry when the reassignment completes",
			ErrReassigning, rs[0].ContractID, rs[0].Source, rs[0].Target)
	}
	return nil
}

// packageName is the Daml package that defines a template.
func packageName(templateID string) string {
	// "#<package>:<module>:<entity>"
	for i := 1; i < len(templateID); i++ {
		if templateID[i] == ':' {
			return templateID[1:i]
		}
	}
	return ""
}

// disclose loads contracts for disclosure, refusing with ErrReassigning if
// any is being reassigned and ErrNotFound if any is archived.
func (l *Ledger) disclose(ctx context.Context, ids ...coin.ContractID) ([]DisclosedContract, error) {
	if err := l.refuseReassigning(ctx, l.db, ids...); err != nil {
		return nil, err
	}
	return l.disclosed(ctx, ids...)
}

// disclosed is disclose once refuseReassigning has passed.
func (l *Ledger) disclosed(ctx context.Context, ids ...coin.ContractID) ([]DisclosedContract, error) {
	cs, err := l.contractsByID(ctx, l.db, ids)
	if err != nil {
		return nil, err
	}
	out := make([]DisclosedContract, 0, len(ids))
	for _, id := range ids {
		c, ok := cs[id]
		if !ok || c.ArchivedOffset != nil {
			return nil, fmt.Errorf("contract %s: %w", id, ErrNotFound)
		}
		out = append(out, DisclosedContract{Contract: l.contractView(c), PackageName: packageName(c.TemplateID)})
	}
	return out, nil
}

// TransferKind says how a token-standard transfer will settle.
type TransferKind string

// The transfer kinds of the token standard's transfer factory.
const (
	TransferSelf   TransferKind = "self"
	TransferDirect TransferKind = "direct"
	TransferOffer  TransferKind = "offer"
)

// TransferFactory is the registry's transfer-factory answer.
type TransferFactory struct {
	FactoryID coin.ContractID
	Kind      TransferKind
	Context   ChoiceContext
}

// transferKind is the one rule for how a token-standard transfer from
// sender to receiver settles, for the transfer factory's answer and the
// transfer itself alike: self for a self-transfer, direct (in one step,
// through the returned preapproval) when the receiver has a valid transfer
// preapproval, otherwise offer (a transfer instruction the receiver
// accepts).
func (l *Ledger) transferKind(ctx context.Context, db bun.IDB, sender, receiver coin.PartyID) (TransferKind, *store.TransferPreapproval, error) {
	if sender == receiver {
		return TransferSelf, nil, nil
	}
	p, err := l.validPreapproval(ctx, db, receiver)
	switch {
	case IsValidation(err):
		return TransferOffer, nil, nil
	case err != nil:
		return "", nil, err
	}
	return TransferDirect, p, nil
}

// TransferKind says how a token-standard transfer from sender to receiver
// would settle now (transferKind).
func (l *Ledger) TransferKind(ctx context.Context, sender, receiver coin.PartyID) (TransferKind, error) {
	k, _, err := l.transferKind(ctx, l.db, sender, receiver)
	return k, err
}

// TransferFactoryFor returns the transfer factory (the
// ExternalPartyAmuletRules contract) and the choice context for a transfer
// from sender to receiver, of the kind transferKind says: for direct the
// receiver's preapproval is disclosed with its provider's featured-app
// right, if any.
func (l *Ledger) TransferFactoryFor(ctx context.Context, sender, receiver coin.PartyID) (TransferFactory, error) {
	f, ids, err := l.rulesFactory(ctx)
	if err != nil {
		return TransferFactory{}, err
	}
	kind, pre, err := l.transferKind(ctx, l.db, sender, receiver)
	if err != nil {
		return TransferFactory{}, err
	}
	f.Kind = kind
	if kind == TransferDirect {
		f.Context.Values[ContextTransferPreapprove] = cidValue(pre.ContractID)
		ids = append(ids, pre.ContractID)
		if right, err := l.featuredAppRightOf(ctx, pre.Provider); err == nil {
			f.Context.Values[ContextFeaturedAppRight] = cidValue(right)
			ids = append(ids, right)
		} else if !errors.Is(err, ErrNotFound) {
			return TransferFactory{}, err
		}
	}
	f.Context.Disclosed, err = l.disclose(ctx, ids...)
	return f, err
}

// rulesFactory is the factory of the token standard's transfers and
// allocations (the ExternalPartyAmuletRules contract) with the context
// every use of it needs, AmuletRules and the open round, and the contracts
// to disclose for them.
func (l *Ledger) rulesFactory(ctx context.Context) (TransferFactory, []coin.ContractID, error) {
	factories, err := store.ActiveContractsByTemplate(ctx, l.db, TemplateExternalPartyRule, l.dso)
	if err != nil {
		return TransferFactory{}, nil, err
	}
	if len(factories) == 0 {
		return TransferFactory{}, nil, fmt.Errorf("ExternalPartyAmuletRules contract: %w", ErrNotFound)
	}
	r, err := l.usableRound(ctx, l.db)
	if err != nil {
		return TransferFactory{}, nil, err
	}
	f := TransferFactory{FactoryID: factories[0].ContractID, Context: ChoiceContext{Values: map[string]ContextValue{
		ContextAmuletRules: cidValue(l.rulesCID),
		ContextOpenRound:   cidValue(r.ContractID),
	}}}
	return f, []coin.ContractID{f.FactoryID, l.rulesCID, r.ContractID}, nil
}

// AllocationFactory returns the allocation factory (the
// ExternalPartyAmuletRules contract) and the choice context of
// AllocationFactory_Allocate: AmuletRules and the open round, disclosed.
func (l *Ledger) AllocationFactory(ctx context.Context) (TransferFactory, error) {
	f, ids, err := l.rulesFactory(ctx)
	if err != nil {
		return TransferFactory{}, err
	}
	f.Context.Disclosed, err = l.disclose(ctx, ids...)
	return f, err
}

// AllocationChoiceContext answers the registry's choice-context request
// for move (execute, withdraw or cancel) on an allocation, as the real
// scan does: AmuletRules and the open round with the locked holding
// disclosed; execute adds the executor's featured-app right, if any, and
// withdraw and cancel expire-lock=true. If the lock is already gone,
// execute is not found and withdraw/cancel get expire-lock=false only.
func (l *Ledger) AllocationChoiceContext(ctx context.Context, cid coin.ContractID, move AllocationMove) (ChoiceContext, error) {
	notFound := notFoundf("AmuletAllocation '%s' not found.", cid)
	c, p, err := AllocationContract(ctx, l.db, cid)
	if errors.Is(err, ErrNotFound) || err == nil && c.ArchivedOffset != nil {
		return ChoiceContext{}, notFound
	} else if err != nil {
		return ChoiceContext{}, err
	}
	hs, err := store.HoldingsByIDs(ctx, l.db, []coin.ContractID{p.LockedAmulet})
	if err != nil {
		return ChoiceContext{}, err
	}
	if len(hs) == 0 {
		if move == AllocationExecute {
			return ChoiceContext{}, notFoundf("LockedAmulet '%s' not found for AmuletAllocation '%s', which expires on %s",
				p.LockedAmulet, cid, p.Allocation.Settlement.SettleBefore)
		}
		return ChoiceContext{Values: map[string]ContextValue{ContextExpireLock: {Tag: "AV_Bool", Value: false}}, Disclosed: []DisclosedContract{}}, nil
	}
	r, err := l.usableRound(ctx, l.db)
	if err != nil {
		return ChoiceContext{}, err
	}
	if err := l.refuseReassigning(ctx, l.db, cid); err != nil {
		return ChoiceContext{}, err
	}
	cc := ChoiceContext{Values: map[string]ContextValue{
		ContextAmuletRules: cidValue(l.rulesCID),
		ContextOpenRound:   cidValue(r.ContractID),
	}}
	ids := []coin.ContractID{l.rulesCID, r.ContractID, p.LockedAmulet}
	if move == AllocationExecute {
		if right, err := l.featuredAppRightOf(ctx, p.Allocation.Settlement.Executor); err == nil {
			cc.Values[ContextFeaturedAppRight] = cidValue(right)
			ids = append(ids, right)
		} else if !errors.Is(err, ErrNotFound) {
			return ChoiceContext{}, err
		}
	} else {
		cc.Values[ContextExpireLock] = ContextValue{Tag: "AV_Bool", Value: true}
	}
	cc.Disclosed, err = l.disclose(ctx, ids...)
	return cc, err
}

func (l *Ledger) featuredAppRightOf(ctx context.Context, provider coin.PartyID) (coin.ContractID, error) {
	if provider == "" {
		return "", ErrNotFound
	}
	ids, err := featuredRightsOf(ctx, l.db, provider)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("featured app right of %s: %w", provider, ErrNotFound)
	}
	return ids[0], nil
}

// BeginReassignment marks a contract as being reassigned to the target
// synchronizer. Until CompleteReassignment it cannot be disclosed.
func (l *Ledger) BeginReassignment(ctx context.Context, cid coin.ContractID, target string) error {
	if target == "" {
		return invalid("target_synchronizer_id", "must not be empty")
	}
	// It becomes the contract's synchronizer, which every reader shows.
	if err := checkID("target_synchronizer_id", target); err != nil {
		return err
	}
	err := l.change(ctx, func(ctx context.Context, ch *change) error {
		tx := ch.tx
		c, err := store.ContractByID(ctx, tx, cid)
		if err != nil {
			return err
		}
		if c.ArchivedOffset != nil {
			return fmt.Errorf("contract %s is archived: %w", cid, ErrNotFound)
		}
		if c.SynchronizerID == target {
			return invalid("target_synchronizer_id", "contract %s is already assigned to %s", cid, target)
		}
		err = store.InsertReassignment(ctx, tx, &store.Reassignment{ContractID: cid, Source: c.SynchronizerID, Target: target, StartedAt: l.now()})
		if errors.Is(err, store.ErrAlreadyExists) {
			return fmt.Errorf("%w: contract %s is already being reassigned", ErrConflict, cid)
		}
		return err
	})
	if err == nil {
		l.reassigning.Add(1)
	}
	return err
}

// CompleteReassignment finishes a reassignment: the contract is now
// assigned to its target synchronizer.
func (l *Ledger) CompleteReassignment(ctx context.Context, cid coin.ContractID) error {
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		r, err := store.DeleteReassignment(ctx, c.tx, cid)
		if err != nil {
			return err
		}
		return store.SetContractSynchronizer(ctx, c.tx, cid, r.Target)
	})
	if err == nil && l.reassigning.Add(-1) < 0 {
		l.reassigning.Store(0) // begun by another replica
	}
	return err
}

// refuseReassigningSend is the reassignment check of a one-step send to
// receiver: its preapproval, AmuletRules and the round in use. It reads
// only while a reassignment may be running (Ledger.reassigning).
func (l *Ledger) refuseReassigningSend(ctx context.Context, receiver coin.PartyID) error {
	if l.reassigning.Load() <= 0 {
		return nil
	}
	ids := []coin.ContractID{l.rulesCID}
	if p, err := store.LiveTransferPreapproval(ctx, l.db, receiver); err == nil {
		ids = append(ids, p.ContractID)
	}
	if r, err := l.usableRound(ctx, l.db); err == nil {
		ids = append(ids, r.ContractID)
	}
	return l.refuseReassigning(ctx, l.db, ids...)
}

// TotalSupply is the live coin supply at initial amounts (locked holdings
// included), and when it was computed.
func (l *Ledger) TotalSupply(ctx context.Context) (coin.Amount, time.Time, error) {
	total := coin.Zero
	err := store.ScanHoldings(ctx, l.db, func(h store.Holding) error {
		total = total.Add(h.Amount)
		return nil
	})
	return total, l.now(), err
}

// RulesContractID returns the AmuletRules contract's ID.
func (l *Ledger) RulesContractID() coin.ContractID { return l.rulesCID }
