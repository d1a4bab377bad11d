// Package holdingsview owns the web wallet's reads of a party's
// holdings: the home page's overview (Overview: the balance, how many
// holdings turn dust soon, the fee per round and the few worth listing)
// and the holdings page's list (BalanceAndHoldings), both from one read
// of the party's holding rows valued once at the usable round, in coin
// units while they fit (valuation); the send form's Max (MaxSend); and
// the wallet API's list of holdings with their contracts (List). What a
// holding is worth, its fee and when it is dust are the core's rules
// (ledger.HoldingFee, ledger.IsDust, ledger.HoldingViewWithFee); this
// package only reads and sorts. The overview and the holdings page keep
// each party's valued holdings in memory until its holding version moves
// (cache.go, store/holdingversions.go).
package holdingsview

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// Service is the holdings reads of one ledger.
type Service struct {
	l *ledger.Ledger
	// cache keeps parties' valued holdings by their holding version
	// (cache.go).
	cache *valuations
}

// New builds l's holdings reads.
func New(l *ledger.Ledger) *Service {
	return &Service{l: l, cache: newValuations(defaultMaxEntries, defaultMaxBytes)}
}

// Overview is what a wallet's home page shows of a party's
// holdings: the balance, their health, and the few worth listing.
type Overview struct {
	Balance ledger.Balance
	// AtRisk counts the holdings that are dust by the overview's risk
	// round; FeePerRound sums the fee rates of those still worth
	// something.
	AtRisk      int
	FeePerRound coin.Amount
	// Top is at most n holdings at risk and n others, each the largest
	// by value, largest first (ties by contract ID); each Contract
	// carries only its ID, and LockExpiresAt is zero, as
	// BalanceAndHoldings.
	Top []ledger.HoldingView
}

// Overview values party's holdings at the latest open round,
// counting those dust within riskWithin rounds. It values each holding
// once, and builds the (wide) view only of the ones it lists: a party
// with a thousand holdings had the home page build a thousand on every
// visit.
func (s *Service) Overview(ctx context.Context, party coin.PartyID, riskWithin coin.Round, n int) (Overview, error) {
	v, err := s.valued(ctx, party)
	if err != nil {
		return Overview{}, err
	}
	o := Overview{Balance: v.balance, FeePerRound: v.feePerRound}
	riskAt := v.round + riskWithin
	var atRisk, others int
	for _, i := range v.order {
		risk := v.dust(i, riskAt)
		if risk {
			o.AtRisk++
		}
		if risk && atRisk < n {
			atRisk++
		} else if !risk && others < n {
			others++
		} else {
			continue
		}
		o.Top = append(o.Top, v.view(i))
	}
	return o, nil
}

// List lists party's holdings valued at the usable round, largest first,
// each with its contract (an unlocked holding's built from its row, a
// locked one's LockedAmulet read): the wallet API's list of amulets.
func (s *Service) List(ctx context.Context, party coin.PartyID) ([]ledger.HoldingView, coin.Round, error) {
	l := s.l
	r, err := l.UsableRound(ctx, l.DB())
	if err != nil {
		return nil, 0, err
	}
	hs, err := store.HoldingsByOwner(ctx, l.DB(), party)
	if err != nil {
		return nil, 0, err
	}
	var locked []coin.ContractID
	for _, h := range hs {
		if h.LockHolder != "" {
			locked = append(locked, h.ContractID)
		}
	}
	contracts, err := store.ContractsByIDs(ctx, l.DB(), locked)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ledger.HoldingView, 0, len(hs))
	for _, h := range hs {
		v := ledger.HoldingViewWithFee(h, ledger.HoldingFee(h.Amount, h.Rate, h.CreatedRound, r.Number))
		if h.LockHolder == "" {
			v.Contract = l.ContractView(l.HoldingContract(h))
		} else if c, ok := contracts[h.ContractID]; ok {
			v.Contract = l.ContractView(c)
		}
		out = append(out, v)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Effective.Cmp(out[j].Effective) > 0 })
	return out, r.Number, nil
}

// BalanceAndHoldings is the core's Balance and List from one read of
// the party's holdings, without loading their contracts (each Contract
// carries only its ID) or lock details (LockExpiresAt is zero): the
// wallet's holdings page needs neither, and loading a thousand payloads
// cost more than the rest of the page.
func (s *Service) BalanceAndHoldings(ctx context.Context, party coin.PartyID) (ledger.Balance, []ledger.HoldingView, error) {
	v, err := s.valued(ctx, party)
	if err != nil {
		return ledger.Balance{}, nil, err
	}
	// Largest first, as List; each (wide) view is built once, in place.
	out := make([]ledger.HoldingView, len(v.hs))
	for k, i := range v.order {
		out[k] = v.view(i)
	}
	return v.balance, out, nil
}

// MaxSend is the most sender can transfer to another party in one
// transfer now (the send form's Max): what its largest MaxNumInputs
// unlocked holdings are worth at the open round, less that transfer's fee
// (ledger.Rules.OutputFee, ledger.Rules.MaxOutput). Zero when the fees would take it all.
func (s *Service) MaxSend(ctx context.Context, sender coin.PartyID) (coin.Amount, error) {
	l := s.l
	r, err := l.UsableRound(ctx, l.DB())
	if err != nil {
		return coin.Zero, err
	}
	hs, err := store.HoldingsByOwner(ctx, l.DB(), sender)
	if err != nil {
		return coin.Zero, err
	}
	var worth []coin.Amount
	for _, h := range hs {
		if e := ledger.EffectiveAmount(h.Amount, h.Rate, h.CreatedRound, r.Number); h.LockHolder == "" && e.IsPositive() {
			worth = append(worth, e)
		}
	}
	sort.Slice(worth, func(i, j int) bool { return worth[i].Cmp(worth[j]) > 0 })
	funds := coin.Zero
	rules := l.Rules()
	for i, e := range worth {
		if i == rules.MaxNumInputs {
			break
		}
		funds = funds.Add(e)
	}
	return rules.MaxOutput(funds, r.Price), nil
}

