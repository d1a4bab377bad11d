package registry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/reassign"
	"github.com/ccwallet/ccwallet/ledger/registry"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/go-cmp/cmp"
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

// TestRememberedRoundAndFeaturedRight: a factory answer remembers the
// usable round and the provider's featured-app right for a moment, but a
// change of this process shows in the very next answer: a right
// cancelled, a right granted, a round opened (ReferenceVersion).
func TestRememberedRoundAndFeaturedRight(t *testing.T) {
	// The test's clock stands still: nothing expires by time.
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, _ *ledgertest.Clock) {
		ctx := context.Background()
		s := registry.New(l)
		rights := featured.New(l)
		alice, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)
		if _, _, err := l.Preapprovals().Create(ctx, bob); err != nil {
			t.Fatal(err)
		}
		answer := func(when string, wantRight bool) registry.TransferFactory {
			t.Helper()
			for range 2 { // read, then remembered
				f, err := s.TransferFactoryFor(ctx, alice, bob)
				if err != nil {
					t.Fatalf("%s: %v", when, err)
				}
				r, err := l.UsableRound(ctx, l.DB())
				if err != nil {
					t.Fatal(err)
				}
				if got := f.Context.Values[registry.ContextOpenRound].Value; got != string(r.ContractID) {
					t.Fatalf("%s: open round %v, want the usable %s", when, got, r.ContractID)
				}
				right, err := l.FeaturedAppRightID(ctx, l.Operator())
				v, has := f.Context.Values[registry.ContextFeaturedAppRight]
				switch {
				case wantRight && (err != nil || !has || v.Value != string(right)):
					t.Fatalf("%s: featured right %v (%v), want %s (%v)", when, v.Value, has, right, err)
				case !wantRight && has:
					t.Fatalf("%s: featured right %v, want none", when, v.Value)
				}
			}
			f, _ := s.TransferFactoryFor(ctx, alice, bob)
			return f
		}
		first := answer("at first", true)
		if n, err := rights.Cancel(ctx, l.Operator()); err != nil || n == 0 {
			t.Fatalf("cancel: %d, %v", n, err)
		}
		answer("after the right was cancelled", false)
		if _, err := rights.SelfGrant(ctx, l.Operator()); err != nil {
			t.Fatal(err)
		}
		answer("after a right was granted", true)
		if _, err := l.Rounds().AdvanceRound(ctx); err != nil {
			t.Fatal(err)
		}
		last := answer("after a round opened", true)
		if last.Context.Values[registry.ContextOpenRound] == first.Context.Values[registry.ContextOpenRound] {
			t.Fatal("the round did not change: the test checks nothing")
		}
	})
}

// TestRememberedViewsFollowTheContracts: the views of disclosed
// contracts are remembered, but an answer still sees a contract
// archived or moved to another synchronizer since.
func TestRememberedViewsFollowTheContracts(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		s := registry.New(l)
		bob := ledgertest.Party(t, l)
		pre, _, err := l.Preapprovals().Create(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		rules := l.RulesContractID()
		var first []registry.DisclosedContract
		for i := range 2 { // read, then remembered
			got, err := registry.Disclosed(ctx, s, rules, pre)
			if err != nil || len(got) != 2 || got[0].Contract.ContractID != rules || got[1].Contract.ContractID != pre {
				t.Fatalf("disclosed = %+v, %v", got, err)
			}
			if i == 1 && !cmp.Equal(first, got) {
				t.Fatalf("remembered views differ (-read +remembered):\n%s", cmp.Diff(first, got))
			}
			first = got
		}
		const target = "global-domain::1220feedfeed"
		if err := reassign.New(l).Begin(ctx, rules, target); err != nil {
			t.Fatal(err)
		}
		if err := reassign.New(l).Complete(ctx, rules); err != nil {
			t.Fatal(err)
		}
		got, err := registry.Disclosed(ctx, s, rules)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Contract.SynchronizerID != target {
			t.Fatalf("after the reassignment: on %s, want synchronizer %s", got[0].Contract.SynchronizerID, target)
		}
		if err := l.Preapprovals().Cancel(ctx, bob); err != nil {
			t.Fatal(err)
		}
		if got, err := registry.Disclosed(ctx, s, rules, pre); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("after the preapproval's cancellation: %+v, %v; want ErrNotFound", got, err)
		}
	})
}
