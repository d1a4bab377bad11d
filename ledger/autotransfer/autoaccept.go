// Package autotransfer owns the wallet automations that move a user's
// coin without the user, configured per party as in Splice's validator
// app: the sweep (walletSweep, Splice's WalletSweepTrigger: everything
// above a balance to another party, by transfer offer or preapproval) and
// auto-accept (autoAcceptTransfers, AutoAcceptTransferOffersTrigger: the
// offers and instructions of listed senders). They act through the core's
// offers, instructions and preapprovals; jobs.Sweep and jobs.AutoAccept
// run them.
package autotransfer

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Service runs one ledger's automatic transfers.
type Service struct {
	l *ledger.Ledger
}

// New returns the automatic transfers of l.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// AutoAcceptResult counts what one AutoAccept run accepted.
type AutoAcceptResult struct {
	Offers       int
	Instructions int
}

// AutoAccept accepts, as receiver, every open transfer offer and pending
// token-standard transfer instruction sent by one of fromParties (the real
// wallet's AutoAcceptTransferOffersTrigger, autoAcceptTransfers). It is
// idempotent: each acceptance is a guarded move from open/pending, so an
// item another run (or the user) finished meanwhile is skipped, as is one
// that expired.
func (s *Service) AutoAccept(ctx context.Context, receiver coin.PartyID, fromParties []coin.PartyID) (AutoAcceptResult, error) {
	l := s.l
	var res AutoAcceptResult
	if closed, err := store.PartyOffboarded(ctx, l.DB(), receiver); err != nil || closed {
		return res, err // an offboarded user's wallet no longer runs
	}
	offers, err := store.TransferOffersWith(ctx, l.DB(), "", receiver, ledger.OfferCreated)
	if err != nil {
		return res, err
	}
	now := l.Now()
	for _, o := range offers {
		if !slices.Contains(fromParties, o.Sender) || !now.Before(o.ExpiresAt) {
			continue
		}
		_, err := l.Offers().Accept(ctx, receiver, o.ContractID)
		switch {
		case err == nil:
			res.Offers++
		case errors.Is(err, ledger.ErrOfferFinished), errors.Is(err, fault.ErrConflict), errors.Is(err, fault.ErrExpired):
		default:
			return res, fmt.Errorf("auto-accept for %s: %w", receiver, err)
		}
	}
	tis, err := store.TransferInstructionsOf(ctx, l.DB(), receiver, string(ledger.InstructionPending))
	if err != nil {
		return res, err
	}
	for _, ti := range tis {
		if ti.Receiver != receiver || !slices.Contains(fromParties, ti.Sender) || !now.Before(ti.ExecuteBefore) {
			continue
		}
		_, err := l.Instructions().Accept(ctx, receiver, ti.ContractID)
		switch {
		case err == nil:
			res.Instructions++
		case errors.Is(err, ledger.ErrInstructionFinished), errors.Is(err, fault.ErrExpired), errors.Is(err, fault.ErrConflict):
		default:
			return res, fmt.Errorf("auto-accept for %s: %w", receiver, err)
		}
	}
	return res, nil
}
