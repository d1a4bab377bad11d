package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/expiry"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/registry"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/go-cmp/cmp"
)

// TestInstructionTransitionTable checks the state machine itself, every
// state against every move.
func TestInstructionTransitionTable(t *testing.T) {
	sender, receiver, stranger := coin.PartyID("s::1220"), coin.PartyID("r::1220"), coin.PartyID("x::1220")
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	before, after := now.Add(time.Hour), now.Add(-time.Hour) // deadlines
	finals := []ledger.InstructionStatus{ledger.InstructionCompleted, ledger.InstructionRejected, ledger.InstructionWithdrawn, ledger.InstructionExpired}
	type tc struct {
		from     ledger.InstructionStatus
		move     ledger.InstructionMove
		actor    coin.PartyID
		deadline time.Time
		want     ledger.InstructionStatus
		wantErr  error
	}
	cases := []tc{
		{ledger.InstructionPending, ledger.MoveAccept, receiver, before, ledger.InstructionCompleted, nil},
		{ledger.InstructionPending, ledger.MoveReject, receiver, before, ledger.InstructionRejected, nil},
		{ledger.InstructionPending, ledger.MoveWithdraw, sender, before, ledger.InstructionWithdrawn, nil},
		{ledger.InstructionPending, ledger.MoveExpire, "", after, ledger.InstructionExpired, nil},
		// Past the deadline reject and withdraw still give the coin back.
		{ledger.InstructionPending, ledger.MoveReject, receiver, after, ledger.InstructionRejected, nil},
		{ledger.InstructionPending, ledger.MoveWithdraw, sender, after, ledger.InstructionWithdrawn, nil},
		{ledger.InstructionPending, ledger.MoveAccept, receiver, after, "", fault.ErrExpired},
		{ledger.InstructionPending, ledger.MoveAccept, receiver, now, "", fault.ErrExpired},
		{ledger.InstructionPending, ledger.MoveExpire, "", before, "", fault.ErrConflict},
		{ledger.InstructionPending, ledger.MoveAccept, sender, before, "", fault.ErrForbidden},
		{ledger.InstructionPending, ledger.MoveAccept, stranger, before, "", fault.ErrForbidden},
		{ledger.InstructionPending, ledger.MoveReject, sender, before, "", fault.ErrForbidden},
		{ledger.InstructionPending, ledger.MoveWithdraw, receiver, before, "", fault.ErrForbidden},
	}
	for _, f := range finals {
		for _, m := range []ledger.InstructionMove{ledger.MoveAccept, ledger.MoveReject, ledger.MoveWithdraw, ledger.MoveExpire} {
			actor := receiver
			if m == ledger.MoveWithdraw {
				actor = sender
			}
			cases = append(cases, tc{f, m, actor, before, "", ledger.ErrInstructionFinished}, tc{f, m, actor, after, "", ledger.ErrInstructionFinished})
		}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/by-%s/deadline-%s", c.from, c.move, c.actor.Hint(), c.deadline.Sub(now)), func(t *testing.T) {
			got, err := ledger.NextInstructionStatus(c.from, c.move, c.actor, sender, receiver, now, c.deadline)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("= %s, %v; want %s", got, err, c.want)
			}
		})
	}
}

func balances(t *testing.T, l *ledger.Ledger, ps ...coin.PartyID) []string {
	return ledgertest.Balances(t, l, ps...)
}

