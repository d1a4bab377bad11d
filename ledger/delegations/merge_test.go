package delegations_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/rewards"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

var (
	forEachEngine      = ledgertest.ForEachEngine
	forEachEngineClock = ledgertest.ForEachEngineClock
	historySubtypes    = ledgertest.HistorySubtypes
	holdingCount       = ledgertest.HoldingCount
	mintMany           = ledgertest.MintMany
	delegate           = ledgertest.Delegate
)

// mintingDelegation gives the external party ext (signing with key) an
// accepted minting delegation to the operator with merge limit limit.
func mintingDelegation(t *testing.T, l *ledger.Ledger, ext coin.PartyID, key []byte, expires time.Time, limit int) coin.ContractID {
	t.Helper()
	ctx := context.Background()
	p, err := delegations.New(l).PrepareMintingDelegationProposal(ctx, ext, expires, limit)
	if err != nil {
		t.Fatal(err)
	}
	r, err := external.New(l, delegations.PreparedKinds(l)...).Submit(ctx, ledgertest.Sign(t, ext, key, p))
	if err != nil {
		t.Fatal(err)
	}
	d, err := delegations.New(l).AcceptMintingDelegationProposal(ctx, l.Operator(), r.ContractID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestMergeHoldingsOfEveryPartyTheWalletActsFor: the merge automation
// brings the operator and every onboarded user's party down to
// MergeTarget (with or without a merge delegation), and an external party
// with a minting delegation down to the delegation's merge limit (5 of 8
// here, where the old automation merged only merge delegations, to 10).
// External parties without a live delegation and offboarded users' parties
// are left alone: the wallet does not act for them.
func TestMergeHoldingsOfEveryPartyTheWalletActsFor(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		op := l.Operator()
		user := ledgertest.Party(t, l)
		ext, key := ledgertest.ExternalParty(t, l, "ext-limited")
		loose, _ := ledgertest.ExternalParty(t, l, "ext-loose")
		lapsed, lapsedKey := ledgertest.ExternalParty(t, l, "ext-lapsed")
		gone, err := users.Of(l).Onboard(ctx, "gone-user", "")
		if err != nil {
			t.Fatal(err)
		}
		if err := userrights.New(l).Offboard(ctx, "gone-user"); err != nil {
			t.Fatal(err)
		}
		mintingDelegation(t, l, ext, key, clock.Now().Add(48*time.Hour), 5)
		mintingDelegation(t, l, lapsed, lapsedKey, clock.Now().Add(time.Hour), 3)
		clock.Advance(2 * time.Hour) // lapsed's delegation has expired

		opBefore := holdingCount(t, l, op)
		mintMany(t, l, op, 40, "1")
		mintMany(t, l, user, 30, "1")
		mintMany(t, l, ext, 8, "1")
		for _, p := range []coin.PartyID{loose, lapsed, gone} {
			mintMany(t, l, p, 20, "1")
		}
		supply := ledgertest.Conserved(t, l)
		coupons, err := rewards.New(l).Coupons(ctx, op, ledger.RewardApp)
		if err != nil {
			t.Fatal(err)
		}

		if _, err := delegations.New(l).MergeHoldings(ctx); err != nil {
			t.Fatal(err)
		}
		want := map[coin.PartyID]int{op: ledger.MergeTarget, user: ledger.MergeTarget, ext: 5, loose: 20, lapsed: 20, gone: 20}
		if opBefore+40 <= ledger.MergeTarget {
			t.Fatalf("operator has only %d holdings", opBefore+40)
		}
		for p, n := range want {
			if got := holdingCount(t, l, p); got != n {
				t.Errorf("%s has %d holdings, want %d", p, got, n)
			}
		}
		if after := ledgertest.Conserved(t, l); !after.Minted.Sub(after.Burned).Equal(supply.Minted.Sub(supply.Burned)) {
			t.Errorf("supply %s -> %s", supply.Minted.Sub(supply.Burned), after.Minted.Sub(after.Burned))
		}
		// The wallet's own merges and a minting delegation's are not
		// MergeDelegation merges: no featured app reward, their own subtype.
		if after, _ := rewards.New(l).Coupons(ctx, op, ledger.RewardApp); len(after) != len(coupons) {
			t.Errorf("app reward coupons %d -> %d, want no new ones", len(coupons), len(after))
		}
		for p, sub := range map[coin.PartyID]string{op: delegations.WalletMergeHistorySubtype, user: delegations.WalletMergeHistorySubtype, ext: delegations.MintingMergeHistorySubtype} {
			if !slices.Contains(historySubtypes(t, l, p), sub) {
				t.Errorf("%s: no %s history row", p, sub)
			}
		}
		if pending, err := delegations.New(l).PendingMerges(ctx); err != nil || len(pending) != 0 {
			t.Errorf("pending merges after the run = %+v, %v; want none", pending, err)
		}
	})
}

