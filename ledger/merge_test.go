package ledger_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// mintingDelegation gives the external party ext (signing with key) an
// accepted minting delegation to the operator with merge limit limit.
func mintingDelegation(t *testing.T, l *ledger.Ledger, ext coin.PartyID, key []byte, expires time.Time, limit int) coin.ContractID {
	t.Helper()
	ctx := context.Background()
	p, err := l.PrepareMintingDelegationProposal(ctx, ext, expires, limit)
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Submit(ctx, ledgertest.Sign(t, ext, key, p))
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.AcceptMintingDelegationProposal(ctx, l.Operator(), r.ContractID)
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
		gone, err := l.Onboard(ctx, "gone-user", "")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Offboard(ctx, "gone-user"); err != nil {
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
		coupons, err := l.RewardCoupons(ctx, op, ledger.RewardApp)
		if err != nil {
			t.Fatal(err)
		}

		if _, err := l.MergeHoldings(ctx); err != nil {
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
		if after, _ := l.RewardCoupons(ctx, op, ledger.RewardApp); len(after) != len(coupons) {
			t.Errorf("app reward coupons %d -> %d, want no new ones", len(coupons), len(after))
		}
		for p, sub := range map[coin.PartyID]string{op: ledger.WalletMergeHistorySubtype, user: ledger.WalletMergeHistorySubtype, ext: ledger.MintingMergeHistorySubtype} {
			if !slices.Contains(historySubtypes(t, l, p), sub) {
				t.Errorf("%s: no %s history row", p, sub)
			}
		}
		if pending, err := l.PendingMerges(ctx); err != nil || len(pending) != 0 {
			t.Errorf("pending merges after the run = %+v, %v; want none", pending, err)
		}
	})
}
