package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
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
		if _, err := devnet.New(l).AdvanceRounds(ctx, 3); err != nil {
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
		wantHs, _, err := holdingsview.New(l).List(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		bal, hs, err := holdingsview.New(l).BalanceAndHoldings(ctx, p)
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

// TestHoldingContracts: an unlocked holding's contract is built from its
// row (no contracts row), with the payload, time and blob a created event
// carries; spending it records it in spent_holdings at the spending
// update's offset, as it was (store's TestWriteSpendGuard and
// TestGuardsAndErrors refuse a second spend).
func TestHoldingContracts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		db := ledger.StoreOf(l)
		alice, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)
		in := ledgertest.Mint(t, l, alice, "100")
		res, err := l.Transfer(ctx, ledger.TransferRequest{Sender: alice, Receiver: bob, Amount: coin.MustParse("40")})
		if err != nil {
			t.Fatal(err)
		}
		hs, _, err := holdingsview.New(l).List(ctx, bob)
		if err != nil || len(hs) != 1 {
			t.Fatalf("bob's holdings %v, %v", hs, err)
		}
		c := hs[0].Contract
		var p struct {
			DSO    coin.PartyID `json:"dso"`
			Owner  coin.PartyID `json:"owner"`
			Amount struct {
				InitialAmount coin.Amount `json:"initialAmount"`
				CreatedAt     struct {
					Number string `json:"number"`
				} `json:"createdAt"`
			} `json:"amount"`
		}
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if c.ContractID != res.Outputs[0] || c.TemplateID != ledger.TemplateAmulet || p.Owner != bob || p.DSO == "" ||
			!p.Amount.InitialAmount.Equal(coin.MustParse("40")) || p.Amount.CreatedAt.Number != fmt.Sprint(int64(hs[0].CreatedRound)) ||
			c.CreatedAt.IsZero() || c.SynchronizerID != l.SynchronizerID() || c.Archived {
			t.Errorf("bob's holding contract %+v, payload %s", c, c.Payload)
		}
		if id, tmpl, err := l.VerifyBlob(c.CreatedEventBlob); err != nil || id != c.ContractID || tmpl != ledger.TemplateAmulet {
			t.Errorf("blob: %s %s %v", id, tmpl, err)
		}
		if n, err := db.NewSelect().Table("contracts").Where("contract_id IN (?)", bun.List([]coin.ContractID{in, c.ContractID})).Count(ctx); err != nil || n != 0 {
			t.Errorf("%d contracts rows for unlocked holdings (%v), want none", n, err)
		}
		var spent []store.SpentHolding
		if err := db.NewSelect().Model(&spent).Scan(ctx); err != nil {
			t.Fatal(err)
		}
		var hist []store.HistoryEntry
		if err := db.NewSelect().Model(&hist).Where("party = ?", alice).Where("kind = ?", "transfer").Scan(ctx); err != nil || len(hist) != 1 {
			t.Fatalf("alice's transfer history %v, %v", hist, err)
		}
		if len(spent) != 1 || spent[0].ContractID != in || spent[0].Owner != alice || !spent[0].Amount.Equal(coin.MustParse("100")) ||
			spent[0].SpentOffset != hist[0].OffsetID || spent[0].CreatedOffset == 0 || spent[0].CreatedOffset >= spent[0].SpentOffset {
			t.Errorf("spent holdings %+v, want alice's input spent at offset %d", spent, hist[0].OffsetID)
		}
	})
}
