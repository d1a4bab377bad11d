package apiread

import (
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger/commands"
)

// The root exercise of a Ledger API command as the Ledger API builds it
// for the core to store with the completion (commands.Exercise) and reads
// it back.

// consumingExercises are the served choices that archive the contract
// they are exercised on; the others (the factories', the rules') do not.
var consumingExercises = map[string]bool{
	"TransferInstruction_Accept": true, "TransferInstruction_Reject": true, "TransferInstruction_Withdraw": true,
	"Allocation_ExecuteTransfer": true, "Allocation_Withdraw": true, "Allocation_Cancel": true,
	"TransferPreapproval_Cancel": true, "TransferPreapproval_Renew": true,
}

// ConsumingExercise reports whether choice archives its contract.
func ConsumingExercise(choice string) bool { return consumingExercises[choice] }

// ParseExercise reads a stored exercise, shaped from its facts
// (ShapeExercise); nil for "" or one that does not parse.
func ParseExercise(stored string) *commands.Exercise {
	if stored == "" {
		return nil
	}
	var e commands.Exercise
	if jsonv1.Unmarshal([]byte(stored), &e) != nil {
		return nil
	}
	ShapeExercise(&e)
	return &e
}
