package ledger

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
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
	if !amountUSD.IsPositive() {
		return TapResult{}, invalid("amount", "must be positive")
	}
	if commandID == "" {
		commandID = uuid.NewString()
	}
	key := "tap:" + string(party) + ":" + commandID
	var res TapResult
	err := l.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		prev, err := l.claimCommand(ctx, tx, key)
		if err != nil {
			return err
		}
		if prev != nil {
			res = TapResult{ContractID: coin.ContractID(prev.Result)}
			return nil
		}
		t, err := l.beginTxn(ctx, tx, "tap")
		if err != nil {
			return err
		}
		cc := USDToCoin(amountUSD, t.round.Price)
		if !cc.IsPositive() {
			return invalid("amount", "is worth less than 0.0000000001 coin")
		}
		cid := t.mint(party, cc)
		t.record(party, "balance_change", "Tap", "", cc, coin.Zero, "", HistoryDetails{ContractID: cid})
		if err := t.commit(ctx); err != nil {
			return err
		}
		res = TapResult{ContractID: cid, Amount: cc}
		return l.saveCommand(ctx, t, key, party, "tap", string(cid))
	})
	if err != nil {
		return TapResult{}, fmt.Errorf("tap for %s: %w", party, err)
	}
	return res, nil
}

// Mint issues amount coin to party outside the faucet (seeding, tests,
// rewards use their own paths). It is recorded as minted.
func (d Dev) Mint(ctx context.Context, party coin.PartyID, amount coin.Amount, reason string) (coin.ContractID, error) {
	l := d.l
	if !amount.IsPositive() {
		return "", invalid("amount", "must be positive")
	}
	var cid coin.ContractID
	err := l.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		t, err := l.beginTxn(ctx, tx, "mint")
		if err != nil {
			return err
		}
		cid = t.mint(party, amount)
		t.record(party, "balance_change", "Mint", "", amount, coin.Zero, reason, HistoryDetails{ContractID: cid})
		return t.commit(ctx)
	})
	return cid, err
}
