package allocations_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/rewards"
	"github.com/google/go-cmp/cmp"
)

func allocationSpec(l *ledger.Ledger, sender, receiver, executor coin.PartyID, amount string, now time.Time) allocationdata.AllocationSpecification {
	return allocationdata.AllocationSpecification{
		Settlement: allocationdata.SettlementInfo{
			Executor: executor, SettlementRef: allocationdata.Reference{ID: "trade-1"},
			RequestedAt: ledger.FormatTime(now), AllocateBefore: ledger.FormatTime(now.Add(30 * time.Minute)),
			SettleBefore: ledger.FormatTime(now.Add(time.Hour)),
		},
		TransferLegID: "leg0",
		TransferLeg: allocationdata.TransferLeg{
			Sender: sender, Receiver: receiver, Amount: coin.MustParse(amount),
			InstrumentID: ledger.InstrumentRef{Admin: l.DSO(), ID: ledger.InstrumentID},
		},
	}
}

// TestAllocationMoves runs every allocation move, legal and illegal, on a
// real allocation on both engines: the lock holds exactly the leg's
// amount, execute gives it to the receiver, the others give it back, and
// a refused move changes nothing.
func TestAllocationMoves(t *testing.T) {
	type step struct {
		who  string // sender, receiver, executor, stranger, automation
		move allocationdata.AllocationMove
	}
	cases := []struct {
		name         string
		before       []step
		advance      time.Duration
		do           step
		wantErr      error
		senderWant   string
		receiverWant string
	}{
		{name: "execute", do: step{"executor", allocationdata.AllocationExecute}, senderWant: "60", receiverWant: "40"},
		{name: "withdraw", do: step{"sender", allocationdata.AllocationWithdraw}, senderWant: "100", receiverWant: "0"},
		{name: "cancel", do: step{"executor", allocationdata.AllocationCancel}, senderWant: "100", receiverWant: "0"},
		{name: "expire", advance: 2 * time.Hour, do: step{"automation", allocationdata.AllocationExpire}, senderWant: "100", receiverWant: "0"},
		{name: "withdraw after deadline", advance: 2 * time.Hour, do: step{"sender", allocationdata.AllocationWithdraw}, senderWant: "100", receiverWant: "0"},
		{name: "execute after deadline", advance: 2 * time.Hour, do: step{"executor", allocationdata.AllocationExecute}, wantErr: fault.ErrExpired},
		{name: "expire before deadline", do: step{"automation", allocationdata.AllocationExpire}, wantErr: fault.ErrConflict},
		{name: "execute by the sender", do: step{"sender", allocationdata.AllocationExecute}, wantErr: fault.ErrForbidden},
		{name: "execute by the receiver", do: step{"receiver", allocationdata.AllocationExecute}, wantErr: fault.ErrForbidden},
		{name: "withdraw by the executor", do: step{"executor", allocationdata.AllocationWithdraw}, wantErr: fault.ErrForbidden},
		{name: "cancel by the sender", do: step{"sender", allocationdata.AllocationCancel}, wantErr: fault.ErrForbidden},
		{name: "execute by a stranger", do: step{"stranger", allocationdata.AllocationExecute}, wantErr: fault.ErrNotFound},
		{name: "execute twice", before: []step{{"executor", allocationdata.AllocationExecute}}, do: step{"executor", allocationdata.AllocationExecute}, wantErr: allocations.ErrAllocationFinished},
		{name: "withdraw after execute", before: []step{{"executor", allocationdata.AllocationExecute}}, do: step{"sender", allocationdata.AllocationWithdraw}, wantErr: allocations.ErrAllocationFinished},
		{name: "execute after withdraw", before: []step{{"sender", allocationdata.AllocationWithdraw}}, do: step{"executor", allocationdata.AllocationExecute}, wantErr: allocations.ErrAllocationFinished},
		{name: "expire after cancel", advance: 2 * time.Hour, before: []step{{"executor", allocationdata.AllocationCancel}}, do: step{"automation", allocationdata.AllocationExpire}, wantErr: allocations.ErrAllocationFinished},
	}
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			al := allocations.New(l)
			ctx := context.Background()
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					sender, receiver, executor, stranger := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
					ledgertest.Mint(t, l, sender, "100")
					res, err := al.Allocate(ctx, allocationSpec(l, sender, receiver, executor, "40", clock.Now()), commands.Command{})
					if err != nil {
						t.Fatal(err)
					}
					cid := res.AllocationCID
					if diff := cmp.Diff([]string{"unlocked=60.0000000000 locked=40.0000000000", "unlocked=0.0000000000 locked=0.0000000000"}, ledgertest.Balances(t, l, sender, receiver)); diff != "" {
						t.Fatalf("after allocate (-want +got):\n%s", diff)
					}
					a, err := al.AllocationByID(ctx, executor, cid)
					if err != nil || a.Contract.ArchivedOffset != 0 || a.Spec.TransferLeg.Amount.String() != "40.0000000000" {
						t.Fatalf("AllocationByID = %+v, %v", a, err)
					}
					party := map[string]coin.PartyID{"sender": sender, "receiver": receiver, "executor": executor, "stranger": stranger, "automation": ""}
					clock.Advance(c.advance)
					for _, s := range c.before {
						if _, err := al.MoveAllocation(ctx, party[s.who], cid, s.move, commands.Command{}); err != nil {
							t.Fatalf("%s by %s: %v", s.move, s.who, err)
						}
					}
					before := ledgertest.Balances(t, l, sender, receiver)
					hist0 := ledgertest.HistoryLens(t, l, sender, receiver)
					supply0 := ledgertest.Conserved(t, l)
					_, err = al.MoveAllocation(ctx, party[c.do.who], cid, c.do.move, commands.Command{})
					if c.wantErr != nil {
						if !errors.Is(err, c.wantErr) {
							t.Fatalf("%s by %s = %v, want %v", c.do.move, c.do.who, err, c.wantErr)
						}
						t.Logf("refused: %v", err)
						if diff := cmp.Diff(before, ledgertest.Balances(t, l, sender, receiver)); diff != "" {
							t.Errorf("a refused move changed balances (-before +after):\n%s", diff)
						}
						if s := ledgertest.Conserved(t, l); !s.Live.Equal(supply0.Live) {
							t.Errorf("a refused move changed the supply %s -> %s", supply0.Live, s.Live)
						}
						if diff := cmp.Diff(hist0, ledgertest.HistoryLens(t, l, sender, receiver)); diff != "" {
							t.Errorf("a refused move wrote history (-before +after):\n%s", diff)
						}
						return
					}
					if err != nil {
						t.Fatalf("%s by %s: %v", c.do.move, c.do.who, err)
					}
					if a, err := al.AllocationByID(ctx, sender, cid); err != nil || a.Contract.ArchivedOffset == 0 {
						t.Fatalf("allocation after %s: archived at %d, %v", c.do.move, a.Contract.ArchivedOffset, err)
					}
					want := []string{
						"unlocked=" + coin.MustParse(c.senderWant).String() + " locked=0.0000000000",
						"unlocked=" + coin.MustParse(c.receiverWant).String() + " locked=0.0000000000",
					}
					if diff := cmp.Diff(want, ledgertest.Balances(t, l, sender, receiver)); diff != "" {
						t.Errorf("balances after %s (-want +got):\n%s", c.do.move, diff)
					}
					ledgertest.Conserved(t, l)
				})
			}
		})
	}
}

