package autotransfer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// SweepOfferExpiry is how long a sweep's transfer offer stays open, as the
// real WalletTransferOfferSweepTrigger.
const SweepOfferExpiry = 10 * time.Minute

// SweepConfig is one walletSweep entry: keep Sender's balance at or below
// MaxBalanceUSD by moving everything above MinBalanceUSD to Receiver.
type SweepConfig struct {
	Sender        coin.PartyID
	Receiver      coin.PartyID
	MaxBalanceUSD coin.Amount
	MinBalanceUSD coin.Amount
	// UsePreapproval sends in one step through the receiver's transfer
	// preapproval instead of a transfer offer; without a valid preapproval
	// the sweep fails, as in Splice.
	UsePreapproval bool
}

// errSweepOpen stops a sweep that lost the race to another run.
var errSweepOpen = errors.New("a sweep offer is already open")

// SweepResult says what one sweep did. Amount is zero when nothing was due.
type SweepResult struct {
	Amount      coin.Amount
	Outstanding coin.Amount
	OfferCID    coin.ContractID
	Preapproval bool
}

// SweepDescription is the description of a sweep's transfer offer.
func SweepDescription(receiver coin.PartyID) string {
	return fmt.Sprintf("Sweeping wallet funds to receiver %s.", receiver)
}

// CheckSweep refuses a misconfigured sweep, naming the configuration key
// (walletSweep.<sender>...): min above max, a negative bound, an unknown
// sender or receiver. Every party of this ledger is hosted by this node.
func (s *Service) CheckSweep(ctx context.Context, c SweepConfig) error {
	l := s.l
	key := "walletSweep." + string(c.Sender)
	switch {
	case c.MinBalanceUSD.IsNegative():
		return fmt.Errorf("%s.minBalanceUSD: must not be negative, got %s", key, c.MinBalanceUSD.Short())
	case c.MaxBalanceUSD.IsNegative():
		return fmt.Errorf("%s.maxBalanceUSD: must not be negative, got %s", key, c.MaxBalanceUSD.Short())
	case c.MinBalanceUSD.Cmp(c.MaxBalanceUSD) > 0:
		return fmt.Errorf("%s: minBalanceUSD %s is greater than maxBalanceUSD %s", key, c.MinBalanceUSD.Short(), c.MaxBalanceUSD.Short())
	case c.Sender == c.Receiver:
		return fmt.Errorf("%s.receiver: must differ from the sender", key)
	}
	if err := l.KnownParty(ctx, c.Sender); err != nil {
		if errors.Is(err, fault.ErrNotFound) {
			return fmt.Errorf("%s: sender %s is not a party of this node", key, c.Sender)
		}
		return err
	}
	if err := l.KnownParty(ctx, c.Receiver); err != nil {
		if errors.Is(err, fault.ErrNotFound) {
			return fmt.Errorf("%s.receiver: no party %s is known on this network", key, c.Receiver)
		}
		return err
	}
	return nil
}

// Sweep moves the sender's funds above MinBalanceUSD to the receiver once
// its unlocked balance, less the transfer offers to the receiver still
// open, is worth more than MaxBalanceUSD at the current round's price (the
// real WalletSweepTrigger). The amount is that balance less MinBalanceUSD
// less the transfer's fees, in coin. While a sweep offer to the receiver is
// open it creates no other. It is safe to run twice at once: the offer is
// created only after a re-check under the sender's lock; in preapproval
// mode the transfer holds that lock and a second run finds too little
// coin and sends nothing.
func (s *Service) Sweep(ctx context.Context, c SweepConfig) (SweepResult, error) {
	l := s.l
	res := SweepResult{Amount: coin.Zero, Outstanding: coin.Zero}
	if closed, err := store.PartyOffboarded(ctx, l.DB(), c.Sender); err != nil || closed {
		return res, err // an offboarded user's wallet no longer runs
	}
	b, err := l.Balance(ctx, c.Sender)
	if err != nil {
		return res, fmt.Errorf("sweep %s: %w", c.Sender, err)
	}
	open, err := store.TransferOffersWith(ctx, l.DB(), c.Sender, c.Receiver, ledger.OfferCreated)
	if err != nil {
		return res, fmt.Errorf("sweep %s: %w", c.Sender, err)
	}
	now := l.Now()
	for _, o := range open {
		if !now.Before(o.ExpiresAt) {
			continue // expired, about to be ended by the expiry job
		}
		if o.Description == SweepDescription(c.Receiver) {
			// One outstanding sweep offer at a time.
			return res, nil
		}
		res.Outstanding = res.Outstanding.Add(o.Amount)
	}
	balanceUSD := ledger.CoinToUSD(b.EffectiveUnlocked.Sub(res.Outstanding), b.Price)
	if balanceUSD.Cmp(c.MaxBalanceUSD) <= 0 {
		return res, nil
	}
	avail := b.EffectiveUnlocked.Sub(res.Outstanding).Sub(ledger.USDToCoin(c.MinBalanceUSD, b.Price))
	// The fee on avail bounds the fee on the smaller amount actually sent.
	amount := avail.Sub(l.Rules().OutputFee(avail, b.Price, false))
	if !amount.IsPositive() {
		return res, nil
	}
	if c.UsePreapproval {
		_, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{
			Sender: c.Sender, Receiver: c.Receiver, Amount: amount,
			DeduplicationID: "sweep-" + uuid.NewString(), Description: SweepDescription(c.Receiver),
		})
		if errors.Is(err, fault.ErrInsufficientFunds) {
			// Another run swept first (the balance was read outside the
			// sender's lock); the next run recomputes.
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("sweep %s to %s through its transfer preapproval: %w", amount, c.Receiver, err)
		}
		res.Amount, res.Preapproval = amount, true
		return res, nil
	}
	if amount.Cmp(l.Offers().Limits().MinAmount) < 0 {
		// Below the offer floor: the next run sweeps more at once.
		return res, nil
	}
	// The guard re-checks under the sender's lock, so two runs at once
	// create one offer.
	guard := func(ctx context.Context, tx bun.Tx) error {
		if err := l.LockParties(ctx, tx, c.Sender); err != nil {
			return err
		}
		again, err := store.TransferOffersWith(ctx, tx, c.Sender, c.Receiver, ledger.OfferCreated)
		if err != nil {
			return err
		}
		for _, o := range again {
			if o.Description == SweepDescription(c.Receiver) && l.Now().Before(o.ExpiresAt) {
				return errSweepOpen
			}
		}
		return nil
	}
	o, _, err := l.Offers().CreateGuarded(ctx, ledger.OfferRequest{
		Sender: c.Sender, Receiver: c.Receiver, Amount: amount, Description: SweepDescription(c.Receiver),
		ExpiresAt: now.Add(SweepOfferExpiry), TrackingID: "sweep-" + strings.ReplaceAll(uuid.NewString(), "-", ""),
	}, guard)
	if errors.Is(err, errSweepOpen) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("sweep %s to %s by transfer offer: %w", amount, c.Receiver, err)
	}
	res.Amount, res.OfferCID = amount, o.ContractID
	return res, nil
}
