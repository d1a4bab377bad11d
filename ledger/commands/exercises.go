package commands

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
	// ExerciseResult is set when the change is written
	// (ledger.Config.ShapeExercise), from what the change created.
	ExerciseResult json.RawMessage `json:"exerciseResult"`
	// Observers and Nested are set then too (apiread's receiverView): the
	// parties besides the actors who witness this exercise, and the
	// exercise nested under it that parties who do not witness it see.
	Observers []coin.PartyID `json:"observers,omitempty"`
	Nested    *Exercise      `json:"nested,omitempty"`
}