// TestAllocateRefusals: a bad allocation request is refused with the
// field it is about, and locks nothing.
func TestAllocateRefusals(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver, executor := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		now := clock.Now()
		cases := map[string]func(s *allocationdata.AllocationSpecification){
			"zero amount":       func(s *allocationdata.AllocationSpecification) { s.TransferLeg.Amount = coin.Zero },
			"other instrument":  func(s *allocationdata.AllocationSpecification) { s.TransferLeg.InstrumentID.ID = "USD" },
			"allocate too late": func(s *allocationdata.AllocationSpecification) { s.Settlement.AllocateBefore = ledger.FormatTime(now) },
			"settle before alloc": func(s *allocationdata.AllocationSpecification) {
				s.Settlement.SettleBefore = ledger.FormatTime(now.Add(time.Minute))
			},
			"bad time": func(s *allocationdata.AllocationSpecification) { s.Settlement.SettleBefore = "tomorrow" },
			"requested in future": func(s *allocationdata.AllocationSpecification) {
				s.Settlement.RequestedAt = ledger.FormatTime(now.Add(time.Hour))
			},
			"unknown receiver":     func(s *allocationdata.AllocationSpecification) { s.TransferLeg.Receiver = "nobody::1220ab" },
			"more than the sender": func(s *allocationdata.AllocationSpecification) { s.TransferLeg.Amount = coin.MustParse("1000") },
			"long leg id":          func(s *allocationdata.AllocationSpecification) { s.TransferLegID = string(make([]byte, 300)) },
		}
		for name, mut := range cases {
			spec := allocationSpec(l, sender, receiver, executor, "40", now)
			mut(&spec)
			if _, err := s.Allocate(ctx, spec, commands.Command{}); err == nil {
				t.Errorf("%s: allocated", name)
			} else {
				t.Logf("%s: %v", name, err)
			}
		}
		if diff := cmp.Diff([]string{"unlocked=100.0000000000 locked=0.0000000000"}, ledgertest.Balances(t, l, sender)); diff != "" {
			t.Errorf("refusals locked coin (-want +got):\n%s", diff)
		}
	})
}

