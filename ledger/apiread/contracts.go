package apiread

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/ledger/ping"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// The ledger as the JSON Ledger API v2 reads it: contracts with their
// stakeholders and offsets, the updates' shape, the offset rule, and the
// templates and token-standard interfaces of the coin's contracts.

// Token-standard interfaces the coin's contracts implement, in package-name
// form (the allocation interfaces are ledger/allocationdata's).
const (
	InterfaceHolding             = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
	InterfaceTransferInstruction = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction"
	InterfaceTransferFactory     = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory"
)

// interfaceImplementers maps each interface to the templates implementing
// it on this ledger.
var interfaceImplementers = map[string][]string{
	InterfaceHolding:                          {ledger.TemplateAmulet, ledger.TemplateLockedAmulet},
	InterfaceTransferInstruction:              {ledger.TemplateTransferInstruction},
	InterfaceTransferFactory:                  {ledger.TemplateExternalPartyRule},
	allocationdata.InterfaceAllocation:        {allocationdata.TemplateAmuletAllocation},
	allocationdata.InterfaceAllocationFactory: {ledger.TemplateExternalPartyRule},
	allocationdata.InterfaceAllocationRequest: {allocationdata.TemplateOTCTrade},
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
		ledger.TemplateAmulet, ledger.TemplateLockedAmulet, ledger.TemplateAmuletRules, ledger.TemplateOpenMiningRound, ledger.TemplateWalletAppInstall,
		ledger.TemplateValidatorRight, ledger.TemplateFeaturedAppRight, ledger.TemplateExternalPartyRule, delegations.TemplateMintingDelegationProposal,
		delegations.TemplateMintingDelegation, ledger.TemplateExternalPartySetupProposal, ledger.TemplateTransferCommandCounter, ledger.TemplateTransferInstruction,
		delegations.TemplateMergeDelegation, delegations.TemplateMergeDelegationProposal, ledger.TemplateTransferOffer, ledger.TemplateAcceptedTransferOffer,
		ledger.TemplateTransferPreapproval, ledger.TemplateTransferCommand, ledger.TemplateBuyTrafficRequest, ledger.TemplateMemberTraffic,
		allocationdata.TemplateAmuletAllocation, allocationdata.TemplateOTCTradeProposal, allocationdata.TemplateOTCTrade,
		payments.TemplateAppPaymentRequest, payments.TemplateAcceptedAppPayment, provider.TemplateTransferPreapprovalProposal, delegations.TemplateBatchMergeUtility, ledger.TemplateDelegateProxy,
		ping.TemplatePing, ping.TemplatePingBuiltin,
		payments.TemplateSubscriptionRequest, payments.TemplateSubscriptionInitialPayment, payments.TemplateSubscription,
		payments.TemplateSubscriptionIdleState, payments.TemplateSubscriptionPayment, payments.TemplateTerminatedSubscription,
	}
	ts = append(ts, ledger.RewardTemplates()...)
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
	ledger.Contract
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
	ledger.TemplateTransferInstruction:           {"transfer", "receiver"},
	allocationdata.TemplateAmuletAllocation:      {"allocation", "settlement", "executor"},
	provider.TemplateTransferPreapprovalProposal: {"provider"},
	ledger.TemplateDelegateProxy:                 {"delegate"},
}

// signatoriesOf are, for templates whose signatories a payload field
// lists, those signatories; their other stakeholders observe.
var signatoriesOf = map[string]func(payload []byte) []coin.PartyID{
	ping.TemplatePing:        pingInitiator,
	ping.TemplatePingBuiltin: pingInitiator,
	allocationdata.TemplateOTCTradeProposal: func(b []byte) []coin.PartyID {
		var p allocationdata.OTCTradeProposal
		_ = jsonv1.Unmarshal(b, &p)
		return p.Approvers
	},
}

// pingInitiator is a ping's signatory.
func pingInitiator(b []byte) []coin.PartyID {
	var p ping.Ping
	_ = jsonv1.Unmarshal(b, &p)
	return []coin.PartyID{p.Initiator}
}

// LedgerContractOf is a stored contract of l as the Ledger API shows it
// (with signatories, observers and offsets).
func LedgerContractOf(l *ledger.Ledger, c *store.Contract) LedgerContract {
	lc := LedgerContract{Contract: l.ContractView(c), CreatedOffset: c.CreatedOffset}
	if c.ArchivedOffset != nil {
		lc.ArchivedOffset = *c.ArchivedOffset
	}
	var observer coin.PartyID
	if path, ok := observerFields[c.TemplateID]; ok {
		var v any
		if jsonv1.Unmarshal([]byte(c.Payload), &v) == nil {
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

// holdingLedgerContract is an unlocked holding row as the Ledger API
// shows it (its archive at the offset that spent it).
func (s *Service) holdingLedgerContract(h store.HoldingRow) LedgerContract {
	lc := LedgerContractOf(s.l, s.l.HoldingContract(h.Holding))
	lc.ArchivedOffset = h.SpentOffset
	return lc
}

// ErrPruned is a read below the pruned offset.
var ErrPruned = errors.New("pruned")

// ErrAfterLedgerEnd is a read past the ledger end.
var ErrAfterLedgerEnd = errors.New("offset after ledger end")

// checkOffset refuses an offset below the pruned offset or past the
// ledger end (ErrPruned, ErrAfterLedgerEnd), which it returns.
func checkOffset(ctx context.Context, db bun.IDB, field string, offset int64) (int64, error) {
	if offset < 0 {
		return 0, fault.Invalid(field, "must not be negative, got %d", offset)
	}
	end, err := store.LedgerEnd(ctx, db)
	if err != nil {
		return 0, err
	}
	if offset > end {
		return 0, fmt.Errorf("%w: %s %d is after the ledger end %d", ErrAfterLedgerEnd, field, offset, end)
	}
	return end, checkPruned(ctx, db, field, offset)
}

// checkPruned refuses an offset before the pruning offset: what was
// before it is gone.
func checkPruned(ctx context.Context, db bun.IDB, field string, offset int64) error {
	t, err := store.LoadPrunedTotals(ctx, db)
	if err != nil {
		return err
	}
	if offset < t.LastOffset {
		return prunedBefore(field, offset, t.LastOffset)
	}
	return nil
}

// prunedBefore is the ErrPruned of a read from offset, before the pruning
// offset pruned.
func prunedBefore(field string, offset, pruned int64) error {
	return fmt.Errorf("%w: %s %d is before the pruning offset %d; read from %d on", ErrPruned, field, offset, pruned, pruned)
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
	// (addDescendants).
	Descendant bool
}

// LedgerUpdate is one update (transaction) of the log with the events f
// selected.
type LedgerUpdate struct {
	Offset     int64
	UpdateID   string
	Kind       string // what the update did (ConsumedBy)
	RecordTime time.Time
	Events     []LedgerEvent
	// Exercise is the root exercise of the Ledger API command that made
	// the update, nil when none is stored (the core's exercises.go).
	Exercise *commands.Exercise
}
