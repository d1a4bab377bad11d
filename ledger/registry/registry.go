// Package registry owns the token standard's registry reads (Splice's
// token-metadata, transfer-instruction, allocation-instruction and
// allocation APIs): the transfer and allocation factories with their
// choice contexts, the choice contexts of moves on transfer instructions
// and allocations, with the contracts a client must disclose, and the
// total supply. It only reads: the rules they share with the core's moves
// (how a transfer settles, which contracts a move uses, contracts being
// reassigned) stay in the core (ledger/reassign.go), which executes the
// choices.
package registry

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/ttlcache"
	"github.com/ccwallet/ccwallet/store"
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

// Service is the registry's reads of one ledger.
type Service struct {
	l *ledger.Ledger
	// factory is the ExternalPartyAmuletRules contract's ID, once read
	// (a coin.ContractID): it is created with the network and never
	// archived, and every transfer asked for it. A restore may replace
	// it, so it is forgotten then, and whenever disclosing it finds it
	// gone.
	factory atomic.Value
	// round and featured are what factory answers remember of the
	// contracts they disclose besides the factory: the usable round and
	// providers' featured-app rights (none: ""), each while the ledger's
	// ReferenceVersion it was read at holds and for at most memoTTL (another
	// replica's changes do not move the version). The answer's read of the
	// contracts it discloses finds one archived meanwhile, and the answer
	// is then read afresh (withFactory).
	round    atomic.Pointer[roundMemo]
	featured *ttlcache.Cache[coin.PartyID, featuredMemo]
	// views are the contracts answers disclosed, by id: a contract's
	// content never changes, so an answer that finds them all here reads
	// only which are active and on which synchronizer (a reassignment
	// moves one), not their payloads (the AmuletRules' is kilobytes).
	views *ttlcache.Cache[coin.ContractID, DisclosedContract]
	// answers are the transfer-factory answers, by receiver (the answer
	// is the same for every sender but the receiver), each trusted while
	// the ledger's ReferenceVersion it was read at holds (no contract
	// archived, no preapproval, round or featured right created here
	// since), for at most memoTTL, and while the preapproval it routes
	// through is unexpired: an answer then reads nothing. Another
	// replica's change shows within memoTTL, as a real scan's answers
	// lag the ledger too; a stale answer is the race every answer runs
	// with the submission that uses it, refused there.
	answers *ttlcache.Cache[coin.PartyID, answerMemo]
}

// answerMemo is a remembered transfer-factory answer.
type answerMemo struct {
	f       TransferFactory
	version uint64
}

// viewTTL and maxViews bound the disclosed contracts remembered: the
// factory's few, the rounds, the preapprovals and featured-app rights
// of the receivers in use, the locks of instructions being settled.
const (
	viewTTL  = time.Hour
	maxViews = 10000
)

// memoTTL bounds how long a factory answer trusts a remembered round or
// featured-app right, on the ledger's clock (the usable round depends on
// it; a development network's clock set back forgets them): a round
// opened or a right granted on another replica shows within it (one
// closed or cancelled shows at once: its contract is archived).
const memoTTL = time.Second

// memoProviders bounds the providers whose featured-app right is
// remembered, memoReceivers the receivers whose transfer-factory answer
// is.
const (
	memoProviders = 1000
	memoReceivers = 10000
)

type roundMemo struct {
	id      coin.ContractID
	version uint64
	read    time.Time
}

type featuredMemo struct {
	id      coin.ContractID // "" when the provider has none
	version uint64
}

// New builds l's registry reads.
func New(l *ledger.Ledger) *Service {
	s := &Service{l: l, featured: ttlcache.New[coin.PartyID, featuredMemo](memoTTL, memoProviders),
		views:   ttlcache.New[coin.ContractID, DisclosedContract](viewTTL, maxViews),
		answers: ttlcache.New[coin.PartyID, answerMemo](memoTTL, memoReceivers)}
	l.OnRestore(s.forgetFactory)
	return s
}

// forgetFactory forgets what factory answers remember.
func (s *Service) forgetFactory() {
	s.factory.Store(coin.ContractID(""))
	s.round.Store(nil)
	s.featured.Clear()
	s.views.Clear()
	s.answers.Clear()
}

