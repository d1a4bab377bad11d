package expiry

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// dustPage bounds the holdings one dust transaction archives.
const dustPage = 500

// Dust archives every holding that is dust at the usable round (the
// core's rule, Tx.ExpireDust: its accrued holding fee exceeds its initial
// amount, a locked one only once its lock has expired too) and burns
// what is left of its initial amount, as the network's
// ExpiredAmuletTrigger does, a page of candidates a change. It returns
// how many holdings expired. Re-running is harmless: a holding spent or
// expired meanwhile fails the guarded delete and the page retries.
func (s *Service) Dust(ctx context.Context) (int, error) {
	l := s.l
	total := 0
	var after coin.ContractID
	for {
		var n int
		var last coin.ContractID
		done := false
		err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
			n, last, done = 0, "", false
			r, err := l.UsableRound(ctx, x.DB())
			if err != nil {
				return err
			}
			hs, err := store.DustCandidates(ctx, x.DB(), r.Number, after, dustPage)
			if err != nil {
				return err
			}
			if len(hs) < dustPage {
				done = true
			}
			if len(hs) > 0 {
				last = hs[len(hs)-1].ContractID
			}
			x.BeginAt("expire-dust", r)
			if n, err = x.ExpireDust(ctx, hs); err != nil {
				return err
			}
			if n == 0 {
				x.Drop()
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("expire dust: %w", err)
		}
		total += n
		if done {
			return total, nil
		}
		after = last
	}
}

// AfterRounds is Dust as the round clock's step (ledger.RoundStep), the
// first workflows.New gives it: the holdings the new rounds made dust
// expire, counted in rep.Expired.
func (s *Service) AfterRounds(ctx context.Context, rep *ledger.RoundReport) error {
	n, err := s.Dust(ctx)
	rep.Expired += n
	return err
}