// valuation is a party's holdings valued at one round: each one's fee and
// effective amount, their sums, and their order, largest first (ties keep
// the store's contract ID order, as a stable sort would).
//
// It computes in coin units (int64, coin.Amount.Units) when every amount,
// rate and sum fits, which is every party below 100,000,000 coins, and in
// decimals otherwise: valuing a thousand holdings in decimals was a third
// of the home page's CPU (BenchmarkHomePage). The two give the same
// results (TestValuationUnitsMatchDecimals).
type valuation struct {
	hs    []store.Holding
	round coin.Round
	order []int
	units bool
	// fee and effective amounts: in units when units, else decimals.
	feeU, effU  []int64
	rateU       []int64
	fee, eff    []coin.Amount
	balance     ledger.Balance
	feePerRound coin.Amount
}

func valueHoldings(hs []store.Holding, r store.Round) *valuation { return valueHoldingsIn(hs, r, true) }

// valueHoldingsIn is valueHoldings, in decimals only when !units (for the
// test that holds the two to the same results).
func valueHoldingsIn(hs []store.Holding, r store.Round, units bool) *valuation {
	v := &valuation{hs: hs, round: r.Number, order: make([]int, len(hs))}
	for i := range v.order {
		v.order[i] = i
	}
	v.units = units && v.valueUnits(r)
	if !v.units {
		v.valueDecimals(r)
	}
	slices.SortFunc(v.order, func(i, j int) int {
		var c int
		if v.units {
			c = cmp.Compare(v.effU[j], v.effU[i])
		} else {
			c = v.eff[j].Cmp(v.eff[i])
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	return v
}

// valueUnits values the holdings in units; false (and nothing kept) when
// an amount, a rate or a sum does not fit.
func (v *valuation) valueUnits(r store.Round) bool {
	n := len(v.hs)
	feeU, effU, rateU := make([]int64, n), make([]int64, n), make([]int64, n)
	var unlocked, locked, fees, perRound int64
	b := ledger.Balance{Round: r.Number, Price: r.Price}
	fits := true
	add := func(sum *int64, x int64) {
		if x < 0 || *sum > math.MaxInt64-x {
			fits = false
		}
		*sum += x
	}
	for i, h := range v.hs {
		a, okA := h.Amount.Units()
		rate, okR := h.Rate.Units()
		if !okA || !okR || a < 0 || rate < 0 {
			return false
		}
		fee := unitsFee(a, rate, h.CreatedRound, r.Number)
		feeU[i], effU[i], rateU[i] = fee, a-fee, rate
		if h.LockHolder != "" {
			add(&locked, a-fee)
			b.LockedCount++
		} else {
			add(&unlocked, a-fee)
			add(&fees, fee)
			b.Count++
		}
		if a-fee > 0 {
			add(&perRound, rate)
		}
		if !fits {
			return false
		}
	}
	b.EffectiveUnlocked, b.EffectiveLocked, b.HoldingFees = coin.FromUnits(unlocked), coin.FromUnits(locked), coin.FromUnits(fees)
	v.feeU, v.effU, v.rateU, v.balance, v.feePerRound = feeU, effU, rateU, b, coin.FromUnits(perRound)
	return true
}

// valueDecimals is valueUnits in decimals, for any size.
func (v *valuation) valueDecimals(r store.Round) {
	v.fee, v.eff = make([]coin.Amount, len(v.hs)), make([]coin.Amount, len(v.hs))
	v.balance = ledger.Balance{Round: r.Number, Price: r.Price}
	for i, h := range v.hs {
		v.fee[i] = ledger.HoldingFee(h.Amount, h.Rate, h.CreatedRound, r.Number)
		v.eff[i] = h.Amount.Sub(v.fee[i])
		v.balance.Add(v.eff[i], v.fee[i], h.LockHolder != "")
		if v.eff[i].IsPositive() {
			v.feePerRound = v.feePerRound.Add(h.Rate)
		}
	}
}

// unitsFee is HoldingFee in units: a rate times rounds too large for an
// int64 is larger than any amount that fits one.
func unitsFee(a, rate int64, created, at coin.Round) int64 {
	if at <= created {
		return 0
	}
	n := int64(at - created)
	if rate > 0 && n > math.MaxInt64/rate {
		return a
	}
	return min(a, rate*n)
}

// dust is IsDust for holding i at round at.
func (v *valuation) dust(i int, at coin.Round) bool {
	h := v.hs[i]
	if !v.units {
		return ledger.IsDust(h.Amount, h.Rate, h.CreatedRound, at)
	}
	if at <= h.CreatedRound || v.rateU[i] == 0 {
		return false
	}
	a := v.effU[i] + v.feeU[i]
	n := int64(at - h.CreatedRound)
	return n > math.MaxInt64/v.rateU[i] || a < v.rateU[i]*n
}

// view is holding i's view, carrying only its contract ID.
func (v *valuation) view(i int) ledger.HoldingView {
	var fee coin.Amount
	if v.units {
		fee = coin.FromUnits(v.feeU[i])
	} else {
		fee = v.fee[i]
	}
	hv := ledger.HoldingViewWithFee(v.hs[i], fee)
	hv.Contract.ContractID = v.hs[i].ContractID
	return hv
}
