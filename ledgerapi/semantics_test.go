package ledgerapi_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/ledger"
)

// TestInterfaceFilterOfServedPackage: an interface filter on an interface
// of a package this participant serves that nothing here implements
// (AllocationInstruction, AnyContract) is valid and matches nothing, as on
// Canton, beside one that matches; the wallet SDK's listHoldingTransactions
// and getTransactionById send such filters.
func TestInterfaceFilterOfServedPackage(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.user("alice", "10")
		end := e.ledgerEnd()
		for _, iface := range []string{ledger.InterfaceAllocationInstruction, ledger.InterfaceAnyContract} {
			if got := e.acs("alice", filter(alice, interfaceFilter(iface, true, false)), end); len(got) != 0 {
				t.Errorf("%s: %d contracts, want none", iface, len(got))
			}
			got := e.acs("alice", filter(alice, interfaceFilter(iface, true, false), interfaceFilter(ledger.InterfaceHolding, true, false)), end)
			if len(got) != 1 || len(got[0].InterfaceViews) != 1 || got[0].InterfaceViews[0].InterfaceID == "" {
				t.Errorf("%s with Holding: %+v, want alice's one holding with its Holding view", iface, got)
			}
			ups := e.flats("alice", map[string]any{"beginExclusive": 0, "verbose": false,
				"updateFormat": acsDelta(filter(alice, interfaceFilter(iface, true, false), interfaceFilter(ledger.InterfaceHolding, true, false)))}, 50)
			n := 0
			for _, u := range ups {
				if u.Update.Transaction != nil {
					n++
				}
			}
			if n == 0 {
				t.Errorf("%s with Holding on updates: no transaction, want alice's mint", iface)
			}
		}
	})
}
