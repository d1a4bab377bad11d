package apiread

import (
	"context"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// addDescendants gives each update whose stored root exercise (its
// command's, commands.Exercise) a party of f acted in every event of the
// update of f's templates, its stakeholders or not: in Canton an
// exercise's informees see its whole subtree, so the sender of a
// transfer sees the receiver's new holding under its
// TransferFactory_Transfer. The events added are marked Descendant.
func (s *Service) addDescendants(ctx context.Context, tx bun.IDB, f ContractFilter, ups []LedgerUpdate) error {
	for i := range ups {
		u := &ups[i]
		if u.Exercise == nil || !witnessedBy(u, f) {
			continue
		}
		have := map[coin.ContractID]bool{}
		for _, e := range u.Events {
			have[e.Contract.ContractID] = true
		}
		add := func(c LedgerContract) {
			if have[c.ContractID] {
				return
			}
			have[c.ContractID] = true
			switch u.Offset {
			case c.CreatedOffset:
				u.Events = append(u.Events, LedgerEvent{Contract: c, Descendant: true})
			case c.ArchivedOffset:
				u.Events = append(u.Events, LedgerEvent{Archived: true, Contract: c, Descendant: true})
			}
		}
		cs, err := store.ContractsChanged(ctx, tx, store.ContractQuery{Templates: f.Templates, After: u.Offset - 1, Upto: u.Offset, Limit: MaxAPIPage})
		if err != nil {
			return err
		}
		for j := range cs {
			add(LedgerContractOf(s.l, &cs[j]))
		}
		if f.Templates == nil || slices.Contains(f.Templates, ledger.TemplateAmulet) {
			hs, err := store.UnlockedHoldingsChanged(ctx, tx, nil, u.Offset-1, u.Offset)
			if err != nil {
				return err
			}
			for _, h := range hs {
				add(s.holdingLedgerContract(h))
			}
		}
	}
	return nil
}

// witnessedBy reports whether a party of f is an informee of u's root
// exercise.
func witnessedBy(u *LedgerUpdate, f ContractFilter) bool {
	if f.Parties == nil {
		return true
	}
	for _, p := range Informees(*u, u.Exercise) {
		if slices.Contains(f.Parties, p) {
			return true
		}
	}
	return false
}
