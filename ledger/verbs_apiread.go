package ledger

import "github.com/ccwallet/ccwallet/store"

// What ledger/apiread, the JSON Ledger API's read model, needs of the
// core: the contract an unlocked holding's row stands for, the reward
// coupons' templates, and the payloads of the contracts whose
// token-standard views it shows.

// RewardTemplates are the templates of the reward coupons' contracts.
func RewardTemplates() []string {
	out := make([]string, 0, len(rewardTemplates))
	for _, t := range rewardTemplates {
		out = append(out, t)
	}
	return out
}

// Written is what one change wrote, from which ledger/apiread's
// ExerciseFacts records what a Ledger API command's exercise is shaped
// from: the open round it ran in, the contracts it created, the holdings
// and the history rows it wrote. Its slices are the change's own: read
// them, never keep them.
type Written struct {
	Round    *store.Round
	Created  []store.Contract
	Holdings []store.Holding
	History  []store.HistoryEntry
}
