package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/google/go-cmp/cmp"
)

// TestBalanceAndHoldings: the home page's one read gives the same balance
// as Balance and the same holdings, in the same order, as Holdings.
func TestBalanceAndHoldings(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		for _, a := range []string{"5", "700", "5", "12.5", "0.3", "700"} {
			ledgertest.Mint(t, l, p, a)
		}
		// A locked one, counted in the balance's locked part.
		if _, err := l.MintLocked(ctx, p, coin.MustParse("12.5"), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := l.AdvanceRounds(ctx, 3); err != nil {
			t.Fatal(err)
		}
		type row struct {
			ID                      coin.ContractID
			Owner                   coin.PartyID
			Initial, Fee, Effective string
			Created, Expires        coin.Round
			Locked                  bool
			LockHolder              string
		}
		rows := func(hs []ledger.HoldingView) []row {
			var out []row
			for _, h := range hs {
				out = append(out, row{h.Contract.ContractID, h.Owner, h.Initial.String(), h.AccruedFee.String(), h.Effective.String(),
					h.CreatedRound, h.ExpiresAtRound, h.Locked, h.LockHolder})
			}
			return out
		}
		wantBal, err := l.Balance(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		wantHs, _, err := l.Holdings(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		bal, hs, err := l.BalanceAndHoldings(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantBal, bal); diff != "" {
			t.Errorf("balance (-Balance +BalanceAndHoldings):\n%s", diff)
		}
		if diff := cmp.Diff(rows(wantHs), rows(hs)); diff != "" {
			t.Errorf("holdings (-Holdings +BalanceAndHoldings):\n%s", diff)
		}
		if len(hs) != 7 || bal.LockedCount != 1 {
			t.Errorf("%d holdings, %d locked; want 7, 1", len(hs), bal.LockedCount)
		}
	})
}
