package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
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

// TemplateDelegateProxy is the proxy's template.
const TemplateDelegateProxy = "#splice-util-featured-app-proxies:Splice.Util.FeaturedApp.DelegateProxy:DelegateProxy"

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

// CreateDelegateProxy creates provider's proxy for delegate, once per key.
func (l *Ledger) CreateDelegateProxy(ctx context.Context, p DelegateProxy, key string) (coin.ContractID, error) {
	cid, err := l.createContract(ctx, "delegate-proxy", key, TemplateDelegateProxy, p, p.Provider, p.Delegate)
	if err != nil {
		return "", fmt.Errorf("create delegate proxy for %s: %w", p.Delegate, err)
	}
	return cid, nil
}

// CheckProxyUse checks a proxy choice before it runs: proxy is an active
// DelegateProxy whose delegate is actor, right is its provider's active
// FeaturedAppRight, and the beneficiaries' weights are positive and sum
// to at most 1. It returns the proxy.
func (l *Ledger) CheckProxyUse(ctx context.Context, actor coin.PartyID, proxy, right coin.ContractID, bs []Beneficiary) (DelegateProxy, error) {
	var p DelegateProxy
	c, err := store.ContractByID(ctx, l.db, proxy)
	if errors.Is(err, store.ErrNotFound) || err == nil && (c.TemplateID != TemplateDelegateProxy || c.ArchivedOffset != nil) {
		return p, fmt.Errorf("%w: no active delegate proxy %s", ErrNotFound, proxy)
	} else if err != nil {
		return p, err
	}
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return p, fmt.Errorf("decode %s: %w", proxy, err)
	}
	if p.Delegate != actor {
		return p, fmt.Errorf("%w: only the delegate %s uses delegate proxy %s, not %s", ErrForbidden, p.Delegate, proxy, actor)
	}
	rights, err := featuredRightsOf(ctx, l.db, p.Provider)
	if err != nil {
		return p, err
	}
	if !slices.Contains(rights, right) {
		return p, fmt.Errorf("%w: %s is not an active featured app right of the provider %s", ErrNotFound, right, p.Provider)
	}
	if len(bs) == 0 || len(bs) > MaxBeneficiaries {
		return p, invalid("beneficiaries", "give 1 to %d beneficiaries, not %d", MaxBeneficiaries, len(bs))
	}
	sum := coin.Zero
	for _, b := range bs {
		if !b.Weight.IsPositive() {
			return p, invalid("beneficiaries", "the weight of %s must be positive", b.Party)
		}
		if err := l.KnownParty(ctx, b.Party); err != nil {
			return p, err
		}
		sum = sum.Add(b.Weight)
	}
	if sum.Cmp(coin.MustParse("1")) > 0 {
		return p, fmt.Errorf("%w: the beneficiaries' weights sum to %s, more than 1", ErrRequirement, sum.Short())
	}
	return p, nil
}

// ConvertActivityMarker turns a proxy choice's featured app activity
// marker into featured app reward coupons: each beneficiary earns its
// weight of the featured app reward of the current round.
func (l *Ledger) ConvertActivityMarker(ctx context.Context, bs []Beneficiary) error {
	return l.change(ctx, func(ctx context.Context, c *change) error {
		t, err := c.begin(ctx, "featured-app-activity")
		if err != nil {
			return err
		}
		reward := USDToCoin(l.rules.ExtraFeaturedAppRewardUSD, t.round.Price)
		for _, b := range bs {
			if amount := reward.Mul(b.Weight); amount.IsPositive() {
				t.addRewardCoupon(RewardApp, b.Party, amount, true)
			}
		}
		return nil
	})
}
