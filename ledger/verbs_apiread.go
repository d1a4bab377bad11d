package ledger

import "github.com/ccwallet/ccwallet/store"

// What ledger/apiread, the JSON Ledger API's read model, needs of the
// core: the contract an unlocked holding's row stands for, the reward
// coupons' templates, and the payloads of the contracts whose
// token-standard views it shows.

// HoldingContract is the Amulet contract of an unlocked holding, built
// from its row as the core wrote it.
func (l *Ledger) HoldingContract(h store.Holding) *store.Contract { return l.holdingContract(h) }

// RewardTemplates are the templates of the reward coupons' contracts.
func RewardTemplates() []string {
	out := make([]string, 0, len(rewardTemplates))
	for _, t := range rewardTemplates {
		out = append(out, t)
	}
	return out
}

// AmuletPayload is Splice's Amulet, an unlocked holding's payload.
type AmuletPayload = amuletPayload

// LockedAmuletPayload is Splice's LockedAmulet.
type LockedAmuletPayload = lockedAmuletPayload

// TransferInstructionPayload is Splice's AmuletTransferInstruction.
type TransferInstructionPayload = transferInstructionPayload

// TransferPayload is the token standard's Transfer.
type TransferPayload = transferPayload

// Written is what one change wrote, as ledger/apiread's ShapeExercise
// reads it to shape a Ledger API command's exercise: the open round it
// ran in, the contracts it created, the holdings and the history rows it
// wrote. Its slices are the change's own: read them, never keep them.
type Written struct {
	Round    *store.Round
	Created  []store.Contract
	Holdings []store.Holding
	History  []store.HistoryEntry
}
