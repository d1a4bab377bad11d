package ledgertest

import (
	"context"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/history"
)

// HistorySubtypes is p's history's subtypes, newest first.
func HistorySubtypes(t *testing.T, l *ledger.Ledger, p coin.PartyID) []string {
	t.Helper()
	items, err := history.New(l).List(context.Background(), p, history.Query{PageSize: history.MaxPage})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		out = append(out, it.Subtype)
	}
	return out
}

// HoldingCount is how many holdings p has.
func HoldingCount(t *testing.T, l *ledger.Ledger, p coin.PartyID) int {
	t.Helper()
	b, err := l.Balance(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return b.Count
}

// MintMany mints n holdings of amount to p.
func MintMany(t *testing.T, l *ledger.Ledger, p coin.PartyID, n int, amount string) {
	t.Helper()
	as := make([]coin.Amount, n)
	for i := range as {
		as[i] = coin.MustParse(amount)
	}
	if err := Dev(t, l).MintBulk(context.Background(), p, as); err != nil {
		t.Fatal(err)
	}
}

// Delegate gives p an active merge delegation (proposed and accepted).
func Delegate(t *testing.T, l *ledger.Ledger, p coin.PartyID) delegations.MergeDelegation {
	t.Helper()
	ctx := context.Background()
	dg := delegations.New(l)
	prop, err := dg.ProposeMergeDelegation(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dg.AcceptMergeDelegation(ctx, prop.Contract.ContractID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// AirdropRecipient is an onboarded party with n holdings of 1, an active
// merge delegation and a transfer preapproval: what an airdrop needs.
func AirdropRecipient(t *testing.T, l *ledger.Ledger, n int) coin.PartyID {
	t.Helper()
	p := Party(t, l)
	if n > 0 {
		MintMany(t, l, p, n, "1")
	}
	Delegate(t, l, p)
	if _, _, err := l.Preapprovals().Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}
