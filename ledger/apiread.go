package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// The ledger as the JSON Ledger API v2 reads it: contracts with their
// stakeholders and offsets, the updates' shape, the offset rule, and the
// token standard's interface views of the coin's contracts. The reads
// themselves (the active contract set as of an offset, the contract
// events of each update, parties) are ledger/apiread's.

// Token-standard interfaces the coin's contracts implement, in package-name
// form.
const (
	InterfaceHolding             = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
	InterfaceTransferInstruction = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction"
	InterfaceTransferFactory     = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory"
)

// interfaceImplementers maps each interface to the templates implementing
// it on this ledger.
var interfaceImplementers = map[string][]string{
	InterfaceHolding:             {TemplateAmulet, TemplateLockedAmulet},
	InterfaceTransferInstruction: {TemplateTransferInstruction},
	InterfaceTransferFactory:     {TemplateExternalPartyRule},
	InterfaceAllocation:          {TemplateAmuletAllocation},
	InterfaceAllocationFactory:   {TemplateExternalPartyRule},
	InterfaceAllocationRequest:   {TemplateOTCTrade},
	// Interfaces of the served packages no template here implements:
	// a filter on one is valid and matches nothing, as on Canton.
	InterfaceAllocationInstruction: nil,
	InterfaceAnyContract:           nil,
}

// The served packages' interfaces nothing on this ledger implements.
const (
	InterfaceAllocationInstruction = "#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationInstruction"
	InterfaceAnyContract           = "#splice-api-token-metadata-v1:Splice.Api.Token.MetadataV1:AnyContract"
)

