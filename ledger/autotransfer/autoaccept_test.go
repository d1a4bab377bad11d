package autotransfer_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/google/go-cmp/cmp"
)

// TestAutoAccept: offers and instructions from listed senders are accepted
// once; others, expired ones and the receiver's own outgoing ones are left.
func TestAutoAccept(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		friend, stranger, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		for _, p := range []coin.PartyID{friend, stranger, receiver} {
			ledgertest.Mint(t, l, p, "100")
		}
		offer := func(from, to coin.PartyID, amount, id string, d time.Duration) coin.ContractID {
			o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: from, Receiver: to, Amount: coin.MustParse(amount), ExpiresAt: clock.Now().Add(d), TrackingID: id})
			if err != nil {
				t.Fatal(err)
			}
			return o.ContractID
		}
		instruction := func(from, to coin.PartyID, amount string, d time.Duration) coin.ContractID {
			r, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: from, Receiver: to, Amount: coin.MustParse(amount), ExecuteBefore: clock.Now().Add(d)})
			if err != nil {
				t.Fatal(err)
			}
			return r.InstructionCID
		}
		short := offer(friend, receiver, "1", "short", time.Minute)
		shortTI := instruction(friend, receiver, "2", time.Minute)
		clock.Advance(time.Minute) // both expired, not yet ended
		offer(friend, receiver, "10", "f-1", time.Hour)
		offer(stranger, receiver, "20", "s-1", time.Hour)
		offer(receiver, friend, "30", "r-1", time.Hour)
		instruction(friend, receiver, "5", time.Hour)
		instruction(stranger, receiver, "7", time.Hour)

		from := []coin.PartyID{friend}
		res, err := autotransfer.New(l).AutoAccept(ctx, receiver, from)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(autotransfer.AutoAcceptResult{Offers: 1, Instructions: 1}, res); diff != "" {
			t.Errorf("first run (-want +got):\n%s", diff)
		}
		again, err := autotransfer.New(l).AutoAccept(ctx, receiver, from)
		if err != nil || again != (autotransfer.AutoAcceptResult{}) {
			t.Errorf("second run = %+v, %v; want nothing", again, err)
		}
		// Each lock holds its amount and fee reserve; an accept gives the
		// reserve back.
		reserve := func(amount string, d time.Duration) coin.Amount {
			return l.Rules().TransferLockReserve(coin.MustParse(amount), l.Rules().InitialPriceUSD, d)
		}
		shortLock := coin.MustParse("2").Add(reserve("2", time.Minute))
		strangerLock := coin.MustParse("7").Add(reserve("7", time.Hour))
		want := []string{
			"unlocked=" + coin.MustParse("85").Sub(shortLock).String() + " locked=" + shortLock.String(),        // friend: -10 -5, 2 still locked (expired, not ended)
			"unlocked=" + coin.MustParse("100").Sub(strangerLock).String() + " locked=" + strangerLock.String(), // stranger: untouched offer, 7 locked
			"unlocked=115.0000000000 locked=0.0000000000",                                                       // receiver: +10 +5
		}
		if diff := cmp.Diff(want, ledgertest.Balances(t, l, friend, stranger, receiver)); diff != "" {
			t.Errorf("balances (-want +got):\n%s", diff)
		}
		if o, err := pending.New(l).Offer(ctx, receiver, short); err != nil || o.Status != ledger.OfferCreated {
			t.Errorf("expired offer = %+v, %v; want left for the expiry job", o, err)
		}
		if ti, err := pending.New(l).TransferInstructionByID(ctx, receiver, shortTI); err != nil || ti.Status != ledger.InstructionPending {
			t.Errorf("expired instruction = %+v, %v; want left for the expiry job", ti.Status, err)
		}
		// With no listed sender nothing is accepted.
		if res, err := autotransfer.New(l).AutoAccept(ctx, receiver, nil); err != nil || res != (autotransfer.AutoAcceptResult{}) {
			t.Errorf("no senders = %+v, %v", res, err)
		}
	})
}