// usableRound is the ledger's usable round's contract, and whether it was
// remembered (see Service.round).
func (s *Service) usableRound(ctx context.Context) (coin.ContractID, bool, error) {
	now, version := s.l.Now(), s.l.ReferenceVersion()
	if m := s.round.Load(); m != nil && m.version == version && !now.Before(m.read) && now.Sub(m.read) < memoTTL {
		return m.id, true, nil
	}
	r, err := s.l.UsableRound(ctx, s.l.DB())
	if err != nil {
		return "", false, err
	}
	s.round.Store(&roundMemo{id: r.ContractID, version: version, read: now})
	return r.ContractID, false, nil
}

// featuredRight is provider's featured-app right ("" for none), and
// whether it was remembered (see Service.featured).
func (s *Service) featuredRight(ctx context.Context, provider coin.PartyID) (coin.ContractID, bool, error) {
	now, version := s.l.Now(), s.l.ReferenceVersion()
	if m, ok := s.featured.Get(provider, now); ok && m.version == version {
		return m.id, true, nil
	}
	gen := s.featured.Generation()
	id, err := featured.RightID(ctx, s.l.DB(), provider)
	if err != nil && !errors.Is(err, fault.ErrNotFound) {
		return "", false, err
	}
	s.featured.Put(provider, featuredMemo{id: id, version: version}, now, gen)
	return id, false, nil
}

// factoryID is the ExternalPartyAmuletRules contract's ID, and whether it
// was remembered.
func (s *Service) factoryID(ctx context.Context) (coin.ContractID, bool, error) {
	if id, _ := s.factory.Load().(coin.ContractID); id != "" {
		return id, true, nil
	}
	factories, err := store.ActiveContractsByTemplate(ctx, s.l.DB(), ledger.TemplateExternalPartyRule, s.l.DSO())
	if err != nil {
		return "", false, err
	}
	if len(factories) == 0 {
		return "", false, fmt.Errorf("ExternalPartyAmuletRules contract: %w", fault.ErrNotFound)
	}
	s.factory.Store(factories[0].ContractID)
	return factories[0].ContractID, false, nil
}

// IsFactory reports whether cid is the transfer factory this registry
// remembers (handed out by a factory answer since the start or the last
// restore): active for sure, as that contract is never archived, so a
// submission that exercises it needs no read to know it.
func (s *Service) IsFactory(cid coin.ContractID) bool {
	id, _ := s.factory.Load().(coin.ContractID)
	return id != "" && id == cid
}

// withFactory runs read, once more with the factory read afresh if it
// finds a remembered factory gone.
func (s *Service) withFactory(read func() (TransferFactory, bool, error)) (TransferFactory, error) {
	f, remembered, err := read()
	if remembered && errors.Is(err, fault.ErrNotFound) {
		s.forgetFactory()
		f, _, err = read()
	}
	return f, err
}

// DisclosedContract is a contract a client must disclose to exercise a
// choice, with the data the registry API shows about it.
type DisclosedContract struct {
	Contract    ledger.Contract
	PackageName string
}

// ChoiceContext is what exercising a token-standard choice needs: the
// context values (referring to contracts by id) and those contracts.
type ChoiceContext struct {
	Values    map[string]ContextValue
	Disclosed []DisclosedContract
}

func cidValue(c coin.ContractID) ContextValue {
	return ContextValue{Tag: "AV_ContractId", Value: string(c)}
}

