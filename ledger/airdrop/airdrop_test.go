package airdrop_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/airdrop"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/rewards"
)

// TestAirdropWithAutoMerge: one airdrop pays three delegating parties
// exact amounts through their preapprovals and, in the same transaction,
// merges those that would otherwise hold more than MergeTarget; the
// operator pays the shares and their fees, the featured provider earns an
// app reward per share and per merge, and supply is conserved. Any
// refusal (a party without a merge delegation or a preapproval, too
// little coin, a bad list) leaves everything as it was.
func TestAirdropWithAutoMerge(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		op := l.Operator()
		ledgertest.Mint(t, l, op, "1000")
		a, b, c := ledgertest.AirdropRecipient(t, l, 30), ledgertest.AirdropRecipient(t, l, 3), ledgertest.AirdropRecipient(t, l, ledger.MergeTarget)
		noDelegation := ledgertest.Party(t, l)
		if _, _, err := l.Preapprovals().Create(ctx, noDelegation); err != nil {
			t.Fatal(err)
		}
		noPreapproval := ledgertest.Party(t, l)
		ledgertest.Delegate(t, l, noPreapproval)

		balance := func(p coin.PartyID) coin.Amount {
			t.Helper()
			bal, err := l.Balance(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			return bal.EffectiveUnlocked
		}
		type state struct {
			balances map[coin.PartyID]string
			counts   map[coin.PartyID]int
			coupons  int
		}
		snapshot := func() state {
			s := state{balances: map[coin.PartyID]string{}, counts: map[coin.PartyID]int{}}
			for _, p := range []coin.PartyID{op, a, b, c, noDelegation, noPreapproval} {
				s.balances[p], s.counts[p] = balance(p).String(), ledgertest.HoldingCount(t, l, p)
			}
			cs, err := rewards.New(l).Coupons(ctx, op, ledger.RewardApp)
			if err != nil {
				t.Fatal(err)
			}
			s.coupons = len(cs)
			return s
		}
		unchanged := func(what string, before state) {
			t.Helper()
			after := snapshot()
			if fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("%s changed the ledger:\n%+v\n%+v", what, before, after)
			}
		}
		share := func(p coin.PartyID, amount string) airdrop.Share {
			return airdrop.Share{Party: p, Amount: coin.MustParse(amount)}
		}

		before := snapshot()
		refusals := []struct {
			name   string
			shares []airdrop.Share
			check  func(error) bool
		}{
			{"no merge delegation", []airdrop.Share{share(a, "1"), share(noDelegation, "1")}, func(err error) bool { return errors.Is(err, fault.ErrConflict) }},
			{"no preapproval", []airdrop.Share{share(a, "1"), share(noPreapproval, "1")}, fault.IsValidation},
			{"too little coin", []airdrop.Share{share(a, "1"), share(b, "5000")}, func(err error) bool { return errors.Is(err, fault.ErrInsufficientFunds) }},
			{"twice", []airdrop.Share{share(a, "1"), share(a, "1")}, fault.IsValidation},
			{"zero", []airdrop.Share{share(a, "0")}, fault.IsValidation},
			{"to the operator", []airdrop.Share{share(op, "1")}, fault.IsValidation},
			{"nobody", nil, fault.IsValidation},
			{"too many", make([]airdrop.Share, airdrop.MaxRecipients+1), fault.IsValidation},
		}
		for _, r := range refusals {
			if _, err := airdrop.New(l).Airdrop(ctx, airdrop.Request{Shares: r.shares, Description: "drop"}); !r.check(err) {
				t.Errorf("%s: err = %v", r.name, err)
			}
		}
		unchanged("the refused airdrops", before)

		req := airdrop.Request{Shares: []airdrop.Share{share(a, "1.5"), share(b, "2.25"), share(c, "0.0000000001")},
			Description: "launch", CommandID: "launch-1"}
		res, err := airdrop.New(l).Airdrop(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		// A retry of the same command pays nobody again: it answers the
		// first result.
		done := snapshot()
		if again, err := airdrop.New(l).Airdrop(ctx, req); err != nil || fmt.Sprint(again) != fmt.Sprint(res) {
			t.Errorf("retry = %+v, %v; want %+v", again, err, res)
		}
		unchanged("the retried airdrop", done)
		// a: 30 + 1 -> merge 22 into one -> 10; b: 3 + 1, no merge; c: 10 + 1 -> merge 2 -> 10.
		if res.Merges != 2 || res.MergedInputs != 24 || !res.Total.Equal(coin.MustParse("3.7500000001")) || res.UpdateID == "" {
			t.Errorf("result %+v", res)
		}
		for p, n := range map[coin.PartyID]int{a: ledger.MergeTarget, b: 4, c: ledger.MergeTarget} {
			if got := ledgertest.HoldingCount(t, l, p); got != n {
				t.Errorf("%s has %d holdings, want %d", p, got, n)
			}
		}
		for p, amount := range map[coin.PartyID]string{a: "1.5", b: "2.25", c: "0.0000000001"} {
			want := coin.MustParse(before.balances[p]).Add(coin.MustParse(amount))
			if got := balance(p); !got.Equal(want) {
				t.Errorf("%s has %s, want %s", p, got, want)
			}
		}
		// No round passed: the operator's inputs owed no holding fee.
		if want := coin.MustParse(before.balances[op]).Sub(res.Total).Sub(res.Fees); !balance(op).Equal(want) {
			t.Errorf("operator has %s, want %s (paid %s and fees %s)", balance(op), want, res.Total, res.Fees)
		}
		if got := snapshot().coupons - before.coupons; got != 3+2 {
			t.Errorf("%d new app reward coupons, want one per share and per merge (5)", got)
		}
		for _, p := range []coin.PartyID{a, c} {
			subs := ledgertest.HistorySubtypes(t, l, p)
			if !slices.Contains(subs, "TransferPreapprovalSend") || !slices.Contains(subs, ledger.MergeHistorySubtype) {
				t.Errorf("%s history %v: want the send and the merge", p, subs)
			}
		}
		ledgertest.Conserved(t, l)
	})
}

// TestAirdropRewardFollowsFeaturedRight: once the operator's right is
// cancelled, an airdrop earns it no app reward, neither for the share
// nor for the merge it does on the way.
func TestAirdropRewardFollowsFeaturedRight(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		op := l.Operator()
		ledgertest.Mint(t, l, op, "100")
		p := ledgertest.AirdropRecipient(t, l, ledger.MergeTarget+3)
		if _, err := featured.New(l).Cancel(ctx, op); err != nil {
			t.Fatal(err)
		}
		before, err := rewards.New(l).Coupons(ctx, op, ledger.RewardApp)
		if err != nil {
			t.Fatal(err)
		}
		res, err := airdrop.New(l).Airdrop(ctx, airdrop.Request{Shares: []airdrop.Share{{Party: p, Amount: coin.MustParse("1")}}, Description: "drop"})
		if err != nil || res.Merges != 1 {
			t.Fatalf("airdrop = %+v, %v; want one merge", res, err)
		}
		after, err := rewards.New(l).Coupons(ctx, op, ledger.RewardApp)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(after) - len(before); n != 0 {
			t.Errorf("an airdrop by an unfeatured operator earned %d app rewards, want none", n)
		}
		ledgertest.Conserved(t, l)
	})
}

func TestMain(m *testing.M) { ledgertest.Main(m) }
