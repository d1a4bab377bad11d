package registry_test

import (
	"context"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/registry"
	"github.com/ccwallet/ccwallet/store"
)

// TestRememberedFactory: the registry remembers the factory's ID, and
// answers with the one on the ledger when that changes: after a reset
// (the restore hook) and when the remembered one is gone (a factory that
// disclosing finds archived, or that never was).
func TestRememberedFactory(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		s := registry.New(l)
		onLedger := func() coin.ContractID {
			t.Helper()
			cs, err := store.ActiveContractsByTemplate(ctx, l.DB(), ledger.TemplateExternalPartyRule, l.DSO())
			if err != nil || len(cs) != 1 {
				t.Fatalf("factories on the ledger: %d, %v", len(cs), err)
			}
			return cs[0].ContractID
		}
		alice, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)
		check := func(when string) {
			t.Helper()
			want := onLedger()
			for range 2 { // read, then remembered
				f, err := s.TransferFactoryFor(ctx, alice, bob)
				if err != nil || f.FactoryID != want {
					t.Fatalf("%s: transfer factory %s, %v; want %s", when, f.FactoryID, err, want)
				}
				a, err := s.AllocationFactory(ctx)
				if err != nil || a.FactoryID != want {
					t.Fatalf("%s: allocation factory %s, %v; want %s", when, a.FactoryID, err, want)
				}
			}
		}
		check("at first")
		before := onLedger()
		if err := ledgertest.Dev(t, l).Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if onLedger() == before {
			t.Fatal("the reset kept the factory: the test checks nothing")
		}
		alice, bob = ledgertest.Party(t, l), ledgertest.Party(t, l)
		check("after a reset")
		registry.RememberFactory(s, "00gone")
		check("with a factory that is gone")
	})
}
