package ledgerapi

import (
	"encoding/json"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/damlid"
)

// The root exercise of a command submitted here (commands.Exercise) is
// stored with its completion and shown in ledger-effects transactions as
// Canton shows it: an ExercisedEvent at node 0 whose descendants are the
// update's other events (lastDescendantNodeId the last of them), with
// the choice's argument as submitted, the acting parties and the
// exercise's result; a consuming one stands for the archive of its
// contract. The token standard's transaction parser reads transfers from
// it (TransferFactory_Transfer's transfer, with its memo in meta).

// exerciseOf is sb's root exercise; nil for a create.
func exerciseOf(sb *submission) *commands.Exercise {
	if sb.create != nil {
		return nil
	}
	e := &commands.Exercise{ContractID: sb.cid, TemplateID: sb.iface, Choice: sb.ex.Choice, ChoiceArgument: sb.ex.ChoiceArgument,
		ActingParties: slices.Clone(sb.actAs), Consuming: apiread.ConsumingExercise(sb.ex.Choice)}
	if impl := apiread.Implementers(sb.iface); len(impl) > 0 {
		e.InterfaceID, e.TemplateID = sb.iface, impl[0]
	}
	return e
}

// visibleExercise is the exercise of e that ef sees first and its
// witnesses ef reads for: e itself, or the exercise nested under it
// (e.Nested: a one-step transfer's TransferPreapproval_Send, which its
// receiver witnesses); e with none when ef sees neither.
func visibleExercise(u apiread.LedgerUpdate, e *commands.Exercise, ef *eventFormat) (*commands.Exercise, []coin.PartyID) {
	if w := rootWitnesses(u, e, ef); len(w) > 0 || e.Nested == nil {
		return e, w
	}
	return e.Nested, rootWitnesses(u, e.Nested, ef)
}

// rootWitnesses are the informees of e (apiread.Informees) that ef reads for.
func rootWitnesses(u apiread.LedgerUpdate, e *commands.Exercise, ef *eventFormat) []coin.PartyID {
	out := []coin.PartyID{}
	for _, p := range apiread.Informees(u, e) {
		if _, ok := ef.byParty[p]; ok {
			out = append(out, p)
		}
	}
	return out
}

// rootExercisedEvent is e, u's root exercise or the one nested in it
// that the reader sees first, as ExercisedEvent at node 0, its
// descendants up to last.
func rootExercisedEvent(u apiread.LedgerUpdate, e *commands.Exercise, witnesses []coin.PartyID, last int) exercisedEvent {
	arg, result := any(json.RawMessage(e.ChoiceArgument)), any(json.RawMessage(e.ExerciseResult))
	if len(e.ChoiceArgument) == 0 {
		arg = struct{}{}
	}
	if len(e.ExerciseResult) == 0 {
		result = struct{}{}
	}
	ev := exercisedEvent{
		Offset: u.Offset, NodeID: 0, ContractID: e.ContractID, TemplateID: damlid.ByPackageID(e.TemplateID), Choice: e.Choice,
		ChoiceArgument: arg, ActingParties: e.ActingParties, Consuming: e.Consuming, WitnessParties: witnesses,
		LastDescendantNodeID: last, ExerciseResult: result, PackageName: damlid.NameOf(e.TemplateID), ImplementedInterfaces: []string{},
	}
	if e.InterfaceID != "" {
		ev.InterfaceID = damlid.ByPackageID(e.InterfaceID)
	}
	return ev
}
