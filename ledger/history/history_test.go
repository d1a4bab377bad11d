package history_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestHistoryBothSides: a transfer is one history row that both parties
// read, each as its own view (amount, fees, counterparty), newest first,
// merged with the party's other rows; the kind and counterparty filters
// and paging by id see both kinds of row.
func TestHistoryBothSides(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		a, b, c := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "100")
		ledgertest.Mint(t, l, b, "50")
		send := func(from, to coin.PartyID, amount, desc string) *ledger.TransferResult {
			t.Helper()
			r, err := l.Transfer(ctx, ledger.TransferRequest{Sender: from, Receiver: to, Amount: coin.MustParse(amount), Description: desc})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		ab := send(a, b, "10", "a to b")
		send(b, a, "5", "b to a")
		send(a, c, "3", "a to c")
		self := send(a, a, "1", "a to a")

		all := func(p coin.PartyID, q history.Query) []history.Item {
			t.Helper()
			items, err := history.New(l).List(ctx, p, q)
			if err != nil {
				t.Fatal(err)
			}
			return items
		}
		transfers := func(items []history.Item) (out []string) {
			for _, it := range items {
				if it.Kind == "transfer" {
					out = append(out, fmt.Sprintf("%s %s %s %s", it.Description, it.Counterparty, it.Amount, it.Fees))
				}
			}
			return out
		}
		fee := func(r *ledger.TransferResult) coin.Amount { return r.Fees.Add(r.HoldingFees) }
		// What leaves the sender's available balance: the amount, the
		// fees and the inputs' holding fees; to oneself, the fees alone.
		sent := func(amount string, r *ledger.TransferResult) coin.Amount {
			return coin.MustParse(amount).Add(fee(r)).Neg()
		}
		want := map[coin.PartyID][]string{
			a: {
				fmt.Sprintf("a to a %s %s %s", a, fee(self).Neg(), fee(self)),
				fmt.Sprintf("a to c %s %s %s", c, "-3.0000000000", "0.0000000000"),
				fmt.Sprintf("b to a %s %s %s", b, "5.0000000000", "0.0000000000"),
				fmt.Sprintf("a to b %s %s %s", b, sent("10", ab), fee(ab)),
			},
			b: {
				fmt.Sprintf("b to a %s %s %s", a, "-5.0000000000", "0.0000000000"),
				fmt.Sprintf("a to b %s %s %s", a, "10.0000000000", "0.0000000000"),
			},
			c: {fmt.Sprintf("a to c %s %s %s", a, "3.0000000000", "0.0000000000")},
		}
		for p, w := range want {
			got := transfers(all(p, history.Query{PageSize: 100}))
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("history of %s:\n got %q\nwant %q", p.Hint(), got, w)
			}
		}

		// One row for both sides: the same id on each.
		ida, idb := all(a, history.Query{PageSize: 100}), all(b, history.Query{PageSize: 100})
		if ida[3].ID != idb[1].ID || ida[2].ID != idb[0].ID {
			t.Errorf("a and b read different rows for their transfers: %d/%d, %d/%d", ida[3].ID, idb[1].ID, ida[2].ID, idb[0].ID)
		}

		// The counterparty filter finds both directions, from both sides.
		if got := transfers(all(a, history.Query{PageSize: 100, Counterparty: b})); len(got) != 2 || got[0] != want[a][2] || got[1] != want[a][3] {
			t.Errorf("a's history with b = %q", got)
		}
		if got := transfers(all(b, history.Query{PageSize: 100, Counterparty: a})); fmt.Sprint(got) != fmt.Sprint(want[b]) {
			t.Errorf("b's history with a = %q", got)
		}
		if got := all(c, history.Query{PageSize: 100, Counterparty: b}); len(got) != 0 {
			t.Errorf("c's history with b = %+v, want none", got)
		}
		if got := all(b, history.Query{PageSize: 100, Kind: "transfer"}); len(got) != 2 {
			t.Errorf("b's transfers = %d rows, want 2", len(got))
		}

		// Pages of one walk the same rows in the same order.
		full := all(a, history.Query{PageSize: 100})
		var before int64
		for i := 0; ; i++ {
			page := all(a, history.Query{PageSize: 1, BeforeID: before})
			if len(page) == 0 {
				if i != len(full) {
					t.Errorf("paged %d rows, want %d", i, len(full))
				}
				break
			}
			if i >= len(full) || page[0].ID != full[i].ID || page[0].Amount.String() != full[i].Amount.String() {
				t.Fatalf("page %d = %+v, want %+v", i, page[0], full[i])
			}
			before = page[0].ID
		}
	})
}

// TestHistoryOwnActions: whoever rejects or withdraws an offer sees it in
// its own history, as the counterparty does; before, only the
// counterparty did. A party sees the preapproval it asked for, and its
// cancellation, which the provider sees too.
func TestHistoryOwnActions(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "10")
		offer := func(id string) coin.ContractID {
			t.Helper()
			o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("1"), ExpiresAt: time.Now().Add(time.Hour), TrackingID: id})
			if err != nil {
				t.Fatal(err)
			}
			return o.ContractID
		}
		if err := l.Offers().Reject(ctx, b, offer("r")); err != nil {
			t.Fatal(err)
		}
		if err := l.Offers().Withdraw(ctx, a, offer("w")); err != nil {
			t.Fatal(err)
		}
		c := ledgertest.Party(t, l)
		if _, _, err := l.Preapprovals().Create(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := l.Preapprovals().Cancel(ctx, c); err != nil {
			t.Fatal(err)
		}
		notes := func(p coin.PartyID) string {
			t.Helper()
			items, err := history.New(l).List(ctx, p, history.Query{PageSize: 10, Kind: "notification"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				if it.Subtype != "Onboarded" {
					got = append(got, it.Subtype)
				}
			}
			return fmt.Sprint(got)
		}
		for p, want := range map[coin.PartyID]string{
			a:            "[TransferOfferWithdrawn TransferOfferRejected]",
			b:            "[TransferOfferWithdrawn TransferOfferRejected]",
			c:            "[TransferPreapprovalCancelled TransferPreapprovalCreation]",
			l.Operator(): "[TransferPreapprovalCancelled]",
		} {
			if got := notes(p); got != want {
				t.Errorf("%s's notifications: %s, want %s", p.Hint(), got, want)
			}
		}
	})
}
