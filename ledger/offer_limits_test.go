package ledger_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/traffic"
)

// TestOfferLimits is issue 38's offer spam at the ledger: an offer below
// the floor is refused with the floor in words; one sender's open offers
// to one receiver stop at the cap, with the cap in words, and a place
// frees when one ends; other receivers are not affected; every offer
// created costs the validator traffic, as every transaction on the
// network does. Before, any party could send unlimited offers of 1e-10
// CC at no cost.
func TestOfferLimits(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock, Offers: &ledger.OfferLimits{MinAmount: coin.MustParse("0.5"), MaxOpenPerReceiver: 3}})
			ctx := context.Background()
			sender, bob, carol := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
			ledgertest.Mint(t, l, sender, "100")
			n := 0
			offer := func(to coin.PartyID, amount string) (ledger.Offer, error) {
				n++
				o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: sender, Receiver: to, Amount: coin.MustParse(amount),
					ExpiresAt: clock.Now().Add(time.Hour), TrackingID: fmt.Sprintf("o-%d", n)})
				return o, err
			}
			_, err := offer(bob, "0.0000000001")
			if !fault.IsValidation(err) || !strings.Contains(err.Error(), "at least 0.5 CC") {
				t.Errorf("an offer below the floor = %v, want refused with the floor", err)
			}
			op := string(l.Operator())
			before, err := traffic.StatusOf(ctx, l, op)
			if err != nil {
				t.Fatal(err)
			}
			var first ledger.Offer
			for i := range 3 {
				o, err := offer(bob, "0.5")
				if err != nil {
					t.Fatalf("offer %d: %v", i, err)
				}
				if i == 0 {
					first = o
				}
			}
			after, err := traffic.StatusOf(ctx, l, op)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := after.Consumed-before.Consumed, 3*l.Rules().TrafficBytes(0); got != want {
				t.Errorf("3 offers consumed %d bytes of traffic, want %d", got, want)
			}
			hist := historyLens(t, l, sender, bob)
			_, err = offer(bob, "1")
			if !fault.IsValidation(err) || !strings.Contains(err.Error(), "already have 3 open transfer offers") || !strings.Contains(err.Error(), "(3)") {
				t.Errorf("a 4th open offer = %v, want refused with the cap", err)
			}
			if got := historyLens(t, l, sender, bob); fmt.Sprint(got) != fmt.Sprint(hist) {
				t.Errorf("a refused offer wrote history: %v -> %v", hist, got)
			}
			if _, err := offer(carol, "1"); err != nil {
				t.Errorf("an offer to another receiver: %v", err)
			}
			if err := l.Offers().Withdraw(ctx, sender, first.ContractID); err != nil {
				t.Fatal(err)
			}
			if _, err := offer(bob, "1"); err != nil {
				t.Errorf("an offer once one ended: %v", err)
			}
			in, err := pending.New(l).Incoming(ctx, bob)
			if err != nil || in.OfferCount != 3 || len(in.Offers) != 3 {
				t.Errorf("bob's incoming: %d of %d, %v; want 3", len(in.Offers), in.OfferCount, err)
			}
		})
	}
}

// TestOfferFloorOff: a development network may turn the floor off.
func TestOfferFloorOff(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[0], ledgertest.Options{Offers: &ledger.OfferLimits{MinAmount: coin.Zero, MaxOpenPerReceiver: 1}})
	sender, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)
	ledgertest.Mint(t, l, sender, "1")
	if _, _, err := l.Offers().Create(context.Background(), ledger.OfferRequest{Sender: sender, Receiver: bob, Amount: coin.MustParse("0.0000000001"),
		ExpiresAt: l.Now().Add(time.Hour), TrackingID: "tiny"}); err != nil {
		t.Errorf("an offer of 1e-10 with the floor off: %v", err)
	}
}
