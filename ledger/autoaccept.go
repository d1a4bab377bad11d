package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

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
func (l *Ledger) AutoAccept(ctx context.Context, receiver coin.PartyID, fromParties []coin.PartyID) (AutoAcceptResult, error) {
	var res AutoAcceptResult
	if closed, err := store.PartyOffboarded(ctx, l.db, receiver); err != nil || closed {
		return res, err // an offboarded user's wallet no longer runs
	}
	offers, err := store.TransferOffersWith(ctx, l.db, "", receiver, OfferCreated)
	if err != nil {
		return res, err
	}
	now := l.now()
	for _, o := range offers {
		if !slices.Contains(fromParties, o.Sender) || !now.Before(o.ExpiresAt) {
			continue
		}
		_, err := l.Offers().Accept(ctx, receiver, o.ContractID)
		switch {
		case err == nil:
			res.Offers++
		case errors.Is(err, ErrOfferFinished), errors.Is(err, ErrConflict), errors.Is(err, ErrExpired):
		default:
			return res, fmt.Errorf("auto-accept for %s: %w", receiver, err)
		}
	}
	tis, err := store.TransferInstructionsOf(ctx, l.db, receiver, string(InstructionPending))
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
		case errors.Is(err, ErrInstructionFinished), errors.Is(err, ErrExpired), errors.Is(err, ErrConflict):
		default:
			return res, fmt.Errorf("auto-accept for %s: %w", receiver, err)
		}
	}
	return res, nil
}
