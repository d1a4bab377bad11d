package ledger_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/expiry"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

func balance(t *testing.T, l *ledger.Ledger, p coin.PartyID) string {
	t.Helper()
	b, err := l.Balance(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return b.EffectiveUnlocked.String()
}

// offerState is what a state change may touch: the offer's status and both
// balances.
type offerState struct {
	Status, FailureKind string
	Sender, Receiver    string
	Open                int
}

func stateOf(t *testing.T, l *ledger.Ledger, sender, receiver coin.PartyID, cid coin.ContractID) offerState {
	t.Helper()
	o, err := pending.New(l).Offer(context.Background(), sender, cid)
	if err != nil {
		t.Fatal(err)
	}
	open, err := pending.New(l).Offers(context.Background(), sender)
	if err != nil {
		t.Fatal(err)
	}
	return offerState{Status: o.Status, FailureKind: o.FailureKind, Sender: balance(t, l, sender), Receiver: balance(t, l, receiver), Open: len(open)}
}

// historyLens counts the history items of each party: a refused move
// records nothing.
func historyLens(t *testing.T, l *ledger.Ledger, ps ...coin.PartyID) []int {
	return ledgertest.HistoryLens(t, l, ps...)
}

// TestOfferStateChanges runs every move on a transfer offer, legal and
// illegal. An illegal move is refused with its error and changes nothing:
// not the offer, not a balance, not the supply.
func TestOfferStateChanges(t *testing.T) {
	type step struct {
		actor   string // sender, receiver, stranger
		action  string // accept, reject, withdraw, expire (run expiry.Offers), wait (pass the expiry)
		wantErr error  // nil: allowed
	}
	cases := []struct {
		name  string
		funds string
		steps []step
		want  offerState
	}{
		{"accept completes the transfer", "100", []step{{"receiver", "accept", nil}},
			offerState{ledger.OfferCompleted, "", "90.0000000000", "10.0000000000", 0}},
		{"reject", "100", []step{{"receiver", "reject", nil}},
			offerState{ledger.OfferFailed, ledger.OfferRejected, "100.0000000000", "0.0000000000", 0}},
		{"withdraw", "100", []step{{"sender", "withdraw", nil}},
			offerState{ledger.OfferFailed, ledger.OfferWithdrawn, "100.0000000000", "0.0000000000", 0}},
		{"accept after withdraw", "100", []step{{"sender", "withdraw", nil}, {"receiver", "accept", ledger.ErrOfferFinished}},
			offerState{ledger.OfferFailed, ledger.OfferWithdrawn, "100.0000000000", "0.0000000000", 0}},
		{"withdraw after accept", "100", []step{{"receiver", "accept", nil}, {"sender", "withdraw", ledger.ErrOfferFinished}},
			offerState{ledger.OfferCompleted, "", "90.0000000000", "10.0000000000", 0}},
		{"accept by the sender", "100", []step{{"sender", "accept", fault.ErrForbidden}},
			offerState{ledger.OfferCreated, "", "100.0000000000", "0.0000000000", 1}},
		{"accept by a stranger", "100", []step{{"stranger", "accept", fault.ErrNotFound}},
			offerState{ledger.OfferCreated, "", "100.0000000000", "0.0000000000", 1}},
		{"reject by the sender", "100", []step{{"sender", "reject", fault.ErrForbidden}},
			offerState{ledger.OfferCreated, "", "100.0000000000", "0.0000000000", 1}},
		{"withdraw by the receiver", "100", []step{{"receiver", "withdraw", fault.ErrForbidden}},
			offerState{ledger.OfferCreated, "", "100.0000000000", "0.0000000000", 1}},
		{"reject twice", "100", []step{{"receiver", "reject", nil}, {"receiver", "reject", ledger.ErrOfferFinished}},
			offerState{ledger.OfferFailed, ledger.OfferRejected, "100.0000000000", "0.0000000000", 0}},
		{"accept after expiry", "100", []step{{"", "wait", nil}, {"receiver", "accept", fault.ErrExpired}},
			offerState{ledger.OfferCreated, "", "100.0000000000", "0.0000000000", 1}},
		{"expiry ends it", "100", []step{{"", "wait", nil}, {"", "expire", nil}, {"receiver", "accept", ledger.ErrOfferFinished}, {"sender", "withdraw", ledger.ErrOfferFinished}},
			offerState{ledger.OfferFailed, ledger.OfferExpired, "100.0000000000", "0.0000000000", 0}},
		// The funds leave after the offer was made (an instruction locks
		// 95 and its fee reserve, 0.09132432 for an hour): the acceptance
		// stands and the offer fails.
		{"accept without funds", "100", []step{{"sender", "lock95", nil}, {"receiver", "accept", nil}, {"receiver", "accept", ledger.ErrOfferFinished}},
			offerState{ledger.OfferFailed, ledger.OfferWithdrawn, "4.9086756800", "0.0000000000", 0}},
		{"accept twice", "100", []step{{"receiver", "accept", nil}, {"receiver", "accept", ledger.ErrOfferFinished}},
			offerState{ledger.OfferCompleted, "", "90.0000000000", "10.0000000000", 0}},
		{"reject after accept", "100", []step{{"receiver", "accept", nil}, {"receiver", "reject", ledger.ErrOfferFinished}},
			offerState{ledger.OfferCompleted, "", "90.0000000000", "10.0000000000", 0}},
		{"accept after reject", "100", []step{{"receiver", "reject", nil}, {"receiver", "accept", ledger.ErrOfferFinished}},
			offerState{ledger.OfferFailed, ledger.OfferRejected, "100.0000000000", "0.0000000000", 0}},
		{"withdraw after reject", "100", []step{{"receiver", "reject", nil}, {"sender", "withdraw", ledger.ErrOfferFinished}},
			offerState{ledger.OfferFailed, ledger.OfferRejected, "100.0000000000", "0.0000000000", 0}},
		{"reject after withdraw", "100", []step{{"sender", "withdraw", nil}, {"receiver", "reject", ledger.ErrOfferFinished}},
			offerState{ledger.OfferFailed, ledger.OfferWithdrawn, "100.0000000000", "0.0000000000", 0}},
		{"withdraw twice", "100", []step{{"sender", "withdraw", nil}, {"sender", "withdraw", ledger.ErrOfferFinished}},
			offerState{ledger.OfferFailed, ledger.OfferWithdrawn, "100.0000000000", "0.0000000000", 0}},
		{"reject by a stranger", "100", []step{{"stranger", "reject", fault.ErrNotFound}},
			offerState{ledger.OfferCreated, "", "100.0000000000", "0.0000000000", 1}},
		{"withdraw by a stranger", "100", []step{{"stranger", "withdraw", fault.ErrNotFound}},
			offerState{ledger.OfferCreated, "", "100.0000000000", "0.0000000000", 1}},
		{"a refused withdraw leaves the offer to accept", "100", []step{{"receiver", "withdraw", fault.ErrForbidden}, {"receiver", "accept", nil}},
			offerState{ledger.OfferCompleted, "", "90.0000000000", "10.0000000000", 0}},
		// Past the expiry, before the expiry job ran: the offer can no longer
		// be accepted, but either side may still end it.
		{"reject after expiry", "100", []step{{"", "wait", nil}, {"receiver", "reject", nil}},
			offerState{ledger.OfferFailed, ledger.OfferRejected, "100.0000000000", "0.0000000000", 0}},
		{"withdraw after expiry", "100", []step{{"", "wait", nil}, {"sender", "withdraw", nil}, {"", "expire-none", nil}},
			offerState{ledger.OfferFailed, ledger.OfferWithdrawn, "100.0000000000", "0.0000000000", 0}},
		{"reject after expired", "100", []step{{"", "wait", nil}, {"", "expire", nil}, {"receiver", "reject", ledger.ErrOfferFinished}},
			offerState{ledger.OfferFailed, ledger.OfferExpired, "100.0000000000", "0.0000000000", 0}},
	}
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				sender, receiver, stranger := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
				ledgertest.Mint(t, l, sender, tc.funds)
				o, created, err := l.Offers().Create(ctx, ledger.OfferRequest{
					Sender: sender, Receiver: receiver, Amount: coin.MustParse("10"), Description: "lunch",
					ExpiresAt: clock.Now().Add(time.Hour), TrackingID: uuid.NewString(),
				})
				if err != nil || !created {
					t.Fatalf("create = %v, %v", created, err)
				}
				actors := map[string]coin.PartyID{"sender": sender, "receiver": receiver, "stranger": stranger}
				for i, s := range tc.steps {
					before := stateOf(t, l, sender, receiver, o.ContractID)
					histBefore := historyLens(t, l, sender, receiver)
					supply := ledgertest.Conserved(t, l)
					switch s.action {
					case "accept":
						_, err = l.Offers().Accept(ctx, actors[s.actor], o.ContractID)
					case "reject":
						err = l.Offers().Reject(ctx, actors[s.actor], o.ContractID)
					case "withdraw":
						err = l.Offers().Withdraw(ctx, actors[s.actor], o.ContractID)
					case "lock95":
						_, err = l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: sender, Receiver: stranger,
							Amount: coin.MustParse("95"), ExecuteBefore: clock.Now().Add(time.Hour), TrackingID: uuid.NewString()})
					case "wait":
						clock.Advance(2 * time.Hour)
					case "expire":
						var n int
						n, err = expiry.New(l).Offers(ctx)
						if err == nil && n < 1 {
							t.Errorf("step %d: expiry.Offers ended %d offers, want at least 1", i, n)
						}
					case "expire-none":
						// The offer ended already: the job leaves it as it is.
						var n int
						n, err = expiry.New(l).Offers(ctx)
						if cur, _ := pending.New(l).Offer(ctx, sender, o.ContractID); err == nil && cur.FailureKind == ledger.OfferExpired {
							t.Errorf("step %d: expiry.Offers (%d) expired an ended offer", i, n)
						}
					}
					if s.wantErr == nil && err != nil {
						t.Fatalf("step %d (%s %s): %v", i, s.actor, s.action, err)
					}
					if s.wantErr != nil {
						if !errors.Is(err, s.wantErr) {
							t.Fatalf("step %d (%s %s) = %v, want %v", i, s.actor, s.action, err, s.wantErr)
						}
						if diff := cmp.Diff(before, stateOf(t, l, sender, receiver, o.ContractID)); diff != "" {
							t.Errorf("refused step %d changed the offer (-before +after):\n%s", i, diff)
						}
						if after := ledgertest.Conserved(t, l); !after.Live.Equal(supply.Live) || !after.Burned.Equal(supply.Burned) {
							t.Errorf("refused step %d changed the supply: %+v -> %+v", i, supply, after)
						}
						if diff := cmp.Diff(histBefore, historyLens(t, l, sender, receiver)); diff != "" {
							t.Errorf("refused step %d wrote history (-before +after):\n%s", i, diff)
						}
					}
				}
				if diff := cmp.Diff(tc.want, stateOf(t, l, sender, receiver, o.ContractID)); diff != "" {
					t.Errorf("final state (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestOfferStatusAndHistory(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver, stranger := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "50")
		o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: sender, Receiver: receiver, Amount: coin.MustParse("20"),
			Description: "books", ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "t-1"})
		if err != nil {
			t.Fatal(err)
		}
		st, err := pending.New(l).OfferStatus(ctx, sender, "t-1")
		if err != nil || st.Status != ledger.OfferCreated || st.CreatedTx == "" || st.ContractID != o.ContractID {
			t.Fatalf("status = %+v, %v; want created", st, err)
		}
		if _, err := pending.New(l).OfferStatus(ctx, stranger, "t-1"); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("stranger's status = %v, want ErrNotFound", err)
		}
		accepted, err := l.Offers().Accept(ctx, receiver, o.ContractID)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []coin.PartyID{sender, receiver} {
			st, err := pending.New(l).OfferStatus(ctx, p, "t-1")
			if err != nil || st.Status != ledger.OfferCompleted || st.CompletedTx == "" || st.AcceptedCID != accepted {
				t.Fatalf("status for %s = %+v, %v", p, st, err)
			}
			hs, _, _ := holdingsview.New(l).List(ctx, receiver)
			if len(hs) != 1 || hs[0].Contract.ContractID != st.CompletedCID {
				t.Errorf("completed contract %s is not the receiver's new holding %+v", st.CompletedCID, hs)
			}
			items, err := history.New(l).List(ctx, p, history.Query{PageSize: 10})
			if err != nil || len(items) == 0 || items[0].Subtype != "P2PPaymentCompleted" || items[0].Description != "books" {
				t.Errorf("history of %s = %+v, %v", p, items, err)
			}
		}
		if acc, _ := pending.New(l).AcceptedOffers(ctx, receiver); len(acc) != 0 {
			t.Errorf("accepted offers left after completion: %d", len(acc))
		}
	})
}

