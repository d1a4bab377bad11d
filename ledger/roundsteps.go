package ledger

import "context"

// RoundStep is work the round clock runs after the rounds it opens
// (AdvanceRound, TickRounds, each piece of a time jump): a workflow's,
// such as ledger/expiry's dust expiry or ledger/rewards' collection,
// which adds what it did to rep.
type RoundStep func(ctx context.Context, rep *RoundReport) error

// AfterRounds sets the steps the round clock runs after the rounds it
// opens, in order, replacing those set before: ledger/workflows wires
// them once for each validator's ledger.
func (ro Rounds) AfterRounds(steps ...RoundStep) { ro.l.roundSteps.Store(&steps) }
