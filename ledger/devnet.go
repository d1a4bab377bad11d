package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
)

// Dev is what only a development network may do beside its faucet: mint
// coin outside it and seed reward coupons, for demos, benchmarks and tests.
// Ledger.Dev is the only way to a working Dev, and a ledger not configured
// as a development network refuses it, so no production path can mint.
type Dev struct{ l *Ledger }

// Dev returns the development network's powers, or ErrDisabled unless
// the ledger runs a development network.
func (l *Ledger) Dev() (Dev, error) {
	if !l.cfg.DevNet {
		return Dev{}, fmt.Errorf("%w: minting outside the faucet is only available on a development network", ErrDisabled)
	}
	return Dev{l: l}, nil
}

// Mint issues amount coin to party outside the faucet (seeding, tests,
// rewards use their own paths). It is recorded as minted.
func (d Dev) Mint(ctx context.Context, party coin.PartyID, amount coin.Amount, reason string) (coin.ContractID, error) {
	l := d.l
	if err := checkAmount("amount", amount); err != nil {
		return "", err
	}
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		t, err := c.begin(ctx, "mint")
		if err != nil {
			return err
		}
		cid = t.mint(party, amount)
		t.record(party, HistoryBalanceChange, "Mint", "", amount, coin.Zero, reason, HistoryDetails{ContractID: cid})
		return nil
	})
	return cid, err
}
