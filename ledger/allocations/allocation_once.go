package allocations

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

// refuseSecondAllocation refuses to allocate a trade leg its sender has a
// pending allocation of already (the same executor, settlement reference
// and leg id): one leg is allocated at most once, or its coin would be
// locked twice. It runs under the sender's lock (allocate), so two
// concurrent allocations of one leg cannot both pass, on either engine;
// every way in (the wallet's Allocate, the Ledger API's and the
// registry's AllocationFactory_Allocate) goes through it.
func (s *Service) refuseSecondAllocation(ctx context.Context, tx bun.IDB, spec allocationdata.AllocationSpecification) error {
	mine, err := s.pendingAllocationsIn(ctx, tx, spec.TransferLeg.Sender)
	if err != nil {
		return err
	}
	for _, a := range mine {
		if sameLeg(a.Spec, spec) {
			return problem(fault.ErrConflict, "leg %q of settlement %q is allocated already (allocation %s); one leg is allocated at most once, nothing changed",
				spec.TransferLegID, spec.Settlement.SettlementRef.ID, a.Contract.ContractID)
		}
	}
	return nil
}

// sameLeg reports whether a and b allocate one leg of one settlement.
func sameLeg(a, b allocationdata.AllocationSpecification) bool {
	ra, rb := a.Settlement.SettlementRef, b.Settlement.SettlementRef
	return a.Settlement.Executor == b.Settlement.Executor && ra.ID == rb.ID &&
		(ra.CID == nil) == (rb.CID == nil) && (ra.CID == nil || *ra.CID == *rb.CID) &&
		a.TransferLegID == b.TransferLegID && a.TransferLeg.Sender == b.TransferLeg.Sender
}
