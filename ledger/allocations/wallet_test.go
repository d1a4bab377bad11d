package allocations_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestAllocateLegOnce: the wallet's Allocate, clicked several times at
// once (a double click, two tabs), locks the leg's coin once: the others
// are refused as already allocated, on both engines; the request then
// shows the leg allocated, and no longer waits on Home.
func TestAllocateLegOnce(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock) {
		ctx := context.Background()
		alice, bob, venue := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, alice, "100")
		legs := map[string]allocationdata.TransferLeg{"leg0": {Sender: alice, Receiver: bob, Amount: coin.MustParse("40"),
			InstrumentID: ledger.InstrumentRef{Admin: l.DSO(), ID: ledger.InstrumentID}}}
		p, err := s.ProposeTrade(ctx, []coin.PartyID{alice, bob}, allocationdata.OTCTradeProposal{Venue: venue, TransferLegs: legs, Approvers: []coin.PartyID{alice, bob}}, commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		now := clock.Now()
		tr, err := s.InitiateTradeSettlement(ctx, []coin.PartyID{venue}, p.Created, ledger.FormatTime(now.Add(time.Hour)), ledger.FormatTime(now.Add(2*time.Hour)), commands.Command{})
		if err != nil {
			t.Fatal(err)
		}
		in, err := s.Awaiting(ctx, alice)
		if err != nil || len(in) != 1 {
			t.Fatalf("alice's incoming requests: %v %v", in, err)
		}
		const clicks = 4
		errs := make([]error, clicks)
		var wg sync.WaitGroup
		for i := range clicks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.AllocateLeg(ctx, alice, tr.Created, "leg0", "")
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, fault.ErrConflict):
				t.Errorf("a concurrent allocate failed otherwise: %v", err)
			}
		}
		if ok != 1 {
			t.Errorf("%d of %d concurrent allocates succeeded, want 1: %v", ok, clicks, errs)
		}
		b, err := l.Balance(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		if b.EffectiveUnlocked.String() != "60.0000000000" || b.EffectiveLocked.String() != "40.0000000000" {
			t.Errorf("alice: %s available, %s locked; want 60 and 40", b.EffectiveUnlocked, b.EffectiveLocked)
		}
		rs, err := s.AllocationRequestsFor(ctx, alice)
		if err != nil || len(rs) != 1 || rs[0].Legs[0].Allocation == "" {
			t.Errorf("alice's requests after allocating: %+v %v", rs, err)
		}
		if in, err := s.Awaiting(ctx, alice); err != nil || len(in) != 0 {
			t.Errorf("alice's incoming requests after allocating: %v %v", in, err)
		}
		if in, err := s.Awaiting(ctx, bob); err != nil || len(in) != 0 {
			t.Errorf("bob (who sends nothing) has incoming requests: %v %v", in, err)
		}
	})
}
