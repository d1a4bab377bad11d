// Package featured owns featured apps' workflows on the core: a party's
// own featured app right (self-grant on a development network, cancel,
// is-featured) and a featured app's delegate proxy
// (splice-util-featured-app-proxies), through which the provider's
// delegate runs token standard choices that leave featured app activity
// markers, and their conversion into featured app reward coupons; and
// the id of a provider's right (RightID), which the registry's choice
// contexts name. The core keeps the FeaturedAppRight template and its
// reader (ledger.FeaturedRightsOf, which reassignment and the featured
// rewards use); ledger/rewards reads the rewards.
package featured

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// A featured app's delegate proxy (splice-util-featured-app-proxies): the
// provider (an exchange holding a FeaturedAppRight) lets a delegate (its
// treasury) run the token standard's transfer choices through the proxy,
// each leaving a featured app activity marker for the provider's
// beneficiaries. The DSO converts markers into featured AppRewardCoupons
// (AmuletRules_ConvertFeaturedAppActivityMarkers); here the conversion
// follows the choice at once, in a change of its own, as the DSO's
// automation would.

// Service is the featured apps' workflows of one ledger.
type Service struct {
	l *ledger.Ledger
}

// New builds the featured apps' workflows on l.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// MaxBeneficiaries bounds a marker's beneficiaries.
const MaxBeneficiaries = 20

// DelegateProxy is a proxy's payload.
type DelegateProxy struct {
	Provider coin.PartyID `json:"provider"`
	Delegate coin.PartyID `json:"delegate"`
}

// Beneficiary is one of a marker's beneficiaries and its share.
type Beneficiary struct {
	Party  coin.PartyID
	Weight coin.Amount
}

// CreateDelegateProxy creates provider's proxy for delegate, once per
// cmd's key, with cmd's completion.
func (s *Service) CreateDelegateProxy(ctx context.Context, p DelegateProxy, cmd commands.Command) (coin.ContractID, error) {
	cid, err := ledger.CreateContract(ctx, s.l, "delegate-proxy", cmd, ledger.TemplateDelegateProxy, p, p.Provider, p.Delegate)
	if err != nil {
		return "", fmt.Errorf("create delegate proxy for %s: %w", p.Delegate, err)
	}
	return cid, nil
}

// CheckProxyUse checks a proxy choice before it runs: proxy is an active
// DelegateProxy whose delegate is actor, right is its provider's active
// FeaturedAppRight, and the beneficiaries' weights are positive and sum
// to at most 1. It returns the proxy.
func (s *Service) CheckProxyUse(ctx context.Context, actor coin.PartyID, proxy, right coin.ContractID, bs []Beneficiary) (DelegateProxy, error) {
	var p DelegateProxy
	c, err := store.ContractByID(ctx, s.l.DB(), proxy)
	if errors.Is(err, store.ErrNotFound) || err == nil && (c.TemplateID != ledger.TemplateDelegateProxy || c.ArchivedOffset != nil) {
		return p, fmt.Errorf("%w: no active delegate proxy %s", fault.ErrNotFound, proxy)
	} else if err != nil {
		return p, err
	}
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return p, fmt.Errorf("decode %s: %w", proxy, err)
	}
	if p.Delegate != actor {
		return p, fmt.Errorf("%w: only the delegate %s uses delegate proxy %s, not %s", fault.ErrForbidden, p.Delegate, proxy, actor)
	}
	rights, err := ledger.FeaturedRightsOf(ctx, s.l.DB(), p.Provider)
	if err != nil {
		return p, err
	}
	if !slices.Contains(rights, right) {
		return p, fmt.Errorf("%w: %s is not an active featured app right of the provider %s", fault.ErrNotFound, right, p.Provider)
	}
	if len(bs) == 0 || len(bs) > MaxBeneficiaries {
		return p, fault.Invalid("beneficiaries", "give 1 to %d beneficiaries, not %d", MaxBeneficiaries, len(bs))
	}
	sum := coin.Zero
	for _, b := range bs {
		if !b.Weight.IsPositive() {
			return p, fault.Invalid("beneficiaries", "the weight of %s must be positive", b.Party)
		}
		if err := s.l.KnownParty(ctx, b.Party); err != nil {
			return p, err
		}
		sum = sum.Add(b.Weight)
	}
	if sum.Cmp(coin.MustParse("1")) > 0 {
		return p, fmt.Errorf("%w: the beneficiaries' weights sum to %s, more than 1", fault.ErrRequirement, sum.Short())
	}
	return p, nil
}

// ConvertActivityMarker turns a proxy choice's featured app activity
// marker into featured app reward coupons: each beneficiary earns its
// weight of the featured app reward of the current round.
func (s *Service) ConvertActivityMarker(ctx context.Context, bs []Beneficiary) error {
	return s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.Begin(ctx, "featured-app-activity"); err != nil {
			return err
		}
		reward := ledger.USDToCoin(x.Rules().ExtraFeaturedAppRewardUSD, x.Round().Price)
		for _, b := range bs {
			if amount := reward.Mul(b.Weight); amount.IsPositive() {
				x.AddRewardCoupon(ledger.RewardApp, b.Party, amount, true)
			}
		}
		return nil
	})
}
