package ledger

import (
	"encoding/json"

	"github.com/ccwallet/ccwallet/coin"
)

// Exercise is what a Ledger API command exercised, its root exercise: the
// contract, its template (and the interface the choice belongs to, if
// any), the choice and its argument as submitted, the acting parties and
// the exercise's Daml result. It rides the command's completion
// (Completion.Exercise) and is stored with it, at the update's offset in
// the same transaction as the change, so the Ledger API's ledger-effects
// transactions show the choice (TransferFactory_Transfer with its
// transfer and memo, TransferInstruction_Accept, ...) as Canton does.
type Exercise struct {
	ContractID     coin.ContractID `json:"contractId"`
	TemplateID     string          `json:"templateId"`
	InterfaceID    string          `json:"interfaceId,omitempty"`
	Choice         string          `json:"choice"`
	ChoiceArgument json.RawMessage `json:"choiceArgument"`
	ActingParties  []coin.PartyID  `json:"actingParties"`
	Consuming      bool            `json:"consuming"`
	// ExerciseResult is set by the ledger when the change is written
	// (exerciseResultOf), from what the change created.
	ExerciseResult json.RawMessage `json:"exerciseResult"`
	// Observers and Nested are set by the ledger too (receiverView): the
	// parties besides the actors who witness this exercise, and the
	// exercise nested under it that parties who do not witness it see.
	Observers []coin.PartyID `json:"observers,omitempty"`
	Nested    *Exercise      `json:"nested,omitempty"`
}

// consumingExercises are the served choices that archive the contract
// they are exercised on; the others (the factories', the rules') do not.
var consumingExercises = map[string]bool{
	"TransferInstruction_Accept": true, "TransferInstruction_Reject": true, "TransferInstruction_Withdraw": true,
	"Allocation_ExecuteTransfer": true, "Allocation_Withdraw": true, "Allocation_Cancel": true,
	"TransferPreapproval_Cancel": true, "TransferPreapproval_Renew": true,
}

// ConsumingExercise reports whether choice archives its contract.
func ConsumingExercise(choice string) bool { return consumingExercises[choice] }

// exerciseJSON is c's exercise, with its result from what t created, as
// stored with the completion; "" for none.
func (t *changes) exerciseJSON(c *Completion) string {
	if c == nil || c.Exercise == nil {
		return ""
	}
	e := *c.Exercise
	if len(e.ChoiceArgument) == 0 {
		e.ChoiceArgument = json.RawMessage("{}")
	}
	if e.ActingParties == nil {
		e.ActingParties = []coin.PartyID{}
	}
	b, err := json.Marshal(t.exerciseResultOf(&e))
	if err != nil {
		b = []byte("{}")
	}
	e.ExerciseResult = b
	t.receiverView(&e)
	out, err := json.Marshal(e)
	if err != nil {
		return ""
	}
	return string(out)
}

// exerciseResultOf is e's Daml result in the JSON API's encoding, for the
// token standard's choices built from the holdings and instructions t
// created (TransferInstructionResult with its output variant); Unit ({})
// for the choices whose result is not derived.
func (t *changes) exerciseResultOf(e *Exercise) any {
	failed := map[string]any{"tag": "TransferInstructionResult_Failed", "value": map[string]any{}}
	var arg struct {
		Transfer struct {
			Sender   coin.PartyID `json:"sender"`
			Receiver coin.PartyID `json:"receiver"`
		} `json:"transfer"`
	}
	switch e.Choice {
	case "TransferFactory_Transfer":
		_ = json.Unmarshal(e.ChoiceArgument, &arg)
		sender, receiver := arg.Transfer.Sender, arg.Transfer.Receiver
		out := map[string]any{"tag": "TransferInstructionResult_Completed",
			"value": map[string]any{"receiverHoldingCids": t.createdHoldings(receiver)}}
		for _, c := range t.created {
			if c.TemplateID == TemplateTransferInstruction {
				out = map[string]any{"tag": "TransferInstructionResult_Pending",
					"value": map[string]any{"transferInstructionCid": c.ContractID}}
			}
		}
		change := []coin.ContractID{}
		if sender != receiver {
			change = t.createdHoldings(sender)
		}
		return map[string]any{"output": out, "senderChangeCids": change, "meta": t.burnedMeta(sender)}
	case "TransferInstruction_Accept", "TransferInstruction_Reject", "TransferInstruction_Withdraw":
		// The receiver accepts or rejects, the sender withdraws.
		var actor coin.PartyID
		if len(e.ActingParties) > 0 {
			actor = e.ActingParties[0]
		}
		switch e.Choice {
		case "TransferInstruction_Accept":
			return map[string]any{"output": map[string]any{"tag": "TransferInstructionResult_Completed",
				"value": map[string]any{"receiverHoldingCids": t.createdHoldings(actor)}},
				"senderChangeCids": t.holdingsNotOf(actor), "meta": t.burnedMeta(t.historyPartyBesides(actor))}
		case "TransferInstruction_Reject":
			return map[string]any{"output": failed, "senderChangeCids": t.holdingsNotOf(actor), "meta": t.burnedMeta(t.historyPartyBesides(actor))}
		default:
			return map[string]any{"output": failed, "senderChangeCids": t.createdHoldings(actor), "meta": t.burnedMeta(actor)}
		}
	}
	if r, ok := t.coinExerciseResult(e); ok {
		return r
	}
	return map[string]any{}
}

// createdHoldings lists the unlocked holdings of owner t created.
func (t *changes) createdHoldings(owner coin.PartyID) []coin.ContractID {
	out := []coin.ContractID{}
	for _, h := range t.holdings {
		if h.Owner == owner && h.LockHolder == "" {
			out = append(out, h.ContractID)
		}
	}
	return out
}

// holdingsNotOf lists the unlocked holdings t created for others than
// party.
func (t *changes) holdingsNotOf(party coin.PartyID) []coin.ContractID {
	out := []coin.ContractID{}
	for _, h := range t.holdings {
		if h.Owner != party && h.LockHolder == "" {
			out = append(out, h.ContractID)
		}
	}
	return out
}

// ParseExercise reads a stored exercise; nil for "" or one that does not
// parse.
func ParseExercise(stored string) *Exercise {
	if stored == "" {
		return nil
	}
	var e Exercise
	if json.Unmarshal([]byte(stored), &e) != nil {
		return nil
	}
	return &e
}