// TestTransferInstructionMoves runs every move, legal and illegal, on a
// real instruction on both engines. A refused move changes nothing.
func TestTransferInstructionMoves(t *testing.T) {
	type step struct {
		who  string // sender, receiver, stranger, automation
		move ledger.InstructionMove
	}
	cases := []struct {
		name    string
		before  []step
		advance time.Duration
		do      step
		want    ledger.InstructionStatus
		wantErr error
		// balances after: sender unlocked, receiver unlocked
		senderWant, receiverWant string
	}{
		{name: "accept", do: step{"receiver", ledger.MoveAccept}, want: ledger.InstructionCompleted, senderWant: "60", receiverWant: "40"},
		{name: "reject", do: step{"receiver", ledger.MoveReject}, want: ledger.InstructionRejected, senderWant: "100", receiverWant: "0"},
		{name: "withdraw", do: step{"sender", ledger.MoveWithdraw}, want: ledger.InstructionWithdrawn, senderWant: "100", receiverWant: "0"},
		{name: "expire", advance: 2 * time.Hour, do: step{"automation", ledger.MoveExpire}, want: ledger.InstructionExpired, senderWant: "100", receiverWant: "0"},
		{name: "withdraw after deadline", advance: 2 * time.Hour, do: step{"sender", ledger.MoveWithdraw}, want: ledger.InstructionWithdrawn, senderWant: "100", receiverWant: "0"},
		{name: "accept after withdraw", before: []step{{"sender", ledger.MoveWithdraw}}, do: step{"receiver", ledger.MoveAccept}, wantErr: ledger.ErrInstructionFinished},
		{name: "withdraw after accept", before: []step{{"receiver", ledger.MoveAccept}}, do: step{"sender", ledger.MoveWithdraw}, wantErr: ledger.ErrInstructionFinished},
		{name: "accept by the sender", do: step{"sender", ledger.MoveAccept}, wantErr: fault.ErrForbidden},
		{name: "withdraw by the receiver", do: step{"receiver", ledger.MoveWithdraw}, wantErr: fault.ErrForbidden},
		{name: "accept by a stranger", do: step{"stranger", ledger.MoveAccept}, wantErr: fault.ErrNotFound},
		{name: "accept after expiry", advance: 2 * time.Hour, do: step{"receiver", ledger.MoveAccept}, wantErr: fault.ErrExpired},
		{name: "accept after expired", advance: 2 * time.Hour, before: []step{{"automation", ledger.MoveExpire}}, do: step{"receiver", ledger.MoveAccept}, wantErr: ledger.ErrInstructionFinished},
		{name: "reject twice", before: []step{{"receiver", ledger.MoveReject}}, do: step{"receiver", ledger.MoveReject}, wantErr: ledger.ErrInstructionFinished},
		{name: "expire before the deadline", do: step{"automation", ledger.MoveExpire}, wantErr: fault.ErrConflict},
		{name: "reject after deadline", advance: 2 * time.Hour, do: step{"receiver", ledger.MoveReject}, want: ledger.InstructionRejected, senderWant: "100", receiverWant: "0"},
		{name: "accept twice", before: []step{{"receiver", ledger.MoveAccept}}, do: step{"receiver", ledger.MoveAccept}, wantErr: ledger.ErrInstructionFinished},
		{name: "reject after accept", before: []step{{"receiver", ledger.MoveAccept}}, do: step{"receiver", ledger.MoveReject}, wantErr: ledger.ErrInstructionFinished},
		{name: "accept after reject", before: []step{{"receiver", ledger.MoveReject}}, do: step{"receiver", ledger.MoveAccept}, wantErr: ledger.ErrInstructionFinished},
		{name: "withdraw after reject", before: []step{{"receiver", ledger.MoveReject}}, do: step{"sender", ledger.MoveWithdraw}, wantErr: ledger.ErrInstructionFinished},
		{name: "reject after withdraw", before: []step{{"sender", ledger.MoveWithdraw}}, do: step{"receiver", ledger.MoveReject}, wantErr: ledger.ErrInstructionFinished},
		{name: "withdraw twice", before: []step{{"sender", ledger.MoveWithdraw}}, do: step{"sender", ledger.MoveWithdraw}, wantErr: ledger.ErrInstructionFinished},
		{name: "withdraw after expired", advance: 2 * time.Hour, before: []step{{"automation", ledger.MoveExpire}}, do: step{"sender", ledger.MoveWithdraw}, wantErr: ledger.ErrInstructionFinished},
		{name: "expire after withdraw", advance: 2 * time.Hour, before: []step{{"sender", ledger.MoveWithdraw}}, do: step{"automation", ledger.MoveExpire}, wantErr: ledger.ErrInstructionFinished},
		{name: "reject by the sender", do: step{"sender", ledger.MoveReject}, wantErr: fault.ErrForbidden},
		{name: "reject by a stranger", do: step{"stranger", ledger.MoveReject}, wantErr: fault.ErrNotFound},
		{name: "withdraw by a stranger", do: step{"stranger", ledger.MoveWithdraw}, wantErr: fault.ErrNotFound},
	}
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			ctx := context.Background()
			// One network with an instruction pending, set up once; each
			// case starts from its snapshot, at the same instant.
			sender, receiver, stranger := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
			ledgertest.Mint(t, l, sender, "100")
			res, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{
				Sender: sender, Receiver: receiver, Amount: coin.MustParse("40"), Description: "rent", ExecuteBefore: clock.Now().Add(time.Hour),
			})
			if err != nil {
				t.Fatal(err)
			}
			cid := res.InstructionCID
			// The lock is the amount and its fee reserve (Splice's).
			reserve := l.Rules().TransferLockReserve(coin.MustParse("40"), l.Rules().InitialPriceUSD, time.Hour)
			afterCreate := "unlocked=" + coin.MustParse("60").Sub(reserve).String() + " locked=" + coin.MustParse("40").Add(reserve).String()
			if diff := cmp.Diff([]string{afterCreate, "unlocked=0.0000000000 locked=0.0000000000"}, balances(t, l, sender, receiver)); diff != "" {
				t.Fatalf("after create (-want +got):\n%s", diff)
			}
			restore, created := ledgertest.Snapshot(t, l), clock.Now()
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					restore(t)
					clock.Set(created)
					party := map[string]coin.PartyID{"sender": sender, "receiver": receiver, "stranger": stranger, "automation": ""}
					clock.Advance(c.advance)
					for _, s := range c.before {
						if _, err := l.Instructions().Move(ctx, party[s.who], cid, s.move); err != nil {
							t.Fatalf("%s by %s: %v", s.move, s.who, err)
						}
					}
					before := balances(t, l, sender, receiver)
					hist0 := historyLens(t, l, sender, receiver)
					ti0, _ := pending.New(l).TransferInstructionByID(ctx, "", cid)
					supply0 := ledgertest.Conserved(t, l)
					_, err = l.Instructions().Move(ctx, party[c.do.who], cid, c.do.move)
					if c.wantErr != nil {
						if !errors.Is(err, c.wantErr) {
							t.Fatalf("%s by %s = %v, want %v", c.do.move, c.do.who, err, c.wantErr)
						}
						t.Logf("refused: %v", err)
						if diff := cmp.Diff(before, balances(t, l, sender, receiver)); diff != "" {
							t.Errorf("a refused move changed balances (-before +after):\n%s", diff)
						}
						ti1, _ := pending.New(l).TransferInstructionByID(ctx, "", cid)
						if ti1.Status != ti0.Status {
							t.Errorf("a refused move changed the status %s -> %s", ti0.Status, ti1.Status)
						}
						if s := ledgertest.Conserved(t, l); !s.Live.Equal(supply0.Live) {
							t.Errorf("a refused move changed the supply %s -> %s", supply0.Live, s.Live)
						}
						if diff := cmp.Diff(hist0, historyLens(t, l, sender, receiver)); diff != "" {
							t.Errorf("a refused move wrote history (-before +after):\n%s", diff)
						}
						return
					}
					if err != nil {
						t.Fatalf("%s by %s: %v", c.do.move, c.do.who, err)
					}
					ti, err := pending.New(l).TransferInstructionByID(ctx, sender, cid)
					if err != nil || ti.Status != c.want {
						t.Fatalf("status = %s, %v; want %s", ti.Status, err, c.want)
					}
					want := []string{
						"unlocked=" + coin.MustParse(c.senderWant).String() + " locked=0.0000000000",
						"unlocked=" + coin.MustParse(c.receiverWant).String() + " locked=0.0000000000",
					}
					if diff := cmp.Diff(want, balances(t, l, sender, receiver)); diff != "" {
						t.Errorf("balances (-want +got):\n%s", diff)
					}
					if len(ti.ResultCIDs) != 1 {
						t.Errorf("result cids = %v, want one holding", ti.ResultCIDs)
					}
					ledgertest.Conserved(t, l)
				})
			}
		})
	}
}