// TestExpireAllocations: the expiry automation returns the coin of every
// allocation past its settlement deadline, and only those; a
// deduplicated allocate runs once.
func TestExpireAllocations(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver, executor := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		early := allocationSpec(l, sender, receiver, executor, "10", clock.Now())
		late := allocationSpec(l, sender, receiver, executor, "20", clock.Now())
		late.Settlement.SettleBefore = ledger.FormatTime(clock.Now().Add(3 * time.Hour))
		late.TransferLegID = "leg1" // one leg is allocated at most once
		if _, err := s.Allocate(ctx, early, commands.Command{Key: "cmd-1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Allocate(ctx, early, commands.Command{Key: "cmd-1"}); !errors.Is(err, fault.ErrDuplicate) {
			t.Fatalf("second allocate with the same key = %v, want ErrDuplicate", err)
		}
		if _, err := s.Allocate(ctx, late, commands.Command{}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.ExpireAllocations(ctx); err != nil || n != 0 {
			t.Fatalf("expire before any deadline = %d, %v", n, err)
		}
		clock.Advance(2 * time.Hour)
		if n, err := s.ExpireAllocations(ctx); err != nil || n != 1 {
			t.Fatalf("expire = %d, %v; want 1", n, err)
		}
		if diff := cmp.Diff([]string{"unlocked=80.0000000000 locked=20.0000000000"}, ledgertest.Balances(t, l, sender)); diff != "" {
			t.Errorf("after expiry (-want +got):\n%s", diff)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestAllocationFeaturedExecutor: executing an allocation earns a
// featured executor (here the operator, whose FeaturedAppRight the
// ledger creates) one featured app reward coupon; a venue without the
// right earns none.
func TestAllocationFeaturedExecutor(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver, venue := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		coupons := func(p coin.PartyID) int {
			t.Helper()
			cs, err := rewards.New(l).Coupons(ctx, p, ledger.RewardApp)
			if err != nil {
				t.Fatal(err)
			}
			return len(cs)
		}
		before := coupons(l.Operator())
		for _, executor := range []coin.PartyID{l.Operator(), venue} {
			res, err := s.Allocate(ctx, allocationSpec(l, sender, receiver, executor, "10", clock.Now()), commands.Command{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.MoveAllocation(ctx, executor, res.AllocationCID, allocationdata.AllocationExecute, commands.Command{}); err != nil {
				t.Fatal(err)
			}
		}
		if got := coupons(l.Operator()) - before; got != 1 {
			t.Errorf("the featured executor earned %d app reward coupons, want 1", got)
		}
		if got := coupons(venue); got != 0 {
			t.Errorf("the unfeatured venue earned %d app reward coupons, want 0", got)
		}
		ledgertest.Conserved(t, l)
	})
}

// TestCompletionsOfAllocations: AllocationFactory_Allocate and an
// allocation's move record their completions at their updates' offsets
// (MoveAllocation wrote its command record directly before, without the
// completion).
func TestCompletionsOfAllocations(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, s *allocations.Service, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver, venue := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		completing := func(key, id string, p coin.PartyID) commands.Command {
			t.Helper()
			c, err := commands.Completing(key, commands.Completion{UserID: "u", CommandID: id, ActAs: []coin.PartyID{p}})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		res, err := s.Allocate(ctx, allocationSpec(l, sender, receiver, venue, "10", clock.Now()), completing("k-allocate", "allocate", sender))
		if err != nil {
			t.Fatal(err)
		}
		moved, err := s.MoveAllocation(ctx, venue, res.AllocationCID, allocationdata.AllocationExecute, completing("k-execute", "execute", venue))
		if err != nil {
			t.Fatal(err)
		}
		cs, err := apiread.New(l).Completions(ctx, "u", []coin.PartyID{sender, venue}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 2 || cs[0].CommandID != "allocate" || cs[1].CommandID != "execute" || cs[1].Offset != moved.Offset || cs[0].Offset >= cs[1].Offset {
			t.Errorf("completions %+v; want allocate, then execute at %d", cs, moved.Offset)
		}
	})
}
