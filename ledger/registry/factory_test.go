package registry_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/reassign"
	"github.com/ccwallet/ccwallet/ledger/registry"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
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
				right, err := featured.RightID(ctx, l.DB(), l.Operator())
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
		if got, err := registry.Disclosed(ctx, s, rules, pre); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("after the preapproval's cancellation: %+v, %v; want ErrNotFound", got, err)
		}
	})
}

// statements counts the statements run on a ledger's database handle
// while on.
type statements struct{ on, n atomic.Int64 }

func (c *statements) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (c *statements) AfterQuery(context.Context, *bun.QueryEvent) {
	if c.on.Load() != 0 {
		c.n.Add(1)
	}
}

// TestRememberedAnswers: a transfer-factory answer is remembered by
// receiver and then reads nothing, for any sender and across sends that
// archive no contract; but a change of this process to what it depends
// on shows in the very next answer (a preapproval cancelled, created or
// renewed), as do its preapproval's expiry and the passing of a second.
func TestRememberedAnswers(t *testing.T) {
	// The test's clock stands still: nothing expires but by Advance.
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		s := registry.New(l)
		alice, bob, carol := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "100")
		var count statements
		//lint:ignore SA1019 WithQueryHook returns a copy; the ledger's own handle must count
		l.DB().AddQueryHook(&count)
		answer := func(when string, sender coin.PartyID, want ledger.TransferKind, pre coin.ContractID) (reads int64) {
			t.Helper()
			count.n.Store(0)
			count.on.Store(1)
			f, err := s.TransferFactoryFor(ctx, sender, bob)
			count.on.Store(0)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			got := f.Context.Values[registry.ContextTransferPreapprove].Value
			if f.Kind != want || (pre != "" && got != string(pre)) || (pre == "" && got != nil) {
				t.Fatalf("%s: %s through %v; want %s through %q", when, f.Kind, got, want, pre)
			}
			return count.n.Load()
		}
		remembered := func(when string, sender coin.PartyID, want ledger.TransferKind, pre coin.ContractID) {
			t.Helper()
			if n := answer(when, sender, want, pre); n != 0 {
				t.Fatalf("%s: the remembered answer ran %d statements", when, n)
			}
		}
		read := func(when string, sender coin.PartyID, want ledger.TransferKind, pre coin.ContractID) {
			t.Helper()
			if n := answer(when, sender, want, pre); n == 0 {
				t.Fatalf("%s: the answer was remembered; want it read afresh", when)
			}
		}
		read("at first", alice, ledger.TransferOffer, "")
		remembered("again", carol, ledger.TransferOffer, "")
		pre, _, err := l.Preapprovals().Create(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		read("after bob's preapproval was created", alice, ledger.TransferDirect, pre)
		remembered("for another sender", carol, ledger.TransferDirect, pre)
		if _, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: alice, Receiver: bob, Amount: coin.MustParse("1"), DeduplicationID: "remembered"}); err != nil {
			t.Fatal(err)
		}
		remembered("after a send to bob", alice, ledger.TransferDirect, pre)
		renewed, err := l.Preapprovals().Renew(ctx, pre)
		if err != nil || renewed == pre {
			t.Fatalf("renew: %s, %v", renewed, err)
		}
		read("after the renewal", alice, ledger.TransferDirect, renewed)
		clock.Advance(time.Second)
		read("a second later", alice, ledger.TransferDirect, renewed)
		p, err := store.LiveTransferPreapproval(ctx, l.DB(), bob)
		if err != nil {
			t.Fatal(err)
		}
		clock.Set(p.ExpiresAt.Add(-time.Millisecond))
		read("just before the expiry", alice, ledger.TransferDirect, renewed)
		clock.Advance(time.Millisecond)
		answer("at the expiry", alice, ledger.TransferOffer, "")
		clock.Set(p.ExpiresAt.Add(-time.Hour))
		if _, err := l.Preapprovals().Renew(ctx, renewed); err != nil {
			t.Fatal(err)
		}
		f, _ := s.TransferFactoryFor(ctx, alice, bob)
		if f.Kind != ledger.TransferDirect {
			t.Fatalf("after the second renewal: %s", f.Kind)
		}
		if err := l.Preapprovals().Cancel(ctx, bob); err != nil {
			t.Fatal(err)
		}
		read("after the cancellation", alice, ledger.TransferOffer, "")
	})
}