func TestCreateOfferValidation(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ok := ledger.OfferRequest{Sender: sender, Receiver: receiver, Amount: coin.MustParse("1"), ExpiresAt: clock.Now().Add(time.Minute), TrackingID: "x"}
		cases := []struct {
			name  string
			edit  func(r *ledger.OfferRequest)
			field string
		}{
			{"unknown receiver", func(r *ledger.OfferRequest) { r.Receiver = coin.PartyID("nobody::" + sender.Namespace()) }, "receiver_party_id"},
			{"self", func(r *ledger.OfferRequest) { r.Receiver = sender }, "receiver_party_id"},
			{"zero amount", func(r *ledger.OfferRequest) { r.Amount = coin.Zero }, "amount"},
			{"long description", func(r *ledger.OfferRequest) { r.Description = strings.Repeat("a", 280) }, "description"},
			{"past expiry", func(r *ledger.OfferRequest) { r.ExpiresAt = clock.Now().Add(-time.Second) }, "expires_at"},
			{"no tracking id", func(r *ledger.OfferRequest) { r.TrackingID = " " }, "tracking_id"},
		}
		for _, tc := range cases {
			r := ok
			tc.edit(&r)
			_, _, err := l.Offers().Create(ctx, r)
			var ve *fault.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Errorf("%s: err = %v, want a validation error on %s", tc.name, err, tc.field)
			}
		}
		if cs, _ := pending.New(l).Offers(ctx, sender); len(cs) != 0 {
			t.Errorf("refused requests created %d offers", len(cs))
		}
	})
}

