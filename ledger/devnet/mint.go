package devnet

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

// What only a development network may do beside its faucet: mint coin
// outside it and seed reward coupons, for demos, benchmarks and tests,
// each one ledger change on the core's Tx verbs. Each refuses
// (fault.ErrDisabled) unless the ledger runs a development network, so
// no production path mints.

// devOnly refuses unless l runs a development network.
func devOnly(l *ledger.Ledger) error {
	if !l.DevNet() {
		return fmt.Errorf("%w: minting outside the faucet is only available on a development network", fault.ErrDisabled)
	}
	return nil
}

// Mint issues amount coin to party outside the faucet (seeding, tests;
// rewards use their own paths). It is recorded as minted.
func (s *Service) Mint(ctx context.Context, party coin.PartyID, amount coin.Amount, reason string) (coin.ContractID, error) {
	l := s.l
	if err := devOnly(l); err != nil {
		return "", err
	}
	if err := bounds.CheckAmount("amount", amount); err != nil {
		return "", err
	}
	var cid coin.ContractID
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.Begin(ctx, "mint"); err != nil {
			return err
		}
		cid = x.Mint(party, amount)
		x.Record(party, ledger.HistoryBalanceChange, "Mint", "", amount, coin.Zero, reason, ledger.HistoryDetails{ContractID: cid})
		return nil
	})
	return cid, err
}

// MintBulk issues one holding per amount to party in a single ledger
// transaction: seeding for demos, benchmarks and tests that need many
// holdings quickly. Recorded as minted, so conservation holds.
func (s *Service) MintBulk(ctx context.Context, party coin.PartyID, amounts []coin.Amount) error {
	l := s.l
	if err := devOnly(l); err != nil {
		return err
	}
	if err := l.KnownParty(ctx, party); err != nil {
		return err
	}
	total := coin.Zero
	for _, a := range amounts {
		if !a.IsPositive() {
			return fault.Invalid("amount", "must be positive")
		}
		total = total.Add(a)
	}
	return l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.Begin(ctx, "mint"); err != nil {
			return err
		}
		for _, a := range amounts {
			x.Mint(party, a)
		}
		x.Record(party, ledger.HistoryBalanceChange, "Mint", "", total, coin.Zero, fmt.Sprintf("%d holdings", len(amounts)), ledger.HistoryDetails{})
		return nil
	})
}

// SeedRewardCoupons creates one coupon of kind with weight amount for each
// beneficiary in one transaction, at the latest open round: seeding for
// demos, benchmarks and tests (real coupons come from traffic, transfers
// and liveness).
func (s *Service) SeedRewardCoupons(ctx context.Context, kind string, beneficiaries []coin.PartyID, amount coin.Amount) error {
	l := s.l
	if err := devOnly(l); err != nil {
		return err
	}
	if ledger.RewardTemplate(kind) == "" {
		return fault.Invalid("kind", "unknown reward kind %q", kind)
	}
	return l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if err := x.Begin(ctx, "seed-rewards"); err != nil {
			return err
		}
		for _, b := range beneficiaries {
			x.AddRewardCoupon(kind, b, amount, kind == ledger.RewardApp)
		}
		return nil
	})
}
