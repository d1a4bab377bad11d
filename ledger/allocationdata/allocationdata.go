// Package allocationdata owns the token standard's allocation and the
// example trading app's contracts as data: their templates and
// interfaces, their payloads in Daml-JSON (AllocationPayload,
// AllocationSpecification, OTCTradeProposal, OTCTrade), the moves of an
// allocation, and the read of one allocation contract. The Ledger API's
// reads (ledger/apiread's interface views), the registry's choice
// contexts (ledger/registry) and the workflow on them (ledger/allocations:
// allocate, execute, withdraw, expire, the trading app's choices, the
// wallet's view) share them. The core keeps the token standard's
// InstrumentRef and Metadata, which its transfer instructions use; a
// failed requirement is fault.ErrRequirement.
package allocationdata

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Templates and interfaces of the allocation workflow.
const (
	TemplateAmuletAllocation   = "#splice-amulet:Splice.AmuletAllocation:AmuletAllocation"
	InterfaceAllocation        = "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation"
	InterfaceAllocationFactory = "#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory"
)

// Templates and interface of the trading app.
const (
	TemplateOTCTradeProposal   = "#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTradeProposal"
	TemplateOTCTrade           = "#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTrade"
	InterfaceAllocationRequest = "#splice-api-token-allocation-request-v1:Splice.Api.Token.AllocationRequestV1:AllocationRequest"
)

// Reference is the token standard's settlement Reference.
type Reference struct {
	ID  string           `json:"id"`
	CID *coin.ContractID `json:"cid"`
}

// SettlementInfo is the token standard's SettlementInfo, in Daml-JSON.
type SettlementInfo struct {
	Executor       coin.PartyID    `json:"executor"`
	SettlementRef  Reference       `json:"settlementRef"`
	RequestedAt    string          `json:"requestedAt"`
	AllocateBefore string          `json:"allocateBefore"`
	SettleBefore   string          `json:"settleBefore"`
	Meta           ledger.Metadata `json:"meta"`
}

// TransferLeg is the token standard's TransferLeg, in Daml-JSON.
type TransferLeg struct {
	Sender       coin.PartyID         `json:"sender"`
	Receiver     coin.PartyID         `json:"receiver"`
	Amount       coin.Amount          `json:"amount"`
	InstrumentID ledger.InstrumentRef `json:"instrumentId"`
	Meta         ledger.Metadata      `json:"meta"`
}

// AllocationSpecification is the token standard's AllocationSpecification:
// one transfer leg of a settlement.
type AllocationSpecification struct {
	Settlement    SettlementInfo `json:"settlement"`
	TransferLegID string         `json:"transferLegId"`
	TransferLeg   TransferLeg    `json:"transferLeg"`
}

// AllocationPayload is Splice's AmuletAllocation.
type AllocationPayload struct {
	LockedAmulet coin.ContractID         `json:"lockedAmulet"`
	Allocation   AllocationSpecification `json:"allocation"`
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

// AllocationContract reads the allocation cid inside db, active or
// archived; a contract of another template is not found.
func AllocationContract(ctx context.Context, db bun.IDB, cid coin.ContractID) (*store.Contract, *AllocationPayload, error) {
	c, err := store.ContractByID(ctx, db, cid)
	if err == nil && c.TemplateID != TemplateAmuletAllocation {
		err = fault.ErrNotFound
	}
	if err != nil {
		return nil, nil, fmt.Errorf("allocation %s: %w", cid, err)
	}
	var p AllocationPayload
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return nil, nil, fmt.Errorf("allocation %s: %w", cid, err)
	}
	return c, &p, nil
}

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

// Settlement is the SettlementInfo of a trade, as OTCTrade builds it.
func (tr *OTCTrade) Settlement() SettlementInfo {
	ref := tr.TradeCid
	return SettlementInfo{
		Executor: tr.Venue, SettlementRef: Reference{ID: tradeRefID, CID: &ref}, RequestedAt: tr.CreatedAt,
		AllocateBefore: tr.PrepareUntil, SettleBefore: tr.SettleBefore, Meta: ledger.Metadata{Values: map[string]string{}},
	}
}

// AllocationSpec is the allocation the trade asks for its leg id.
func (tr *OTCTrade) AllocationSpec(id string) AllocationSpecification {
	return AllocationSpecification{Settlement: tr.Settlement(), TransferLegID: id, TransferLeg: tr.TransferLegs[id]}
}

// AllocatedBy reports whether spec is exactly the allocation the trade
// asks for its leg id.
func (tr *OTCTrade) AllocatedBy(id string, spec AllocationSpecification) bool {
	want, _ := json.Marshal(tr.AllocationSpec(id))
	got, _ := json.Marshal(spec)
	return string(want) == string(got)
}
