package apiread

import (
	"encoding/json"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger/commands"
)

// DerivedExercise is the root exercise of an update that no Ledger API
// command made (the wallet's own pages and jobs accept, reject and
// withdraw instructions too), derived from its kind as Canton would show
// it: the instruction's choice through its interface, by its receiver
// (its sender for a withdraw), consuming it, with its result; nil for
// other kinds or when u's events lack the instruction's archive, and
// the instruction it consumed (DeriveResult's). The token-standard CLI
// reads an instruction's holdings changes under that exercise, never at
// the root.
func DerivedExercise(u LedgerUpdate) (*commands.Exercise, *LedgerContract) {
	c, ok := consumingChoices[u.Kind]
	if !ok || c.iface != InterfaceTransferInstruction {
		return nil, nil
	}
	for _, ev := range u.Events {
		if !ev.Archived || ev.Contract.TemplateID != c.template {
			continue
		}
		var p struct {
			Transfer struct {
				Sender   coin.PartyID `json:"sender"`
				Receiver coin.PartyID `json:"receiver"`
			} `json:"transfer"`
		}
		if jsonv1.Unmarshal(ev.Contract.Payload, &p) != nil {
			return nil, nil
		}
		actor := p.Transfer.Receiver
		if c.choice == "TransferInstruction_Withdraw" {
			actor = p.Transfer.Sender
		}
		return &commands.Exercise{
			ContractID: ev.Contract.ContractID, TemplateID: c.template, InterfaceID: c.iface, Choice: c.choice,
			ChoiceArgument: json.RawMessage(`{"extraArgs":{"context":{"values":{}},"meta":{"values":{}}}}`),
			ActingParties:  []coin.PartyID{actor}, Consuming: true,
		}, &ev.Contract
	}
	return nil, nil
}

// DeriveResult sets the result of u's exercise derived from the consumed
// contract from (DerivedExercise) from u's events, once they are all
// known (descendants included).
func DeriveResult(u LedgerUpdate, from *LedgerContract) {
	if e := u.Exercise; e != nil && from != nil {
		e.ExerciseResult, _ = json.Marshal(ExerciseResult(u, *from))
	}
}