// Templates lists the templates of the contracts this ledger creates.
func Templates() []string {
	ts := []string{
		TemplateAmulet, TemplateLockedAmulet, TemplateAmuletRules, TemplateOpenMiningRound, TemplateWalletAppInstall,
		TemplateValidatorRight, TemplateFeaturedAppRight, TemplateExternalPartyRule, TemplateMintingDelegationProposal,
		TemplateMintingDelegation, TemplateExternalPartySetupProposal, TemplateTransferCommandCounter, TemplateTransferInstruction,
		TemplateMergeDelegation, TemplateMergeDelegationProposal, TemplateTransferOffer, TemplateAcceptedTransferOffer,
		TemplateTransferPreapproval, TemplateTransferCommand, TemplateBuyTrafficRequest, TemplateMemberTraffic,
		TemplateAmuletAllocation, TemplateOTCTradeProposal, TemplateOTCTrade,
		TemplateAppPaymentRequest, TemplateAcceptedAppPayment, TemplateTransferPreapprovalProposal, TemplateBatchMergeUtility, TemplateDelegateProxy,
		TemplatePing, TemplatePingBuiltin,
		TemplateSubscriptionRequest, TemplateSubscriptionInitialPayment, TemplateSubscription,
		TemplateSubscriptionIdleState, TemplateSubscriptionPayment, TemplateTerminatedSubscription,
	}
	for _, t := range rewardTemplates {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// Interfaces lists the interfaces some template of this ledger implements.
func Interfaces() []string {
	out := make([]string, 0, len(interfaceImplementers))
	for i := range interfaceImplementers {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// Implementers lists the templates implementing iface (nil when none).
func Implementers(iface string) []string { return interfaceImplementers[iface] }

// Implements reports whether template implements iface.
func Implements(template, iface string) bool {
	return slices.Contains(interfaceImplementers[iface], template)
}

// LedgerContract is a contract as the Ledger API shows it.
type LedgerContract struct {
	Contract
	Signatories []coin.PartyID
	Observers   []coin.PartyID
	// CreatedOffset and ArchivedOffset are the offsets of the updates that
	// created and archived it; ArchivedOffset is 0 while it is active.
	CreatedOffset  int64
	ArchivedOffset int64
}

// Stakeholders are its signatories and observers.
func (c LedgerContract) Stakeholders() []coin.PartyID {
	return append(slices.Clone(c.Signatories), c.Observers...)
}

// observerFields are, per template, the payload paths of parties that are
// observers, not signatories; every other stakeholder signs.
var observerFields = map[string][]string{
	TemplateTransferInstruction:         {"transfer", "receiver"},
	TemplateAmuletAllocation:            {"allocation", "settlement", "executor"},
	TemplateTransferPreapprovalProposal: {"provider"},
	TemplateDelegateProxy:               {"delegate"},
}

// signatoriesOf are, for templates whose signatories a payload field
// lists, those signatories; their other stakeholders observe.
var signatoriesOf = map[string]func(payload []byte) []coin.PartyID{
	TemplatePing:        pingInitiator,
	TemplatePingBuiltin: pingInitiator,
	TemplateOTCTradeProposal: func(b []byte) []coin.PartyID {
		var p OTCTradeProposal
		_ = json.Unmarshal(b, &p)
		return p.Approvers
	},
}

func (l *Ledger) ledgerContract(c *store.Contract) LedgerContract {
	lc := LedgerContract{Contract: l.contractView(c), CreatedOffset: c.CreatedOffset}
	if c.ArchivedOffset != nil {
		lc.ArchivedOffset = *c.ArchivedOffset
	}
	var observer coin.PartyID
	if path, ok := observerFields[c.TemplateID]; ok {
		var v any
		if json.Unmarshal([]byte(c.Payload), &v) == nil {
			for _, k := range path {
				m, _ := v.(map[string]any)
				v = m[k]
			}
			s, _ := v.(string)
			observer = coin.PartyID(s)
		}
	}
	var signs func(coin.PartyID) bool
	if f, ok := signatoriesOf[c.TemplateID]; ok {
		ss := f([]byte(c.Payload))
		signs = func(p coin.PartyID) bool { return slices.Contains(ss, p) }
	}
	for _, p := range store.ParsePartyList(c.Stakeholders) {
		if p == observer || signs != nil && !signs(p) {
			lc.Observers = append(lc.Observers, p)
		} else {
			lc.Signatories = append(lc.Signatories, p)
		}
	}
	return lc
}

func (l *Ledger) holdingLedgerContract(h store.HoldingRow) LedgerContract {
	lc := l.ledgerContract(l.holdingContract(h.Holding))
	lc.ArchivedOffset = h.SpentOffset
	return lc
}

// ErrPruned is a read below the pruned offset.
var ErrPruned = errors.New("pruned")

// ErrAfterLedgerEnd is a read past the ledger end.
var ErrAfterLedgerEnd = errors.New("offset after ledger end")

// checkOffset refuses an offset below the pruned offset or past the
// ledger end, which it returns.
func (l *Ledger) checkOffset(ctx context.Context, db bun.IDB, field string, offset int64) (int64, error) {
	if offset < 0 {
		return 0, invalid(field, "must not be negative, got %d", offset)
	}
	end, err := store.LedgerEnd(ctx, db)
	if err != nil {
		return 0, err
	}
	if offset > end {
		return 0, fmt.Errorf("%w: %s %d is after the ledger end %d", ErrAfterLedgerEnd, field, offset, end)
	}
	t, err := store.LoadPrunedTotals(ctx, db)
	if err != nil {
		return 0, err
	}
	if offset < t.LastOffset {
		return 0, fmt.Errorf("%w: %s %d is before the pruning offset %d; read from %d on", ErrPruned, field, offset, t.LastOffset, t.LastOffset)
	}
	return end, nil
}

// InterfaceViewOf computes the view of c through iface, as the coin's
// implementations of the token standard define it (Splice's Amulet,
// LockedAmulet and AmuletTransferInstruction), on the network of dso
// (ledger/apiread's InterfaceView).
func InterfaceViewOf(c LedgerContract, iface string, dso coin.PartyID) (json.RawMessage, error) {
	if !Implements(c.TemplateID, iface) {
		return nil, fmt.Errorf("template %s does not implement %s", c.TemplateID, iface)
	}
	switch c.TemplateID {
	case TemplateAmulet, TemplateLockedAmulet:
		var a amuletPayload
		var lock *holdingLock
		if c.TemplateID == TemplateLockedAmulet {
			var p lockedAmuletPayload
			if err := json.Unmarshal(c.Payload, &p); err != nil {
				return nil, fmt.Errorf("locked amulet %s: %w", c.ContractID, err)
			}
			a = p.Amulet
			exp := p.Lock.ExpiresAt
			lock = &holdingLock{Holders: p.Lock.Holders, ExpiresAt: &exp, Context: p.Lock.OptContext}
		} else if err := json.Unmarshal(c.Payload, &a); err != nil {
			return nil, fmt.Errorf("amulet %s: %w", c.ContractID, err)
		}
		return json.Marshal(holdingView{
			Owner: a.Owner, InstrumentID: instrumentRef{Admin: a.DSO, ID: InstrumentID}, Amount: a.Amount.InitialAmount, Lock: lock,
			Meta: metadata{Values: map[string]string{
				"amulet.splice.lfdecentralizedtrust.org/created-in-round": a.Amount.CreatedAt.Number,
				"amulet.splice.lfdecentralizedtrust.org/rate-per-round":   a.Amount.RatePerRound.Rate.String(),
			}},
		})
	case TemplateTransferInstruction:
		var p transferInstructionPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return nil, fmt.Errorf("transfer instruction %s: %w", c.ContractID, err)
		}
		return json.Marshal(transferInstructionView{
			Transfer: p.Transfer, Status: variant{Tag: "TransferPendingReceiverAcceptance", Value: struct{}{}},
			Meta: metadata{Values: map[string]string{}},
		})
	case TemplateAmuletAllocation:
		var p AllocationPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return nil, fmt.Errorf("allocation %s: %w", c.ContractID, err)
		}
		return json.Marshal(allocationView{Allocation: p.Allocation, HoldingCids: []coin.ContractID{p.LockedAmulet}, Meta: metadata{Values: map[string]string{}}})
	case TemplateOTCTrade:
		var tr OTCTrade
		if err := json.Unmarshal(c.Payload, &tr); err != nil {
			return nil, fmt.Errorf("OTC trade %s: %w", c.ContractID, err)
		}
		return json.Marshal(allocationRequestView{Settlement: tr.Settlement(), TransferLegs: tr.TransferLegs, Meta: metadata{Values: map[string]string{}}})
	case TemplateExternalPartyRule:
		// TransferFactoryView and AllocationFactoryView: the admin and empty metadata.
		return json.Marshal(struct {
			Admin coin.PartyID `json:"admin"`
			Meta  metadata     `json:"meta"`
		}{dso, metadata{Values: map[string]string{}}})
	}
	return nil, fmt.Errorf("no view of %s through %s", c.TemplateID, iface)
}

// holdingView is the token standard's HoldingView.
type holdingView struct {
	Owner        coin.PartyID  `json:"owner"`
	InstrumentID instrumentRef `json:"instrumentId"`
	Amount       coin.Amount   `json:"amount"`
	Lock         *holdingLock  `json:"lock"`
	Meta         metadata      `json:"meta"`
}

// holdingLock is the token standard's Lock.
type holdingLock struct {
	Holders      []string `json:"holders"`
	ExpiresAt    *string  `json:"expiresAt"`
	ExpiresAfter *string  `json:"expiresAfter"`
	Context      *string  `json:"context"`
}

// transferInstructionView is the token standard's TransferInstructionView.
type transferInstructionView struct {
	OriginalInstructionCid *coin.ContractID `json:"originalInstructionCid"`
	Transfer               transferPayload  `json:"transfer"`
	Status                 variant          `json:"status"`
	Meta                   metadata         `json:"meta"`
}

// variant is a Daml variant in the JSON API encoding.
type variant struct {
	Tag   string `json:"tag"`
	Value any    `json:"value"`
}

// ParticipantID is this node's participant id.
func (l *Ledger) ParticipantID() string { return "participant::" + l.namespace }

// AllocateParty creates a local party with hint (a fresh one when empty)
// in this node's namespace; a hint in use is a conflict.
func (l *Ledger) AllocateParty(ctx context.Context, hint string) (coin.PartyID, error) {
	if hint == "" {
		hint = "party-" + uuidHex()[:12]
	}
	if err := coin.ValidateHint(hint); err != nil {
		return "", invalid("partyIdHint", "%v", err)
	}
	p, err := coin.NewPartyID(hint, l.namespace)
	if err != nil {
		return "", invalid("partyIdHint", "%v", err)
	}
	err = store.InsertParty(ctx, l.db, &store.Party{PartyID: p, Hint: hint, Kind: "local", CreatedAt: l.now()})
	if errors.Is(err, store.ErrAlreadyExists) {
		return "", fmt.Errorf("%w: party %s already exists", ErrConflict, p)
	}
	return p, err
}

// MaxAPIPage bounds the elements one Ledger API list returns, as
// Canton's httpListMaxElementsLimit does.
const MaxAPIPage = 200

// LedgerEvent is one event of an update: a contract's creation or its
// archive.
type LedgerEvent struct {
	Archived bool
	Contract LedgerContract
	// Descendant marks an event the reader sees only as a descendant of
	// the update's root exercise, which a party it reads for acted in
	// (apiread's addDescendants).
	Descendant bool
}

// LedgerUpdate is one update (transaction) of the log with the events f
// selected.
type LedgerUpdate struct {
	Offset     int64
	UpdateID   string
	Kind       string // what the update did (effects.ConsumedBy)
	RecordTime time.Time
	Events     []LedgerEvent
	// Exercise is the root exercise of the Ledger API command that made
	// the update, nil when none is stored (exercises.go).
	Exercise *Exercise
}