// TestOfferTrackingIDIsIdempotent sends one tracking id 10 times at once:
// exactly one offer exists afterwards; every request either got that offer
// or was told it is in flight.
func TestOfferTrackingIDIsIdempotent(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "10")
		req := ledger.OfferRequest{Sender: sender, Receiver: receiver, Amount: coin.MustParse("3"), Description: "d",
			ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "same-id"}
		var (
			mu       sync.Mutex
			cids     = map[coin.ContractID]bool{}
			created  int
			inFlight int
			wg       sync.WaitGroup
		)
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o, c, err := l.Offers().Create(ctx, req)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case errors.Is(err, fault.ErrInFlight):
					inFlight++
				case err != nil:
					t.Errorf("create: %v", err)
				default:
					cids[o.ContractID] = true
					if c {
						created++
					}
				}
			}()
		}
		wg.Wait()
		if len(cids) != 1 || created != 1 {
			t.Errorf("got %d distinct offers, %d created (%d in flight); want exactly one", len(cids), created, inFlight)
		}
		if cs, _ := pending.New(l).Offers(ctx, sender); len(cs) != 1 {
			t.Errorf("%d open offers, want 1", len(cs))
		}
		again, c, err := l.Offers().Create(ctx, req)
		if err != nil || c || !cids[again.ContractID] {
			t.Errorf("replay = %v, created %v, %v; want the same offer", again.ContractID, c, err)
		}
		req.Amount = coin.MustParse("4")
		if _, _, err := l.Offers().Create(ctx, req); !errors.Is(err, fault.ErrDuplicate) {
			t.Errorf("same tracking id, other amount = %v, want ErrDuplicate", err)
		}
		// A retry after the expiry still gets the offer back.
		req.Amount = coin.MustParse("3")
		clock.Advance(2 * time.Hour)
		if late, c, err := l.Offers().Create(ctx, req); err != nil || c || late.ContractID != again.ContractID {
			t.Errorf("replay after expiry = %v, created %v, %v; want the same offer", late.ContractID, c, err)
		}
	})
}