// InstructionChoiceContext answers the registry's choice-context request
// for move (accept, reject or withdraw) on a transfer instruction, as the
// real scan does: amulet-rules, the open round and expire-lock=true with
// the rules, round and locked holding disclosed. If the lock is already
// gone, accept is not found and reject/withdraw get expire-lock=false only.
func (s *Service) InstructionChoiceContext(ctx context.Context, cid coin.ContractID, move ledger.InstructionMove) (ChoiceContext, error) {
	notFound := fault.NotFoundf("AmuletTransferInstruction '%s' not found.", cid)
	ti, err := store.TransferInstructionByID(ctx, s.l.DB(), cid)
	if errors.Is(err, store.ErrNotFound) {
		return ChoiceContext{}, notFound
	} else if err != nil {
		return ChoiceContext{}, err
	}
	if ti.Status != string(ledger.InstructionPending) {
		return ChoiceContext{}, notFound
	}
	hs, err := store.HoldingsByIDs(ctx, s.l.DB(), []coin.ContractID{ti.LockedHoldingCID})
	if err != nil {
		return ChoiceContext{}, err
	}
	if len(hs) == 0 {
		if move == ledger.MoveAccept {
			return ChoiceContext{}, fault.NotFoundf("LockedAmulet '%s' not found for AmuletTransferInstruction '%s', which expires on %s",
				ti.LockedHoldingCID, cid, ledger.FormatTime(ti.ExecuteBefore))
		}
		return ChoiceContext{Values: map[string]ContextValue{ContextExpireLock: {Tag: "AV_Bool", Value: false}}, Disclosed: []DisclosedContract{}}, nil
	}
	r, err := s.l.UsableRound(ctx, s.l.DB())
	if err != nil {
		return ChoiceContext{}, err
	}
	round := r.ContractID
	if err := ledger.RefuseReassigning(ctx, s.l, s.l.DB(), s.l.Instructions().Uses(ti, true, round)...); err != nil {
		return ChoiceContext{}, err
	}
	cc := ChoiceContext{Values: map[string]ContextValue{
		ContextAmuletRules: cidValue(s.l.RulesContractID()),
		ContextOpenRound:   cidValue(round),
		ContextExpireLock:  {Tag: "AV_Bool", Value: true},
	}}
	cc.Disclosed, err = s.disclosed(ctx, s.l.RulesContractID(), round, ti.LockedHoldingCID)
	return cc, err
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
// any is being reassigned and fault.ErrNotFound if any is archived.
func (s *Service) disclose(ctx context.Context, ids ...coin.ContractID) ([]DisclosedContract, error) {
	if err := ledger.RefuseReassigning(ctx, s.l, s.l.DB(), ids...); err != nil {
		return nil, err
	}
	return s.disclosed(ctx, ids...)
}

// disclosed is disclose once ledger.RefuseReassigning has passed.
func (s *Service) disclosed(ctx context.Context, ids ...coin.ContractID) ([]DisclosedContract, error) {
	if out, ok, err := s.rememberedViews(ctx, ids); ok || err != nil {
		return out, err
	}
	now, gen := s.l.Now(), s.views.Generation()
	cs, err := store.ContractsByIDs(ctx, s.l.DB(), ids)
	if err != nil {
		return nil, err
	}
	out := make([]DisclosedContract, 0, len(ids))
	for _, id := range ids {
		c, ok := cs[id]
		if !ok || c.ArchivedOffset != nil {
			return nil, fmt.Errorf("contract %s: %w", id, fault.ErrNotFound)
		}
		d := DisclosedContract{Contract: s.l.ContractView(c), PackageName: packageName(c.TemplateID)}
		s.views.Put(id, d, now, gen)
		out = append(out, d)
	}
	return out, nil
}

// rememberedViews is disclosed from the views remembered, when there is
// one of every contract and each is still active on the synchronizer it
// was on; ok is false when one must be read.
func (s *Service) rememberedViews(ctx context.Context, ids []coin.ContractID) (out []DisclosedContract, ok bool, err error) {
	now := s.l.Now()
	out = make([]DisclosedContract, len(ids))
	for i, id := range ids {
		if out[i], ok = s.views.Get(id, now); !ok {
			return nil, false, nil
		}
	}
	active, err := store.ActiveSynchronizers(ctx, s.l.DB(), ids)
	if err != nil {
		return nil, false, err
	}
	for i, id := range ids {
		sync, isActive := active[id]
		if !isActive {
			return nil, false, fmt.Errorf("contract %s: %w", id, fault.ErrNotFound)
		}
		if sync != out[i].Contract.SynchronizerID {
			return nil, false, nil // reassigned since
		}
	}
	return out, true, nil
}

// TransferFactory is the registry's transfer-factory answer.
type TransferFactory struct {
	FactoryID coin.ContractID
	Kind      ledger.TransferKind
	Context   ChoiceContext
	// Answer is not zero for an answer remembered (TransferFactoryFor):
	// answers with the same Answer are the same, so a caller may keep
	// what it made of one (the registry API its JSON) by it. No two
	// remembered answers of a process share one.
	Answer uint64
	until  time.Time // a direct transfer's preapproval's expiry
}

// answerNumbers numbers the remembered transfer-factory answers
// (TransferFactory.Answer) across a process's services.
var answerNumbers atomic.Uint64

// TransferKind says how a token-standard transfer from sender to receiver
// would settle now (ledger.Instructions.Route).
func (s *Service) TransferKind(ctx context.Context, sender, receiver coin.PartyID) (ledger.TransferKind, error) {
	k, _, err := s.l.Instructions().Route(ctx, s.l.DB(), sender, receiver)
	return k, err
}

// TransferFactoryFor returns the transfer factory (the
// ExternalPartyAmuletRules contract) and the choice context for a transfer
// from sender to receiver, of the kind Instructions().Route says: for direct the
// receiver's preapproval is disclosed with its provider's featured-app
// right, if any.
func (s *Service) TransferFactoryFor(ctx context.Context, sender, receiver coin.PartyID) (TransferFactory, error) {
	if sender == receiver {
		return s.transferFactory(ctx, sender, receiver)
	}
	now, version := s.l.Now(), s.l.ReferenceVersion()
	if m, ok := s.answers.Get(receiver, now); ok && m.version == version && (m.f.until.IsZero() || now.Before(m.f.until)) {
		return m.f.clone(), nil
	}
	gen := s.answers.Generation()
	f, err := s.transferFactory(ctx, sender, receiver)
	if err != nil {
		return f, err
	}
	f.Answer = answerNumbers.Add(1)
	s.answers.Put(receiver, answerMemo{f: f.clone(), version: version}, now, gen)
	return f, nil
}

// clone is f with its own map and slice, for a remembered answer that
// its callers may change.
func (f TransferFactory) clone() TransferFactory {
	f.Context.Values = maps.Clone(f.Context.Values)
	f.Context.Disclosed = slices.Clone(f.Context.Disclosed)
	return f
}

// transferFactory is TransferFactoryFor read afresh.
func (s *Service) transferFactory(ctx context.Context, sender, receiver coin.PartyID) (TransferFactory, error) {
	return s.withFactory(func() (TransferFactory, bool, error) {
		f, ids, remembered, err := s.rulesFactory(ctx)
		if err != nil {
			return TransferFactory{}, remembered, err
		}
		kind, pre, err := s.l.Instructions().Route(ctx, s.l.DB(), sender, receiver)
		if err != nil {
			return TransferFactory{}, remembered, err
		}
		f.Kind = kind
		if kind == ledger.TransferDirect {
			f.Context.Values[ContextTransferPreapprove] = cidValue(pre.ContractID)
			f.until = pre.ExpiresAt
			ids = append(ids, pre.ContractID)
			right, known, err := s.featuredRight(ctx, pre.Provider)
			remembered = remembered || known
			if err != nil {
				return TransferFactory{}, remembered, err
			}
			if right != "" {
				f.Context.Values[ContextFeaturedAppRight] = cidValue(right)
				ids = append(ids, right)
			}
		}
		f.Context.Disclosed, err = s.disclose(ctx, ids...)
		return f, remembered, err
	})
}

// rulesFactory is the factory of the token standard's transfers and
// allocations (the ExternalPartyAmuletRules contract) with the context
// every use of it needs, AmuletRules and the open round, and the contracts
// to disclose for them; remembered says the factory's ID was.
func (s *Service) rulesFactory(ctx context.Context) (TransferFactory, []coin.ContractID, bool, error) {
	id, remembered, err := s.factoryID(ctx)
	if err != nil {
		return TransferFactory{}, nil, false, err
	}
	round, known, err := s.usableRound(ctx)
	remembered = remembered || known
	if err != nil {
		return TransferFactory{}, nil, remembered, err
	}
	f := TransferFactory{FactoryID: id, Context: ChoiceContext{Values: map[string]ContextValue{
		ContextAmuletRules: cidValue(s.l.RulesContractID()),
		ContextOpenRound:   cidValue(round),
	}}}
	return f, []coin.ContractID{f.FactoryID, s.l.RulesContractID(), round}, remembered, nil
}

// AllocationFactory returns the allocation factory (the
// ExternalPartyAmuletRules contract) and the choice context of
// AllocationFactory_Allocate: AmuletRules and the open round, disclosed.
func (s *Service) AllocationFactory(ctx context.Context) (TransferFactory, error) {
	return s.withFactory(func() (TransferFactory, bool, error) {
		f, ids, remembered, err := s.rulesFactory(ctx)
		if err != nil {
			return TransferFactory{}, remembered, err
		}
		f.Context.Disclosed, err = s.disclose(ctx, ids...)
		return f, remembered, err
	})
}

// AllocationChoiceContext answers the registry's choice-context request
// for move (execute, withdraw or cancel) on an allocation, as the real
// scan does: AmuletRules and the open round with the locked holding
// disclosed; execute adds the executor's featured-app right, if any, and
// withdraw and cancel expire-lock=true. If the lock is already gone,
// execute is not found and withdraw/cancel get expire-lock=false only.
func (s *Service) AllocationChoiceContext(ctx context.Context, cid coin.ContractID, move allocationdata.AllocationMove) (ChoiceContext, error) {
	notFound := fault.NotFoundf("AmuletAllocation '%s' not found.", cid)
	c, p, err := allocationdata.AllocationContract(ctx, s.l.DB(), cid)
	if errors.Is(err, fault.ErrNotFound) || err == nil && c.ArchivedOffset != nil {
		return ChoiceContext{}, notFound
	} else if err != nil {
		return ChoiceContext{}, err
	}
	hs, err := store.HoldingsByIDs(ctx, s.l.DB(), []coin.ContractID{p.LockedAmulet})
	if err != nil {
		return ChoiceContext{}, err
	}
	if len(hs) == 0 {
		if move == allocationdata.AllocationExecute {
			return ChoiceContext{}, fault.NotFoundf("LockedAmulet '%s' not found for AmuletAllocation '%s', which expires on %s",
				p.LockedAmulet, cid, p.Allocation.Settlement.SettleBefore)
		}
		return ChoiceContext{Values: map[string]ContextValue{ContextExpireLock: {Tag: "AV_Bool", Value: false}}, Disclosed: []DisclosedContract{}}, nil
	}
	r, err := s.l.UsableRound(ctx, s.l.DB())
	if err != nil {
		return ChoiceContext{}, err
	}
	if err := ledger.RefuseReassigning(ctx, s.l, s.l.DB(), cid); err != nil {
		return ChoiceContext{}, err
	}
	cc := ChoiceContext{Values: map[string]ContextValue{
		ContextAmuletRules: cidValue(s.l.RulesContractID()),
		ContextOpenRound:   cidValue(r.ContractID),
	}}
	ids := []coin.ContractID{s.l.RulesContractID(), r.ContractID, p.LockedAmulet}
	if move == allocationdata.AllocationExecute {
		if right, err := featured.RightID(ctx, s.l.DB(), p.Allocation.Settlement.Executor); err == nil {
			cc.Values[ContextFeaturedAppRight] = cidValue(right)
			ids = append(ids, right)
		} else if !errors.Is(err, fault.ErrNotFound) {
			return ChoiceContext{}, err
		}
	} else {
		cc.Values[ContextExpireLock] = ContextValue{Tag: "AV_Bool", Value: true}
	}
	cc.Disclosed, err = s.disclose(ctx, ids...)
	return cc, err
}

// TotalSupply is the live coin supply at initial amounts (locked holdings
// included), and when it was computed.
func (s *Service) TotalSupply(ctx context.Context) (coin.Amount, time.Time, error) {
	total := coin.Zero
	err := store.ScanHoldings(ctx, s.l.DB(), func(h store.Holding) error {
		total = total.Add(h.Amount)
		return nil
	})
	return total, s.l.Now(), err
}
