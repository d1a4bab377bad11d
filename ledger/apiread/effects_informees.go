package apiread

import (
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/commands"
)

// Informees are the parties who witness e, the root exercise of u (or the
// exercise nested in it), as Daml's ledger model has them: its acting
// parties, its choice observers, and, when it consumes its contract, that
// contract's stakeholders (the signatories and observers of the
// instruction a receiver accepts see the accept, with everything under
// it). The consumed contract is known from u's events, when the reader's
// filter selected its archive.
func Informees(u LedgerUpdate, e *commands.Exercise) []coin.PartyID {
	out := slices.Concat(e.ActingParties, e.Observers)
	if e.Consuming {
		for _, ev := range u.Events {
			if ev.Archived && ev.Contract.ContractID == e.ContractID {
				out = append(out, ev.Contract.Stakeholders()...)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