// TestOfferRaceAcceptWithdraw races the receiver's accept against the
// sender's withdraw: exactly one wins, the other is refused, and the
// balances match the winner.
func TestOfferRaceAcceptWithdraw(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		for round := range 5 {
			sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
			ledgertest.Mint(t, l, sender, "10")
			o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: sender, Receiver: receiver, Amount: coin.MustParse("4"),
				ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "race"})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			wg.Add(2)
			go func() { defer wg.Done(); _, errs[0] = l.Offers().Accept(ctx, receiver, o.ContractID) }()
			go func() { defer wg.Done(); errs[1] = l.Offers().Withdraw(ctx, sender, o.ContractID) }()
			wg.Wait()
			if (errs[0] == nil) == (errs[1] == nil) {
				t.Fatalf("round %d: accept = %v, withdraw = %v; want exactly one to win", round, errs[0], errs[1])
			}
			for _, err := range errs {
				if err != nil && !errors.Is(err, ledger.ErrOfferFinished) {
					t.Errorf("round %d: loser got %v, want ErrOfferFinished", round, err)
				}
			}
			want := "0.0000000000"
			if errs[0] == nil {
				want = "4.0000000000"
			}
			if got := balance(t, l, receiver); got != want {
				t.Errorf("round %d: receiver has %s, want %s", round, got, want)
			}
		}
	})
}

// TestOfferBeyondBalance: an offer locks nothing, yet one of more than the
// sender's available balance is refused when it is made, for every caller
// (the web form used to be the only one to check), and nothing is written.
func TestOfferBeyondBalance(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "10")
		req := ledger.OfferRequest{Sender: sender, Receiver: receiver, Amount: coin.MustParse("10.0000000001"),
			ExpiresAt: clock.Now().Add(time.Hour), TrackingID: uuid.NewString()}
		_, _, err := l.Offers().Create(ctx, req)
		if !errors.Is(err, fault.ErrInsufficientFunds) || !strings.Contains(err.Error(), "available 10 CC") {
			t.Fatalf("offer beyond the balance = %v, want ErrInsufficientFunds naming the available amount", err)
		}
		if open, _ := pending.New(l).Offers(ctx, sender); len(open) != 0 {
			t.Errorf("a refused offer was stored: %+v", open)
		}
		req.Amount, req.TrackingID = coin.MustParse("10"), uuid.NewString()
		if _, _, err := l.Offers().Create(ctx, req); err != nil {
			t.Fatalf("offer of the whole balance: %v", err)
		}
		ledgertest.Conserved(t, l)
	})
}
