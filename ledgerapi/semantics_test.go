package ledgerapi_test

import (
	"testing"

	"github.com/ccwallet/ccwallet/coin"
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

// TestNullOptionalsPrepareAndExecute: an optional field sent as null
// (lock: null inside the transfer, as clients send it) passes prepare and
// execute alike.
func TestNullOptionalsPrepareAndExecute(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		alice := e.external("alice-ext", "100")
		bob := e.user("bob", "")
		var inputs []string
		for _, h := range e.acs(alice.user, filter(alice.party, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()) {
			inputs = append(inputs, h.ContractID)
		}
		cmd, disclose := e.transferCommand(alice.party, bob, "25.0000000000", inputs)
		arg := cmd["ExerciseCommand"].(map[string]any)["choiceArgument"].(map[string]any)
		arg["transfer"].(map[string]any)["lock"] = nil
		e.run(alice, "null-lock", cmd, disclose)
		accept, acceptCtx := e.acceptCommand("bob", bob) // the one instruction to bob
		e.mustCommand("bob", "a1", bob, accept, acceptCtx)
		if got := e.holds("bob", bob); !got.Equal(coin.MustParse("25")) {
			t.Errorf("bob holds %s, want 25", got)
		}
		// And through submit-and-wait.
		back, backCtx := e.transferCommand(bob, alice.party, "5.0", []string{})
		back["ExerciseCommand"].(map[string]any)["choiceArgument"].(map[string]any)["transfer"].(map[string]any)["lock"] = nil
		e.mustCommand("bob", "b1", bob, back, backCtx)
	})
}
