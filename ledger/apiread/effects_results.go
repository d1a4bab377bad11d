package apiread

import (
	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger"
)

// ExerciseResult is the Daml result of the consuming choice that archived
// c in update u (ConsumedBy), in the JSON API's encoding, built from the
// holdings u created: for the token standard's choices their result
// records (TransferInstructionResult with its output variant,
// Allocation_*Result), Unit ({}) for Archive and the choices whose result
// is not derived. Only u's events are known (those the reader's filter
// selected), so holdings the reader does not see are left out of the
// lists.
func ExerciseResult(u LedgerUpdate, c LedgerContract) any {
	choice, _ := ConsumedBy(u.Kind, c.TemplateID)
	meta := map[string]any{"values": map[string]string{}}
	switch choice {
	case "TransferInstruction_Accept", "TransferInstruction_Reject", "TransferInstruction_Withdraw":
		var p struct {
			Transfer struct {
				Sender   coin.PartyID `json:"sender"`
				Receiver coin.PartyID `json:"receiver"`
			} `json:"transfer"`
		}
		_ = jsonv1.Unmarshal(c.Payload, &p)
		out := map[string]any{"tag": "TransferInstructionResult_Failed", "value": map[string]any{}}
		if choice == "TransferInstruction_Accept" {
			out = map[string]any{"tag": "TransferInstructionResult_Completed",
				"value": map[string]any{"receiverHoldingCids": createdHoldingsOf(u, p.Transfer.Receiver)}}
		}
		return map[string]any{"output": out, "senderChangeCids": createdHoldingsOf(u, p.Transfer.Sender), "meta": meta}
	case "Allocation_ExecuteTransfer", "Allocation_Withdraw", "Allocation_Cancel":
		var p struct {
			Allocation struct {
				TransferLeg struct {
					Sender   coin.PartyID `json:"sender"`
					Receiver coin.PartyID `json:"receiver"`
				} `json:"transferLeg"`
			} `json:"allocation"`
		}
		_ = jsonv1.Unmarshal(c.Payload, &p)
		r := map[string]any{"senderHoldingCids": createdHoldingsOf(u, p.Allocation.TransferLeg.Sender), "meta": meta}
		if choice == "Allocation_ExecuteTransfer" {
			r["receiverHoldingCids"] = createdHoldingsOf(u, p.Allocation.TransferLeg.Receiver)
		}
		return r
	}
	return map[string]any{}
}

// createdHoldingsOf lists the unlocked holdings of owner u created.
func createdHoldingsOf(u LedgerUpdate, owner coin.PartyID) []coin.ContractID {
	out := []coin.ContractID{}
	for _, e := range u.Events {
		if e.Archived || e.Contract.TemplateID != ledger.TemplateAmulet {
			continue
		}
		var h struct {
			Owner coin.PartyID `json:"owner"`
		}
		if jsonv1.Unmarshal(e.Contract.Payload, &h) == nil && h.Owner == owner && owner != "" {
			out = append(out, e.Contract.ContractID)
		}
	}
	return out
}
