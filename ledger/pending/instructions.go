package pending

import (
	"context"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// TransferInstructionByID returns an instruction, in any status. Only its
// sender and receiver may see it (viewer ""; the registry sees all).
func (s *Service) TransferInstructionByID(ctx context.Context, viewer coin.PartyID, cid coin.ContractID) (ledger.TransferInstruction, error) {
	db := s.l.DB()
	ti, err := store.TransferInstructionByID(ctx, db, cid)
	if err != nil {
		return ledger.TransferInstruction{}, fmt.Errorf("transfer instruction %s: %w", cid, err)
	}
	if viewer != "" && viewer != ti.Sender && viewer != ti.Receiver {
		return ledger.TransferInstruction{}, fmt.Errorf("transfer instruction %s: %w", cid, fault.ErrNotFound)
	}
	c, err := store.ContractByID(ctx, db, cid)
	if errors.Is(err, store.ErrNotFound) {
		// A finished instruction's contract was pruned; its row still says
		// how it ended.
		c, err = nil, nil
	}
	if err != nil {
		return ledger.TransferInstruction{}, err
	}
	return s.l.Instructions().View(ti, c), nil
}

// TransferInstructions lists the pending instructions party sends or
// receives, oldest first.
func (s *Service) TransferInstructions(ctx context.Context, party coin.PartyID) ([]ledger.TransferInstruction, error) {
	tis, err := store.TransferInstructionsOf(ctx, s.l.DB(), party, string(ledger.InstructionPending))
	if err != nil {
		return nil, err
	}
	return s.withContracts(ctx, tis)
}

// withContracts is tis as the ledger shows them, each with its contract.
func (s *Service) withContracts(ctx context.Context, tis []store.TransferInstruction) ([]ledger.TransferInstruction, error) {
	ids := make([]coin.ContractID, len(tis))
	for i, ti := range tis {
		ids[i] = ti.ContractID
	}
	cs, err := store.ContractsByIDs(ctx, s.l.DB(), ids)
	if err != nil {
		return nil, err
	}
	out := make([]ledger.TransferInstruction, 0, len(tis))
	for i := range tis {
		out = append(out, s.l.Instructions().View(&tis[i], cs[tis[i].ContractID]))
	}
	return out, nil
}