func TestTransferInstructionCreate(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "30")
		ledgertest.Mint(t, l, a, "30")
		req := ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.MustParse("45"), ExecuteBefore: clock.Now().Add(time.Hour), TrackingID: "t-1"}
		res, err := l.Instructions().Create(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != ledger.InstructionPending || res.InstructionCID == "" || len(res.SenderChangeCIDs) != 1 {
			t.Errorf("result = %+v", res)
		}
		ti, err := pending.New(l).TransferInstructionByID(ctx, b, res.InstructionCID)
		if err != nil {
			t.Fatal(err)
		}
		if ti.Contract.TemplateID != ledger.TemplateTransferInstruction || ti.Status != ledger.InstructionPending {
			t.Errorf("instruction = %+v", ti)
		}
		hs, _, err := holdingsview.New(l).List(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		locked := 0
		for _, h := range hs {
			if h.Locked {
				locked++
				if h.Contract.TemplateID != ledger.TemplateLockedAmulet || h.LockHolder != string(res.InstructionCID) ||
					!h.Initial.Equal(coin.MustParse("45").Add(l.Rules().TransferLockReserve(coin.MustParse("45"), l.Rules().InitialPriceUSD, time.Hour))) {
					t.Errorf("locked holding = %+v", h)
				}
			}
		}
		if locked != 1 {
			t.Errorf("%d locked holdings, want 1", locked)
		}
		if _, err := l.Instructions().Create(ctx, req); !errors.Is(err, fault.ErrDuplicate) {
			t.Errorf("reused tracking id = %v, want ErrDuplicate", err)
		}
		list, err := pending.New(l).TransferInstructions(ctx, b)
		if err != nil || len(list) != 1 {
			t.Errorf("receiver's list = %d, %v; want 1", len(list), err)
		}
		bad := []struct {
			name string
			req  ledger.TransferInstructionRequest
			want error
		}{
			{"too much", ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.MustParse("16"), ExecuteBefore: clock.Now().Add(time.Hour)}, fault.ErrInsufficientFunds},
			{"past deadline", ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.MustParse("1"), ExecuteBefore: clock.Now()}, nil},
			{"self", ledger.TransferInstructionRequest{Sender: a, Receiver: a, Amount: coin.MustParse("1"), ExecuteBefore: clock.Now().Add(time.Hour)}, nil},
			{"zero", ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.Zero, ExecuteBefore: clock.Now().Add(time.Hour)}, nil},
			{"unknown receiver", ledger.TransferInstructionRequest{Sender: a, Receiver: coin.PartyID("nobody::" + a.Namespace()), Amount: coin.MustParse("1"), ExecuteBefore: clock.Now().Add(time.Hour)}, fault.ErrNotFound},
		}
		for _, c := range bad {
			_, err := l.Instructions().Create(ctx, c.req)
			if c.want == nil && !fault.IsValidation(err) || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("%s = %v, want %v", c.name, err, c.want)
			}
		}
		// Expiry automation releases the lock back to the sender.
		clock.Advance(2 * time.Hour)
		n, err := expiry.New(l).Instructions(ctx)
		if err != nil || n != 1 {
			t.Fatalf("expired %d, %v; want 1", n, err)
		}
		if n, _ := expiry.New(l).Instructions(ctx); n != 0 {
			t.Errorf("expired again: %d", n)
		}
		bal, _ := l.Balance(ctx, a)
		if !bal.EffectiveUnlocked.Equal(coin.MustParse("60")) || bal.LockedCount != 0 {
			t.Errorf("after expiry balance = %+v", bal)
		}
	})
}

