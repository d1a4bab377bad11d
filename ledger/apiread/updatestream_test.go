package apiread_test

import (
	"context"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestUpdatesAfter: the update stream's read returns the updates after an
// offset, oldest first and at most the limit, each with its stakeholders
// and templates, and the filter matches on them.
func TestUpdatesAfter(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		alice, bob, carol := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		start, err := apiread.New(l).LedgerEnd(ctx)
		if err != nil || start <= 0 {
			t.Fatalf("latest offset after onboarding = %d, %v", start, err)
		}
		ledgertest.Mint(t, l, alice, "100")
		if _, err := l.Transfer(ctx, ledger.TransferRequest{Sender: alice, Receiver: bob, Amount: coin.MustParse("5")}); err != nil {
			t.Fatal(err)
		}
		es, err := apiread.New(l).UpdatesAfter(ctx, start, 0)
		if err != nil || len(es) != 2 {
			t.Fatalf("updates after %d = %+v, %v; want the mint and the transfer", start, es, err)
		}
		mint, tr := es[0], es[1]
		if !(start < mint.Offset && mint.Offset < tr.Offset) {
			t.Errorf("offsets %d, %d after %d: want increasing", mint.Offset, tr.Offset, start)
		}
		if !mint.Concerns(alice) || mint.Concerns(bob) || !mint.HasTemplate(ledger.TemplateAmulet) {
			t.Errorf("mint: parties %v templates %v, want alice's Amulet", mint.Parties, mint.Templates)
		}
		if !tr.Concerns(alice) || !tr.Concerns(bob) || tr.Concerns(carol) {
			t.Errorf("transfer's parties %v: want alice and bob, not carol", tr.Parties)
		}
		for _, c := range []struct {
			party    coin.PartyID
			template string
			want     bool
		}{
			{alice, "", true}, {bob, "Amulet", true}, {"", "Splice.Amulet:Amulet", true}, {"", ledger.TemplateAmulet, true},
			{carol, "", false}, {"", "LockedAmulet", false}, {"", "mulet", false},
		} {
			if got := tr.Matches(c.party, c.template); got != c.want {
				t.Errorf("transfer.Matches(%q, %q) = %v, want %v", c.party, c.template, got, c.want)
			}
		}
		if es, err := apiread.New(l).UpdatesAfter(ctx, start, 1); err != nil || len(es) != 1 || es[0].Offset != mint.Offset {
			t.Errorf("one update after %d = %+v, %v; want the mint", start, es, err)
		}
		if es, err := apiread.New(l).UpdatesAfter(ctx, tr.Offset, 0); err != nil || len(es) != 0 {
			t.Errorf("updates after the newest = %+v, %v; want none", es, err)
		}
	})
}
