package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// airdropRecipient is an onboarded party with n holdings of 1, an active
// merge delegation and a transfer preapproval: what an airdrop needs.
func airdropRecipient(t *testing.T, l *ledger.Ledger, n int) coin.PartyID {
	t.Helper()
	p := ledgertest.Party(t, l)
	if n > 0 {
		mintMany(t, l, p, n, "1")
	}
	delegate(t, l, p)
	if _, _, err := l.CreatePreapproval(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAirdropWithAutoMerge: one airdrop pays three delegating parties
// exact amounts through their preapprovals and, in the same transaction,
// merges those that would otherwise hold more than MergeTarget; the
// operator pays the shares and their fees, the featured provider earns an
// app reward per share and per merge, and supply is conserved. Any
// refusal (a party without a merge delegation or a preapproval, too
// little coin, a bad list) leaves everything as it was.
func TestAirdropWithAutoMerge(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		op := l.Operator()
		ledgertest.Mint(t, l, op, "1000")
		a, b, c := airdropRecipient(t, l, 30), airdropRecipient(t, l, 3), airdropRecipient(t, l, ledger.MergeTarget)
		noDelegation := ledgertest.Party(t, l)
		if _, _, err := l.CreatePreapproval(ctx, noDelegation); err != nil {
			t.Fatal(err)
		}
		noPreapproval := ledgertest.Party(t, l)
		delegate(t, l, noPreapproval)

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
				s.balances[p], s.counts[p] = balance(p).String(), holdingCount(t, l, p)
			}
			cs, err := l.RewardCoupons(ctx, op, ledger.RewardApp)
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
		share := func(p coin.PartyID, amount string) ledger.AirdropShare {
			return ledger.AirdropShare{Party: p, Amount: coin.MustParse(amount)}
		}

		before := snapshot()
		refusals := []struct {
			name   string
			shares []ledger.AirdropShare
			check  func(error) bool
		}{
			{"no merge delegation", []ledger.AirdropShare{share(a, "1"), share(noDelegation, "1")}, func(err error) bool { return errors.Is(err, ledger.ErrConflict) }},
			{"no preapproval", []ledger.AirdropShare{share(a, "1"), share(noPreapproval, "1")}, ledger.IsValidation},
			{"too little coin", []ledger.AirdropShare{share(a, "1"), share(b, "5000")}, func(err error) bool { return errors.Is(err, ledger.ErrInsufficientFunds) }},
			{"twice", []ledger.AirdropShare{share(a, "1"), share(a, "1")}, ledger.IsValidation},
			{"zero", []ledger.AirdropShare{share(a, "0")}, ledger.IsValidation},
			{"to the operator", []ledger.AirdropShare{share(op, "1")}, ledger.IsValidation},
			{"nobody", nil, ledger.IsValidation},
			{"too many", make([]ledger.AirdropShare, ledger.MaxAirdropRecipients+1), ledger.IsValidation},
		}
		for _, r := range refusals {
			if _, err := l.Airdrop(ctx, ledger.AirdropRequest{Shares: r.shares, Description: "drop"}); !r.check(err) {
				t.Errorf("%s: err = %v", r.name, err)
			}
		}
		unchanged("the refused airdrops", before)

		req := ledger.AirdropRequest{Shares: []ledger.AirdropShare{share(a, "1.5"), share(b, "2.25"), share(c, "0.0000000001")},
			Description: "launch", CommandID: "launch-1"}
		res, err := l.Airdrop(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		// A retry of the same command pays nobody again: it answers the
		// first result.
		done := snapshot()
		if again, err := l.Airdrop(ctx, req); err != nil || fmt.Sprint(again) != fmt.Sprint(res) {
			t.Errorf("retry = %+v, %v; want %+v", again, err, res)
		}
		unchanged("the retried airdrop", done)
		// a: 30 + 1 -> merge 22 into one -> 10; b: 3 + 1, no merge; c: 10 + 1 -> merge 2 -> 10.
		if res.Merges != 2 || res.MergedInputs != 24 || !res.Total.Equal(coin.MustParse("3.7500000001")) || res.UpdateID == "" {
			t.Errorf("result %+v", res)
		}
		for p, n := range map[coin.PartyID]int{a: ledger.MergeTarget, b: 4, c: ledger.MergeTarget} {
			if got := holdingCount(t, l, p); got != n {
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
			subs := historySubtypes(t, l, p)
			if !slices.Contains(subs, "TransferPreapprovalSend") || !slices.Contains(subs, ledger.MergeHistorySubtype) {
				t.Errorf("%s history %v: want the send and the merge", p, subs)
			}
		}
		ledgertest.Conserved(t, l)
	})
}
