// Package expiry owns the automations that end what is past its time, on
// the core: the open transfer offers past their expiry (Offers, the real
// wallet's ExpireTransferOfferTrigger) and the pending transfer
// instructions past their deadline (Instructions, the registry's
// expiry), each a page of due rows at a time, each row in a change of its
// own so one failure does not hold the rest (jobs.Expiry runs them); and
// the holdings that became dust (Dust, the network's
// ExpiredAmuletTrigger, a page of candidates a change), run after every
// round as the round clock's first step (AfterRounds, which
// ledger/workflows passes). What an expiry does is the core's rule: an
// offer's end (Offers.ExpireOne), an instruction's move to expired, which
// releases its lock back to the sender (Instructions.Move with
// MoveExpire), a dust holding's archive and burn (Tx.ExpireDust).
package expiry

import (
	"context"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Service is the expiry automations of one ledger.
type Service struct {
	l *ledger.Ledger
}

// New builds l's expiry automations.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// page bounds the due rows read at once.
const page = 100

// Offers ends every open offer whose expiry has passed and returns how
// many it ended.
func (s *Service) Offers(ctx context.Context) (int, error) {
	l := s.l
	n := 0
	seen := map[coin.ContractID]bool{}
	for {
		due, err := store.TransferOffersDue(ctx, l.DB(), ledger.OfferCreated, l.Now(), page)
		if err != nil {
			return n, err
		}
		progressed := false
		for _, d := range due {
			if seen[d.ContractID] {
				continue
			}
			seen[d.ContractID] = true
			err := l.Offers().ExpireOne(ctx, d.Sender, d.ContractID)
			switch {
			case err == nil:
				n++
				progressed = true
			case errors.Is(err, ledger.ErrOfferFinished), errors.Is(err, fault.ErrConflict):
				// Accepted, rejected or withdrawn meanwhile.
				progressed = true
			default:
				return n, fmt.Errorf("expire transfer offer %s: %w", d.ContractID, err)
			}
		}
		if !progressed {
			return n, nil
		}
	}
}

// Instructions ends every pending instruction past its deadline: the
// lock is released back to the sender and the status becomes expired. It
// returns how many it expired.
func (s *Service) Instructions(ctx context.Context) (int, error) {
	l := s.l
	n := 0
	for {
		due, err := store.TransferInstructionsDue(ctx, l.DB(), string(ledger.InstructionPending), l.Now(), page)
		if err != nil {
			return n, err
		}
		progressed := false
		for _, ti := range due {
			_, err := l.Instructions().Move(ctx, "", ti.ContractID, ledger.MoveExpire)
			switch {
			case err == nil:
				n++
				progressed = true
			case errors.Is(err, ledger.ErrInstructionFinished):
				// Someone else finished it meanwhile.
			case errors.Is(err, ledger.ErrReassigning):
				// Expired on a later run, once the reassignment completes.
			default:
				return n, fmt.Errorf("expire transfer instruction %s: %w", ti.ContractID, err)
			}
		}
		if len(due) < page || !progressed {
			return n, nil
		}
	}
}
