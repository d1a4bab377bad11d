package devnet

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/google/uuid"
)

// The development network's faucet: Tap (the wallet's and the admin's tap,
// in USD) and TapCoin (the Ledger API's AmuletRules_DevNet_Tap, in coin),
// each one ledger change on the core's Tx verbs. Both refuse
// (fault.ErrDisabled) unless the ledger runs a development network.

// TapResult is the holding a tap created.
type TapResult struct {
	ContractID coin.ContractID
	Amount     coin.Amount
}

// Tap mints coin for party from l's development network faucet. As on
// the real network, amountUSD is in USD and converted at the current
// round's price. commandID makes retries safe: the same id returns the
// first tap's holding and mints nothing more.
func Tap(ctx context.Context, l *ledger.Ledger, party coin.PartyID, amountUSD coin.Amount, commandID string) (TapResult, error) {
	if !l.DevNet() {
		return TapResult{}, fmt.Errorf("%w: tap is only available on a development network", fault.ErrDisabled)
	}
	if err := bounds.CheckAmount("amount", amountUSD); err != nil {
		return TapResult{}, err
	}
	if err := bounds.CheckID("command_id", commandID); err != nil {
		return TapResult{}, err
	}
	if commandID == "" {
		commandID = uuid.NewString()
	}
	cmd := commands.Command{Key: "tap:" + string(party) + ":" + commandID}
	return tap(ctx, l, party, cmd, func(price coin.Amount) (coin.Amount, error) {
		cc := ledger.USDToCoin(amountUSD, price)
		if !cc.IsPositive() {
			return cc, fault.Invalid("amount", "is worth less than 0.0000000001 coin")
		}
		// The conversion multiplies: 28 digits of USD at a price below 1
		// are more coin than a holding can hold.
		if !cc.Fits() {
			return cc, fault.Invalid("amount", "%s USD is worth %s coin at the current price, more than the largest amount the ledger holds (%s)",
				amountUSD.Short(), cc.Short(), coin.MaxAmount)
		}
		return cc, nil
	})
}

// TapCoin is AmuletRules_DevNet_Tap: it mints amount coin (not USD) to
// party from l's development network faucet, once per cmd's key, with
// cmd's completion; a key used before is ErrDuplicate.
func TapCoin(ctx context.Context, l *ledger.Ledger, party coin.PartyID, amount coin.Amount, cmd commands.Command) (TapResult, error) {
	if !l.DevNet() {
		return TapResult{}, fmt.Errorf("%w: the faucet (AmuletRules_DevNet_Tap) is only available on a development network", fault.ErrDisabled)
	}
	if err := bounds.CheckAmount("amount", amount); err != nil {
		return TapResult{}, err
	}
	if err := l.KnownParty(ctx, party); err != nil {
		return TapResult{}, err
	}
	cmd.Key = "tap-coin:" + cmd.Key
	res, err := tap(ctx, l, party, cmd, func(coin.Amount) (coin.Amount, error) { return amount, nil })
	if err == nil && res.Amount.IsZero() {
		return TapResult{}, fmt.Errorf("%w: the tap was already made (%s)", fault.ErrDuplicate, res.ContractID)
	}
	return res, err
}

// tap is the faucet's one rule: under cmd's deduplication key it mints
// party the coin amount gives at the current round's price, recording
// cmd. A key used before returns the first tap's holding with a zero
// Amount and mints nothing more.
func tap(ctx context.Context, l *ledger.Ledger, party coin.PartyID, cmd commands.Command, amount func(price coin.Amount) (coin.Amount, error)) (TapResult, error) {
	var res TapResult
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		prev, err := x.ClaimCommand(ctx, cmd.Key)
		if err != nil {
			return err
		}
		if prev != nil {
			res = TapResult{ContractID: coin.ContractID(prev.Result)}
			return nil
		}
		if err := x.Begin(ctx, "tap"); err != nil {
			return err
		}
		cc, err := amount(x.Round().Price)
		if err != nil {
			return err
		}
		cid := x.Mint(party, cc)
		x.Record(party, ledger.HistoryBalanceChange, "Tap", "", cc, coin.Zero, "", ledger.HistoryDetails{ContractID: cid})
		res = TapResult{ContractID: cid, Amount: cc}
		x.SaveCommand(cmd, party, "tap", string(cid))
		return nil
	})
	if fault.IsValidation(err) {
		return TapResult{}, err // the message names the field
	}
	if err != nil {
		return TapResult{}, fmt.Errorf("tap for %s: %w", party, err)
	}
	return res, nil
}
