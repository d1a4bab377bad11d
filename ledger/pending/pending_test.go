package pending_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/expiry"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
)

// TestPendingMarkAndIncoming: the pending mark of both parties changes with
// every offer or instruction created, answered or expired, and only then;
// Incoming lists what the receiver may answer, and nothing of what it
// sends. Live updates rest on the mark: a change it misses is a page that
// never refreshes.
func TestPendingMarkAndIncoming(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		alice, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "100")
		marks := func() [2]string {
			t.Helper()
			var m [2]string
			for i, p := range []coin.PartyID{alice, bob} {
				var err error
				if m[i], err = pending.New(l).Mark(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			return m
		}
		last := marks()
		changed := func(what string) {
			t.Helper()
			now := marks()
			if now[0] == last[0] || now[1] == last[1] {
				t.Errorf("%s: marks %q -> %q, want both changed", what, last, now)
			}
			if again := marks(); again != now {
				t.Errorf("%s: marks moved without a change: %q -> %q", what, now, again)
			}
			last = now
			// Offers created later have later times (a real clock moves).
			clock.Advance(time.Second)
		}
		offer := func(amount, desc string) coin.ContractID {
			t.Helper()
			o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: alice, Receiver: bob, Amount: coin.MustParse(amount),
				Description: desc, ExpiresAt: clock.Now().Add(time.Hour), TrackingID: desc})
			if err != nil {
				t.Fatal(err)
			}
			return o.ContractID
		}
		incoming := func(p coin.PartyID) pending.Incoming {
			t.Helper()
			in, err := pending.New(l).Incoming(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			return in
		}

		first := offer("1", "first")
		changed("offer created")
		in := incoming(bob)
		if len(in.Offers) != 1 || in.Offers[0].ContractID != first || in.Offers[0].Sender != alice || in.Offers[0].Description != "first" ||
			in.Offers[0].Amount.String() != "1.0000000000" || len(in.Instructions) != 0 {
			t.Fatalf("bob's incoming = %+v", in)
		}
		if in := incoming(alice); len(in.Offers)+len(in.Instructions) != 0 {
			t.Errorf("the sender's incoming = %+v, want nothing", in)
		}

		// One leaves and another comes between two looks: same count.
		if err := l.Offers().Reject(ctx, bob, first); err != nil {
			t.Fatal(err)
		}
		second := offer("2", "second")
		changed("one offer rejected, another created")
		if _, err := l.Offers().Accept(ctx, bob, second); err != nil {
			t.Fatal(err)
		}
		changed("offer accepted")
		third := offer("3", "third")
		changed("third offer created")
		if err := l.Offers().Withdraw(ctx, alice, third); err != nil {
			t.Fatal(err)
		}
		changed("offer withdrawn")
		offer("4", "fourth")
		changed("fourth offer created")
		clock.Advance(2 * time.Hour)
		if n, err := expiry.New(l).Offers(ctx); err != nil || n != 1 {
			t.Fatalf("expiry.Offers = %d, %v", n, err)
		}
		changed("offer expired")

		res, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: alice, Receiver: bob,
			Amount: coin.MustParse("5"), Description: "rent", ExecuteBefore: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		changed("instruction created")
		in = incoming(bob)
		if len(in.Offers) != 0 || len(in.Instructions) != 1 || in.Instructions[0].ContractID != res.InstructionCID ||
			in.Instructions[0].Sender != alice || in.Instructions[0].Description != "rent" {
			t.Fatalf("bob's incoming = %+v", in)
		}
		if in := incoming(alice); len(in.Instructions) != 0 {
			t.Errorf("the sender's incoming instructions = %+v, want none", in.Instructions)
		}
		if _, err := l.Instructions().Accept(ctx, bob, res.InstructionCID); err != nil {
			t.Fatal(err)
		}
		changed("instruction accepted")
		if in := incoming(bob); len(in.Offers)+len(in.Instructions) != 0 {
			t.Errorf("bob's incoming after all = %+v", in)
		}
	})
}
