package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/google/uuid"
)

// TapResult is the holding a tap created.
type TapResult struct {
	ContractID coin.ContractID
	Amount     coin.Amount
}

// Tap mints coin for party from the development network's faucet. As on
// the real network, amountUSD is in USD and converted at the current
// round's price. commandID makes retries safe: the same id returns the
// first tap's holding and mints nothing more.
func (l *Ledger) Tap(ctx context.Context, party coin.PartyID, amountUSD coin.Amount, commandID string) (TapResult, error) {
	if !l.cfg.DevNet {
		return TapResult{}, fmt.Errorf("%w: tap is only available on a development network", ErrDisabled)
	}
	if err := checkAmount("amount", amountUSD); err != nil {
		return TapResult{}, err
	}
	if err := checkID("command_id", commandID); err != nil {
		return TapResult{}, err
	}
	if commandID == "" {
		commandID = uuid.NewString()
	}
	key := "tap:" + string(party) + ":" + commandID
	return l.tap(ctx, party, key, func(price coin.Amount) (coin.Amount, error) {
		cc := USDToCoin(amountUSD, price)
		if !cc.IsPositive() {
			return cc, invalid("amount", "is worth less than 0.0000000001 coin")
		}
		// The conversion multiplies: 28 digits of USD at a price below 1
		// are more coin than a holding can hold.
		if !cc.Fits() {
			return cc, invalid("amount", "%s USD is worth %s coin at the current price, more than the largest amount the ledger holds (%s)",
				amountUSD.Short(), cc.Short(), coin.MaxAmount)
		}
		return cc, nil
	})
}

// tap is the faucet's one rule: under deduplication key key it mints
// party the coin amount gives at the current round's price. A key used
// before returns the first tap's holding with a zero Amount and mints
// nothing more.
func (l *Ledger) tap(ctx context.Context, party coin.PartyID, key string, amount func(price coin.Amount) (coin.Amount, error)) (TapResult, error) {
	var res TapResult
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		prev, err := l.claimCommand(ctx, c.tx, key)
		if err != nil {
			return err
		}
		if prev != nil {
			res = TapResult{ContractID: coin.ContractID(prev.Result)}
			return nil
		}
		t, err := c.begin(ctx, "tap")
		if err != nil {
			return err
		}
		cc, err := amount(t.round.Price)
		if err != nil {
			return err
		}
		cid := t.mint(party, cc)
		t.record(party, "balance_change", "Tap", "", cc, coin.Zero, "", HistoryDetails{ContractID: cid})
		res = TapResult{ContractID: cid, Amount: cc}
		t.afterCommit(func(ctx context.Context) error { return l.saveCommand(ctx, t, key, party, "tap", string(cid)) })
		return nil
	})
	if IsValidation(err) {
		return TapResult{}, err // the message names the field
	}
	if err != nil {
		return TapResult{}, fmt.Errorf("tap for %s: %w", party, err)
	}
	return res, nil
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
		t.record(party, "balance_change", "Mint", "", amount, coin.Zero, reason, HistoryDetails{ContractID: cid})
		return nil
	})
	return cid, err
}
