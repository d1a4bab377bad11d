package main

import (
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
)

// OffersConfig is offers: the limits on transfer offers (issue 38: a
// stranger's unlimited free offers made a receiver's list megabytes long).
// Unset keys keep ledger.DefaultOfferLimits.
type OffersConfig struct {
	// MinAmount is the smallest offer, in CC; "0" turns the floor off,
	// on a development network only.
	MinAmount string `yaml:"minAmount"`
	// MaxOpenPerReceiver is how many open offers one sender may have to
	// one receiver at once.
	MaxOpenPerReceiver *int `yaml:"maxOpenPerReceiver"`
}

// limits is the ledger's OfferLimits for c; validate has checked it.
func (c OffersConfig) limits() *ledger.OfferLimits {
	l := ledger.DefaultOfferLimits
	if c.MinAmount != "" {
		if a, err := coin.ParseAmount(c.MinAmount); err == nil {
			l.MinAmount = a
		}
	}
	if c.MaxOpenPerReceiver != nil {
		l.MaxOpenPerReceiver = *c.MaxOpenPerReceiver
	}
	return &l
}

func (c OffersConfig) validate(network string) []error {
	var errs []error
	if c.MinAmount != "" {
		a, err := coin.ParseAmount(c.MinAmount)
		switch {
		case err != nil || a.IsNegative():
			errs = append(errs, fmt.Errorf("offers.minAmount: %q is not an amount of CC of at least 0", c.MinAmount))
		case a.IsZero() && network != "devnet":
			errs = append(errs, fmt.Errorf("offers.minAmount: 0 turns the floor off, which only a development network may do"))
		}
	}
	if c.MaxOpenPerReceiver != nil && (*c.MaxOpenPerReceiver < 1 || *c.MaxOpenPerReceiver > 100_000) {
		errs = append(errs, fmt.Errorf("offers.maxOpenPerReceiver: must be between 1 and 100000, not %d", *c.MaxOpenPerReceiver))
	}
	return errs
}
