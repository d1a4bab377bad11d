package external

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// ExternalBalance is an external party's holdings summary, valued at the
// earliest open round as the real validator computes it.
type ExternalBalance struct {
	Party          coin.PartyID
	Unlocked       coin.Amount // sum of initial amounts
	Locked         coin.Amount
	FeesUnlocked   coin.Amount
	FeesLocked     coin.Amount
	Round          coin.Round
	HoldingsCount  int
	LockedHoldings int
}

// Total is the sum of all holdings' initial amounts.
func (b ExternalBalance) Total() coin.Amount { return b.Unlocked.Add(b.Locked) }

// Fees is the holding fee accrued on all holdings.
func (b ExternalBalance) Fees() coin.Amount { return b.FeesUnlocked.Add(b.FeesLocked) }

// Available is what the party can spend: unlocked initial amounts less
// their accrued fees.
func (b ExternalBalance) Available() coin.Amount { return b.Unlocked.Sub(b.FeesUnlocked) }

// ExternalPartyBalance summarises party's holdings. Unknown parties are
// ErrNotFound.
func (s *Service) ExternalPartyBalance(ctx context.Context, party coin.PartyID) (ExternalBalance, error) {
	if err := s.l.KnownParty(ctx, party); err != nil {
		return ExternalBalance{}, err
	}
	// The usable round, as the wallet's balance reads it.
	r, err := s.l.UsableRound(ctx, s.l.DB())
	if err != nil {
		return ExternalBalance{}, err
	}
	hs, err := store.HoldingsByOwner(ctx, s.l.DB(), party)
	if err != nil {
		return ExternalBalance{}, err
	}
	b := ExternalBalance{Party: party, Round: r.Number}
	for _, h := range hs {
		fee := ledger.HoldingFee(h.Amount, h.Rate, h.CreatedRound, r.Number)
		if h.LockHolder != "" {
			b.Locked, b.FeesLocked = b.Locked.Add(h.Amount), b.FeesLocked.Add(fee)
			b.LockedHoldings++
			continue
		}
		b.Unlocked, b.FeesUnlocked = b.Unlocked.Add(h.Amount), b.FeesUnlocked.Add(fee)
		b.HoldingsCount++
	}
	return b, nil
}