func TestMergeHoldingsBoundaries(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		atTarget, above := ledgertest.Party(t, l), ledgertest.Party(t, l)
		// External parties: the wallet merges an onboarded user's party
		// with or without a delegation, an external one only with.
		noDelegation, _ := ledgertest.ExternalParty(t, l, "ext-nodelegation")
		withdrawn, _ := ledgertest.ExternalParty(t, l, "ext-withdrawn")
		mintMany(t, l, atTarget, ledger.MergeTarget, "1")
		mintMany(t, l, above, ledger.MergeTarget+1, "1")
		mintMany(t, l, noDelegation, 50, "1")
		mintMany(t, l, withdrawn, 50, "1")
		delegate(t, l, atTarget)
		delegate(t, l, above)
		d := delegate(t, l, withdrawn)
		if err := delegations.New(l).WithdrawMergeDelegation(ctx, withdrawn, d.Contract.ContractID); err != nil {
			t.Fatal(err)
		}
		if err := delegations.New(l).WithdrawMergeDelegation(ctx, above, d.Contract.ContractID); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("withdrawing another party's delegation = %v, want ErrNotFound", err)
		}
		pending, err := delegations.New(l).PendingMerges(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]delegations.PendingMerge{{Party: above, Holdings: ledger.MergeTarget + 1, Target: ledger.MergeTarget}}, pending); diff != "" {
			t.Errorf("pending merges (-want +got):\n%s", diff)
		}
		rep, err := delegations.New(l).MergeHoldings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(delegations.MergeReport{Parties: 1, Merges: 1, Inputs: 2}, rep); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
		for p, want := range map[coin.PartyID]int{atTarget: 10, above: 10, noDelegation: 50, withdrawn: 50} {
			if got := holdingCount(t, l, p); got != want {
				t.Errorf("%s has %d holdings, want %d", p, got, want)
			}
		}
		if !slices.Contains(historySubtypes(t, l, above), ledger.MergeHistorySubtype) {
			t.Error("no merge history entry")
		}
		// The featured provider earned one app reward for the merge.
		cs, err := rewards.New(l).Coupons(ctx, l.Operator(), ledger.RewardApp)
		if err != nil || len(cs) != 1 {
			t.Errorf("app reward coupons = %d, %v; want 1", len(cs), err)
		}
		if _, err := delegations.New(l).ProposeMergeDelegation(ctx, above); !errors.Is(err, fault.ErrConflict) {
			t.Errorf("second delegation = %v, want ErrConflict", err)
		}
	})
}

// TestMergeTenThousandHoldings brings one party from 10,000 holdings to at
// most 10 with batches of at most 100 inputs; the balance and the supply
// are unchanged (no round passed, so no holding fee was due).
func TestMergeTenThousandHoldings(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		mintMany(t, l, p, 10_000, "0.5")
		before, _ := l.Balance(ctx, p)
		if _, err := delegations.New(l).ProposeMergeDelegation(ctx, p); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		rep, err := delegations.New(l).MergeHoldings(ctx) // accepts the proposal, then merges
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("merged %d inputs in %d merges in %s", rep.Inputs, rep.Merges, time.Since(start))
		after, _ := l.Balance(ctx, p)
		if after.Count > ledger.MergeTarget {
			t.Errorf("%d holdings left, want at most %d", after.Count, ledger.MergeTarget)
		}
		if !after.EffectiveUnlocked.Equal(before.EffectiveUnlocked) {
			t.Errorf("balance %s -> %s", before.EffectiveUnlocked, after.EffectiveUnlocked)
		}
		if rep.Merges < 100 || rep.Inputs/rep.Merges > l.Rules().MaxNumInputs {
			t.Errorf("report %+v: want batches of at most %d inputs", rep, l.Rules().MaxNumInputs)
		}
		ledgertest.Conserved(t, l)
	})
}

func TestMergeDelegationAtOnboarding(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			l, err := ledgertest.OpenLedger(ctx, ledgertest.DB(t, e), ledger.Config{AdminUsers: []string{"admin"}, DevNet: true, MergeDelegationAtOnboarding: true})
			if err != nil {
				t.Fatal(err)
			}
			p, err := users.Of(l).Onboard(ctx, "carol", "")
			if err != nil {
				t.Fatal(err)
			}
			ds, err := delegations.New(l).MergeDelegations(ctx, p)
			if err != nil || len(ds) != 1 || ds[0].Status != delegations.MergeProposed || ds[0].Contract.TemplateID != delegations.TemplateMergeDelegationProposal {
				t.Fatalf("after onboarding: %+v, %v; want one proposal", ds, err)
			}
			// The provider's automation accepts it; re-onboarding adds none.
			if _, err := delegations.New(l).MergeHoldings(ctx); err != nil {
				t.Fatal(err)
			}
			if err := userrights.New(l).Offboard(ctx, "carol"); err != nil {
				t.Fatal(err)
			}
			if _, err := users.Of(l).Onboard(ctx, "carol", ""); err != nil {
				t.Fatal(err)
			}
			ds, _ = delegations.New(l).MergeDelegations(ctx, p)
			if len(ds) != 1 || ds[0].Status != delegations.MergeActive {
				t.Errorf("after re-onboarding: %+v; want the one active delegation", ds)
			}
			// The operator's own party gets none.
			if ds, _ := delegations.New(l).MergeDelegations(ctx, l.Operator()); len(ds) != 0 {
				t.Errorf("operator has %d merge delegations", len(ds))
			}
		})
	}
}

// TestMergeStaysWithinLimit: a party whose holdings together are more than
// one holding can hold (coin.MaxAmount) is merged only as far as the
// limit allows; the merge neither fails (Postgres: numeric field overflow)
// nor stores an amount past the limit (SQLite).
func TestMergeStaysWithinLimit(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		rich := ledgertest.Party(t, l)
		big := "6" + strings.Repeat("0", 27) // two of them are past the limit
		for range ledger.MergeTarget + 1 {
			ledgertest.Mint(t, l, rich, big)
		}
		delegate(t, l, rich)
		if _, err := delegations.New(l).MergeHoldings(context.Background()); err != nil {
			t.Fatalf("merge: %v", err)
		}
		hs, _, err := holdingsview.New(l).List(context.Background(), rich)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			if !h.Initial.Fits() {
				t.Errorf("a holding of %s is past the limit", h.Initial)
			}
		}
		ledgertest.Conserved(t, l)
	})
}