// TestTransferInstructionConcurrentTracking sends one tracking id ten
// times at once: one instruction is created.
func TestTransferInstructionConcurrentTracking(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, a, "100")
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok := 0
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.MustParse("5"), ExecuteBefore: clock.Now().Add(time.Hour), TrackingID: "same"})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, fault.ErrDuplicate), errors.Is(err, fault.ErrInFlight):
				default:
					t.Errorf("create: %v", err)
				}
			}()
		}
		wg.Wait()
		list, err := pending.New(l).TransferInstructions(ctx, a)
		if err != nil || ok != 1 || len(list) != 1 {
			t.Errorf("%d successes, %d instructions (%v); want 1 and 1", ok, len(list), err)
		}
	})
}

// TestTransferInstructionInFlight: while a request with the same tracking
// id is being processed, another one is refused with ErrInFlight (429);
// Postgres only, where the in-flight lock does not wait (SQLite runs one
// writer at a time, so the second request just queues).
func TestTransferInstructionInFlight(t *testing.T) {
	clock := ledgertest.NewClock()
	l := ledgertest.New(t, store.Postgres, ledgertest.Options{Clock: clock})
	ctx := context.Background()
	a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
	ledgertest.Mint(t, l, a, "10")
	release, err := l.HoldInstructionTrackingID(ctx, a, "busy")
	if err != nil {
		t.Fatal(err)
	}
	req := ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: coin.MustParse("1"), ExecuteBefore: clock.Now().Add(time.Hour), TrackingID: "busy"}
	if _, err := l.Instructions().Create(ctx, req); !errors.Is(err, fault.ErrInFlight) {
		t.Errorf("while in flight = %v, want ErrInFlight", err)
	}
	release()
	if _, err := l.Instructions().Create(ctx, req); err != nil {
		t.Errorf("after release = %v", err)
	}
}

