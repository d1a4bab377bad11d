// Package rewards owns reward collection (Collect: minting the coupons
// of closed rounds, run after every round and by its job) and the reading
// of a party's reward coupons: its uncollected coupons as contracts (the
// wallet API's reward lists) and its rewards page by round and kind,
// pending or collected. The core keeps what money depends on: issuing
// coupons (ledger.Tx.AddRewardCoupon, the validator's reward at a round's
// close), minting (ledger.Tx.Mint, counted as issued by the conservation
// check), the issuance caps (Rules.CouponIssuance), a time jump's
// collection in bulk and the rewards a history page shows among its
// entries.
package rewards

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Service is the reward collection and reads of one ledger.
type Service struct {
	l *ledger.Ledger
}

// New builds l's reward collection and reads; ledger/workflows runs its
// AfterRounds after every round.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// Coupons lists a party's uncollected coupons of a kind (ledger.RewardApp,
// ...; all kinds when empty) as contracts.
func (s *Service) Coupons(ctx context.Context, party coin.PartyID, kind string) ([]ledger.Contract, error) {
	cs, err := store.RewardCouponsOf(ctx, s.l.DB(), party, kind)
	if err != nil {
		return nil, err
	}
	out := make([]ledger.Contract, 0, len(cs))
	for _, c := range cs {
		out = append(out, s.l.ContractView(couponContract(s.l, c)))
	}
	return out, nil
}

// couponContract is the contract of a reward coupon, built from its row:
// archived once collected. Its payload is Splice's coupon of the kind, as
// a map, so its members are written in sorted order.
func couponContract(l *ledger.Ledger, c store.RewardCoupon) *store.Contract {
	payload := map[string]any{"dso": l.DSO(), "round": ledger.RoundRefOf(c.Round)}
	switch c.Kind {
	case ledger.RewardApp:
		payload["provider"], payload["featured"], payload["amount"], payload["beneficiary"] = c.Beneficiary, c.Featured, c.Amount, nil
	case ledger.RewardValidator:
		payload["user"], payload["amount"] = c.Beneficiary, c.Amount
	case ledger.RewardLiveness:
		payload["validator"] = c.Beneficiary
	}
	sc := ledger.StoredContract(l, c.ContractID, ledger.RewardTemplate(c.Kind), payload, c.CreatedAt, l.DSO(), c.Beneficiary)
	sc.CreatedOffset, sc.ArchivedOffset = c.CreatedOffset, c.CollectedOffset
	return &sc
}

// Row is a party's reward coupons of one round and kind that share
// their state: pending, or collected by one update.
type Row struct {
	Round   coin.Round
	Kind    string
	Coupons int
	// Amount is what the coupons mint, or minted, at the issuance caps
	// (Rules.CouponIssuance): their weight, capped per coupon.
	Amount    coin.Amount
	Collected bool
	// CollectedBy is the collecting update's ID, CollectedAt its time;
	// empty when pending or when pruning removed the update.
	CollectedBy string
	CollectedAt time.Time
}

// Page is a page of a party's rewards, newest round first.
type Page struct {
	Rows []Row
	// Older is the before cursor of the next (older) page, 0 when there
	// is none.
	Older coin.Round
	// Partial: the page's oldest round has more groups of coupons than a
	// page reads (MaxGroups), so some are left out.
	Partial bool
}

// MaxRounds bounds the rounds of a rewards page; MaxGroups
// the groups of coupons (same round, kind, weight and state) it reads.
const (
	MaxRounds = 50
	MaxGroups = 2000
)

// Page returns party's rewards of up to rounds rounds before round
// before (the newest when 0), newest first, each round's rows pending
// first, then by kind.
func (s *Service) Page(ctx context.Context, party coin.PartyID, before coin.Round, rounds int) (Page, error) {
	l := s.l
	if rounds <= 0 {
		return Page{}, fault.Invalid("rounds", "must be positive")
	}
	rounds = min(rounds, MaxRounds)
	rs, err := store.RewardRounds(ctx, l.DB(), party, before, rounds+1)
	if err != nil || len(rs) == 0 {
		return Page{}, err
	}
	var page Page
	if len(rs) > rounds {
		rs = rs[:rounds]
		page.Older = rs[rounds-1]
	}
	gs, err := store.RewardGroupsOf(ctx, l.DB(), party, rs[len(rs)-1], rs[0], MaxGroups+1)
	if err != nil {
		return Page{}, err
	}
	if len(gs) > MaxGroups {
		gs, page.Partial = gs[:MaxGroups], true
	}
	var offsets []int64
	for _, g := range gs {
		if g.CollectedOffset != nil {
			offsets = append(offsets, *g.CollectedOffset)
		}
	}
	updates, err := store.UpdateRefs(ctx, l.DB(), offsets)
	if err != nil {
		return Page{}, err
	}
	// Groups of one round, kind and state differ by weight only: one row.
	type key struct {
		round     coin.Round
		kind      string
		collected int64 // -1: pending
	}
	at := map[key]int{}
	for _, g := range gs {
		k := key{g.Round, g.Kind, -1}
		if g.CollectedOffset != nil {
			k.collected = *g.CollectedOffset
		}
		i, ok := at[k]
		if !ok {
			i = len(page.Rows)
			at[k] = i
			row := Row{Round: g.Round, Kind: g.Kind, Collected: g.CollectedOffset != nil}
			if u, ok := updates[k.collected]; ok && row.Collected {
				row.CollectedBy, row.CollectedAt = u.UpdateID, u.RecordTime
			}
			page.Rows = append(page.Rows, row)
		}
		r := &page.Rows[i]
		r.Coupons += g.Coupons
		r.Amount = r.Amount.Add(l.Rules().CouponIssuance(g.Kind, g.Amount).MulInt(int64(g.Coupons)))
	}
	// The engines sort pending (NULL) groups differently: sort here.
	slices.SortStableFunc(page.Rows, func(a, b Row) int {
		if c := cmp.Compare(b.Round, a.Round); c != 0 {
			return c
		}
		if a.Collected != b.Collected {
			if a.Collected {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Kind, b.Kind)
	})
	return page, nil
}
