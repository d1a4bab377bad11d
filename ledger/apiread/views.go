package apiread

import (
	"encoding/json"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
)

// InterfaceView is the view of c through iface, as the coin's
// implementations of the token standard define it (Splice's Amulet,
// LockedAmulet and AmuletTransferInstruction).
func (s *Service) InterfaceView(c LedgerContract, iface string) (json.RawMessage, error) {
	return interfaceView(c, iface, s.l.DSO())
}

// interfaceView is InterfaceView on the network of dso.
func interfaceView(c LedgerContract, iface string, dso coin.PartyID) (json.RawMessage, error) {
	if !Implements(c.TemplateID, iface) {
		return nil, fmt.Errorf("template %s does not implement %s", c.TemplateID, iface)
	}
	switch c.TemplateID {
	case ledger.TemplateAmulet, ledger.TemplateLockedAmulet:
		var a ledger.AmuletPayload
		var lock *holdingLock
		if c.TemplateID == ledger.TemplateLockedAmulet {
			var p ledger.LockedAmuletPayload
			if err := jsonv1.Unmarshal(c.Payload, &p); err != nil {
				return nil, fmt.Errorf("locked amulet %s: %w", c.ContractID, err)
			}
			a = p.Amulet
			exp := p.Lock.ExpiresAt
			lock = &holdingLock{Holders: p.Lock.Holders, ExpiresAt: &exp, Context: p.Lock.OptContext}
		} else if err := jsonv1.Unmarshal(c.Payload, &a); err != nil {
			return nil, fmt.Errorf("amulet %s: %w", c.ContractID, err)
		}
		return json.Marshal(holdingView{
			Owner: a.Owner, InstrumentID: ledger.InstrumentRef{Admin: a.DSO, ID: ledger.InstrumentID}, Amount: a.Amount.InitialAmount, Lock: lock,
			Meta: ledger.Metadata{Values: map[string]string{
				"amulet.splice.lfdecentralizedtrust.org/created-in-round": a.Amount.CreatedAt.Number,
				"amulet.splice.lfdecentralizedtrust.org/rate-per-round":   a.Amount.RatePerRound.Rate.String(),
			}},
		})
	case ledger.TemplateTransferInstruction:
		var p ledger.TransferInstructionPayload
		if err := jsonv1.Unmarshal(c.Payload, &p); err != nil {
			return nil, fmt.Errorf("transfer instruction %s: %w", c.ContractID, err)
		}
		return json.Marshal(transferInstructionView{
			Transfer: p.Transfer, Status: variant{Tag: "TransferPendingReceiverAcceptance", Value: struct{}{}},
			Meta: ledger.Metadata{Values: map[string]string{}},
		})
	case allocationdata.TemplateAmuletAllocation:
		var p allocationdata.AllocationPayload
		if err := jsonv1.Unmarshal(c.Payload, &p); err != nil {
			return nil, fmt.Errorf("allocation %s: %w", c.ContractID, err)
		}
		return json.Marshal(allocationView{Allocation: p.Allocation, HoldingCids: []coin.ContractID{p.LockedAmulet}, Meta: ledger.Metadata{Values: map[string]string{}}})
	case allocationdata.TemplateOTCTrade:
		var tr allocationdata.OTCTrade
		if err := jsonv1.Unmarshal(c.Payload, &tr); err != nil {
			return nil, fmt.Errorf("OTC trade %s: %w", c.ContractID, err)
		}
		return json.Marshal(allocationRequestView{Settlement: tr.Settlement(), TransferLegs: tr.TransferLegs, Meta: ledger.Metadata{Values: map[string]string{}}})
	case ledger.TemplateExternalPartyRule:
		// TransferFactoryView and AllocationFactoryView: the admin and empty metadata.
		return json.Marshal(struct {
			Admin coin.PartyID    `json:"admin"`
			Meta  ledger.Metadata `json:"meta"`
		}{dso, ledger.Metadata{Values: map[string]string{}}})
	}
	return nil, fmt.Errorf("no view of %s through %s", c.TemplateID, iface)
}

// holdingView is the token standard's HoldingView.
type holdingView struct {
	Owner        coin.PartyID         `json:"owner"`
	InstrumentID ledger.InstrumentRef `json:"instrumentId"`
	Amount       coin.Amount          `json:"amount"`
	Lock         *holdingLock         `json:"lock"`
	Meta         ledger.Metadata      `json:"meta"`
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
	OriginalInstructionCid *coin.ContractID       `json:"originalInstructionCid"`
	Transfer               ledger.TransferPayload `json:"transfer"`
	Status                 variant                `json:"status"`
	Meta                   ledger.Metadata        `json:"meta"`
}

// variant is a Daml variant in the JSON API encoding.
type variant struct {
	Tag   string `json:"tag"`
	Value any    `json:"value"`
}

// allocationView is the token standard's AllocationView.
type allocationView struct {
	Allocation  allocationdata.AllocationSpecification `json:"allocation"`
	HoldingCids []coin.ContractID                      `json:"holdingCids"`
	Meta        ledger.Metadata                        `json:"meta"`
}

// allocationRequestView is the token standard's AllocationRequestView.
type allocationRequestView struct {
	Settlement   allocationdata.SettlementInfo         `json:"settlement"`
	TransferLegs map[string]allocationdata.TransferLeg `json:"transferLegs"`
	Meta         ledger.Metadata                       `json:"meta"`
}