// TestTransferToPreapprovedReceiverIsDirect: a token-standard transfer to a
// receiver with a valid preapproval completes in one step, the kind the
// transfer factory names for the pair; once the preapproval has expired
// both say offer and the transfer waits as an instruction (issue 22.3).
func TestTransferToPreapprovedReceiverIsDirect(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		if _, _, err := l.Preapprovals().Create(ctx, receiver); err != nil {
			t.Fatal(err)
		}
		send := func(tracking string) (*ledger.InstructionResult, error) {
			return l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: sender, Receiver: receiver,
				Amount: coin.MustParse("10"), Description: "rent", ExecuteBefore: clock.Now().Add(time.Hour), TrackingID: tracking})
		}
		f, err := registry.New(l).TransferFactoryFor(ctx, sender, receiver)
		if err != nil || f.Kind != ledger.TransferDirect {
			t.Fatalf("factory = %+v, %v; want direct", f.Kind, err)
		}
		res, err := send("d1")
		if err != nil || res.Status != ledger.InstructionCompleted || len(res.ReceiverHoldingCIDs) != 1 || res.InstructionCID != "" {
			t.Fatalf("direct transfer = %+v, %v; want completed with the receiver's holding", res, err)
		}
		if b, err := l.Balance(ctx, receiver); err != nil || !b.EffectiveUnlocked.Equal(coin.MustParse("10")) {
			t.Errorf("receiver's balance = %s, %v; want 10", b.EffectiveUnlocked, err)
		}
		if tis, err := pending.New(l).TransferInstructions(ctx, sender); err != nil || len(tis) != 0 {
			t.Errorf("pending instructions = %d, %v; want none", len(tis), err)
		}
		if _, err := send("d1"); !errors.Is(err, fault.ErrDuplicate) {
			t.Errorf("same tracking id again: %v; want ErrDuplicate", err)
		}
		clock.Advance(ledger.PreapprovalLifetime + time.Hour)
		if f, err := registry.New(l).TransferFactoryFor(ctx, sender, receiver); err != nil || f.Kind != ledger.TransferOffer {
			t.Errorf("factory after the preapproval expired = %+v, %v; want offer", f.Kind, err)
		}
		if res, err := send("d2"); err != nil || res.Status != ledger.InstructionPending || res.InstructionCID == "" {
			t.Errorf("transfer after the preapproval expired = %+v, %v; want pending", res, err)
		}
	})
}
