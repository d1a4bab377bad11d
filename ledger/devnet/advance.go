package devnet

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// Time control of a development network: the core opens the rounds in
// bulk (ledger.AdvanceRounds); here a jump is asked for (so many rounds,
// or until a time) and the workflows' automations given to New run once
// after it, as they would have in the time jumped over.

// AdvanceRequest is a development network time jump: Rounds rounds, or as
// many rounds as the round clock would open, one per tick of the rules'
// TickDuration, from the latest round's opening until Until (an RFC 3339
// time) has passed. Exactly one is given.
type AdvanceRequest struct {
	Rounds int
	Until  string
}

// Advance runs the jump req asks for (AdvanceRounds).
func (s *Service) Advance(ctx context.Context, req AdvanceRequest) (ledger.RoundReport, error) {
	l := s.l
	if !l.DevNet() {
		return ledger.RoundReport{}, fmt.Errorf("%w: advancing rounds is only available on a development network", ledger.ErrDisabled)
	}
	if (req.Rounds != 0) == (req.Until != "") {
		return ledger.RoundReport{}, ledger.Invalid("rounds", "give either rounds (1 to %d) or until (an RFC 3339 time), not both or neither", ledger.MaxAdvanceRounds)
	}
	if req.Until == "" {
		return s.AdvanceRounds(ctx, req.Rounds)
	}
	until, err := time.Parse(time.RFC3339, req.Until)
	if err != nil {
		return ledger.RoundReport{}, ledger.Invalid("until", "must be an RFC 3339 time such as 2030-01-31T12:00:00Z, not %q", ledger.Clip(req.Until, 40))
	}
	latest, err := store.LatestRound(ctx, l.DB())
	if err != nil {
		return ledger.RoundReport{}, err
	}
	ahead := until.Sub(latest.OpensAt)
	if ahead <= 0 {
		return ledger.RoundReport{}, ledger.Invalid("until", "must be after the latest round's opening (%s)", ledger.FormatTime(latest.OpensAt))
	}
	// Rounded up: the round open afterwards would have opened at or after until.
	// Integer ceiling, exact (no float in the ledger), and without the
	// overflow ahead+tick-1 could have for a time far ahead.
	tick := l.Rules().TickDuration
	ticks := ahead / tick
	if ahead%tick != 0 {
		ticks++
	}
	if ticks > ledger.MaxAdvanceRounds {
		return ledger.RoundReport{}, ledger.Invalid("until", "is %d rounds ahead; at most %d rounds at once", int64(ticks), ledger.MaxAdvanceRounds)
	}
	return s.AdvanceRounds(ctx, int(ticks))
}

// AdvanceRounds opens n rounds at once (ledger.AdvanceRounds: the round
// clock's n ticks, exactly), then runs the automations given to New once,
// in order: due subscription payments are paid and collected, as they
// would have been in the time jumped over.
func (s *Service) AdvanceRounds(ctx context.Context, n int) (ledger.RoundReport, error) {
	rep, err := s.l.Rounds().AdvanceRounds(ctx, n)
	if err != nil {
		return rep, err
	}
	for _, step := range s.afterAdvance {
		if err := step(ctx); err != nil {
			return rep, err
		}
	}
	return rep, nil
}
