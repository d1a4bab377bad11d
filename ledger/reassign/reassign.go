// Package reassign is the development network's reassignment of
// contracts between synchronizers: while one is being reassigned no
// command may use it (the core's check, ledger.ErrReassigning).
package reassign

import (
	"context"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Service begins and completes reassignments on a ledger.
type Service struct{ l *ledger.Ledger }

// New is l's reassignments.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// Begin marks a contract as being reassigned to the target
// synchronizer. Until Complete it cannot be disclosed.
func (s *Service) Begin(ctx context.Context, cid coin.ContractID, target string) error {
	if target == "" {
		return fault.Invalid("target_synchronizer_id", "must not be empty")
	}
	// It becomes the contract's synchronizer, which every reader shows.
	if err := bounds.CheckID("target_synchronizer_id", target); err != nil {
		return err
	}
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		tx := x.DB()
		c, err := store.ContractByID(ctx, tx, cid)
		if err != nil {
			return err
		}
		if c.ArchivedOffset != nil {
			return fmt.Errorf("contract %s is archived: %w", cid, fault.ErrNotFound)
		}
		if c.SynchronizerID == target {
			return fault.Invalid("target_synchronizer_id", "contract %s is already assigned to %s", cid, target)
		}
		err = store.InsertReassignment(ctx, tx, &store.Reassignment{ContractID: cid, Source: c.SynchronizerID, Target: target, StartedAt: s.l.Now()})
		if errors.Is(err, store.ErrAlreadyExists) {
			return fmt.Errorf("%w: contract %s is already being reassigned", fault.ErrConflict, cid)
		}
		return err
	})
	if err == nil {
		ledger.NoteReassignments(s.l, 1)
	}
	return err
}

// Complete finishes a reassignment: the contract is now
// assigned to its target synchronizer.
func (s *Service) Complete(ctx context.Context, cid coin.ContractID) error {
	err := s.l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		r, err := store.DeleteReassignment(ctx, x.DB(), cid)
		if err != nil {
			return err
		}
		return store.SetContractSynchronizer(ctx, x.DB(), cid, r.Target)
	})
	if err == nil {
		ledger.NoteReassignments(s.l, -1)
	}
	return err
}
