package rewards

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/store"
)

// CollectPage bounds the coupons one collection change mints.
const CollectPage = 2000

// Collect mints every uncollected reward coupon of a closed round (one
// older than the oldest open round, so its issuance is final) into a
// holding of its beneficiary, for all local parties but another
// validator's (HostedElsewhere) and for the external parties with an
// active minting delegation to this validator (an external party's own
// coupons otherwise wait for the party itself). Each beneficiary gets one
// holding per page and a history row; each coupon is archived and marked
// collected in the same change, guarded, so a second run (another
// replica) mints nothing twice. It returns the number of coupons
// collected.
func (s *Service) Collect(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := s.collectPage(ctx)
		if err != nil {
			return total, fmt.Errorf("collect rewards: %w", err)
		}
		total += n
		if n < CollectPage {
			return total, nil
		}
	}
}

// AfterRounds is Collect as the round clock's step (ledger.RoundStep):
// it adds the coupons collected to rep.
func (s *Service) AfterRounds(ctx context.Context, rep *ledger.RoundReport) error {
	n, err := s.Collect(ctx)
	rep.Collected += n
	return err
}

// collectPage mints one page (CollectPage) of due coupons in one
// change and returns how many it collected.
func (s *Service) collectPage(ctx context.Context) (int, error) {
	l := s.l
	n := 0
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		db := x.DB()
		n = 0
		open, err := store.OpenRounds(ctx, db)
		if err != nil {
			return err
		}
		if len(open) == 0 {
			return nil
		}
		held, err := delegations.UndelegatedExternalParties(ctx, l, db)
		if err != nil {
			return err
		}
		cs, err := store.DueRewardCouponsOutside(ctx, db, open[0].Number, CollectPage, held, l.Validators().OtherNamespaces())
		if err != nil || len(cs) == 0 {
			return err
		}
		// At the latest open round (usable), as every update.
		if err := x.Begin(ctx, "collect-rewards"); err != nil {
			return err
		}
		type sum struct {
			amount  coin.Amount
			coupons int
		}
		sums := map[coin.PartyID]*sum{}
		var order []coin.PartyID
		ids := make([]coin.ContractID, 0, len(cs))
		rules := x.Rules()
		for _, c := range cs {
			ids = append(ids, c.ContractID)
			b := sums[c.Beneficiary]
			if b == nil {
				b = &sum{}
				sums[c.Beneficiary] = b
				order = append(order, c.Beneficiary)
			}
			b.amount = b.amount.Add(rules.CouponIssuance(c.Kind, c.Amount))
			b.coupons++
		}
		if err := store.MarkCouponsCollected(ctx, db, ids, x.Now(), x.Offset()); err != nil {
			return err
		}
		for _, p := range order {
			b := sums[p]
			if !b.amount.IsPositive() {
				continue
			}
			cid := x.Mint(p, b.amount)
			x.Record(p, ledger.HistoryBalanceChange, "CollectRewards", l.DSO(), b.amount, coin.Zero,
				fmt.Sprintf("minted %d reward coupons", b.coupons),
				ledger.HistoryDetails{ContractID: cid})
		}
		n = len(cs)
		return nil
	})
	return n, err
}
