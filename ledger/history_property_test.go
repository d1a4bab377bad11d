package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/airdrop"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/expiry"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/traffic"
)

// TestHistoryAddsUp is a property test of the history's invariant
// (history.Item): after every step of a random sequence of every
// operation (transfers, offers accepted, rejected, withdrawn and expired,
// instructions accepted, rejected, withdrawn and expired, preapprovals
// created, used, renewed and cancelled, traffic purchases, rewards, merges,
// dust expiry with many rounds advanced, sweeps, airdrops, taps), each party's
// history amounts since the start sum to the change of its available
// balance (EffectiveUnlocked + HoldingFees), and each entry's API sender
// and receivers sum to its amount for the reader. On both engines; the
// seed is logged.
func TestHistoryAddsUp(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			clock := ledgertest.NewClock()
			historyAddsUp(t, ledgertest.New(t, e, ledgertest.Options{Clock: clock}), clock, rand.New(rand.NewPCG(seed, 7)), 120)
		})
	}
}

func historyAddsUp(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock, r *rand.Rand, steps int) {
	ctx := context.Background()
	pays := apppayments.New(l)
	users := []coin.PartyID{ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)}
	parties := append([]coin.PartyID{l.Operator()}, users...)
	// Two delegate merging to the provider, so airdrops reach them; the
	// third is merged as every wallet is.
	delegate(t, l, users[0])
	delegate(t, l, users[1])
	available := func(p coin.PartyID) coin.Amount {
		t.Helper()
		b, err := l.Balance(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return b.EffectiveUnlocked.Add(b.HoldingFees)
	}
	// Each party's history so far: its sum and newest id.
	type seen struct {
		start, sum coin.Amount
		last       int64
	}
	state := map[coin.PartyID]*seen{}
	for _, p := range parties {
		s := &seen{start: available(p), sum: coin.Zero}
		items, err := history.New(l).List(ctx, p, history.Query{PageSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(items) > 0 {
			s.last = items[0].ID
		}
		state[p] = s
	}
	var log []string
	check := func() {
		t.Helper()
		for _, p := range parties {
			s := state[p]
			items, err := history.New(l).List(ctx, p, history.Query{PageSize: history.MaxPage})
			if err != nil {
				t.Fatal(err)
			}
			newest := s.last
			for _, it := range items {
				if it.ID <= s.last {
					break
				}
				newest = max(newest, it.ID)
				s.sum = s.sum.Add(it.Amount)
				if legs := ledgertest.ShareOf(p, it.Sender, it.Receivers); !legs.Equal(it.Amount) {
					t.Fatalf("%s's entry %d (%s %s): sender and receivers give it %s, its amount is %s\nsteps: %s",
						p.Hint(), it.ID, it.Kind, it.Subtype, legs, it.Amount, strings.Join(log, "; "))
				}
			}
			s.last = newest
			if got, want := s.sum, available(p).Sub(s.start); !got.Equal(want) {
				t.Fatalf("%s's history adds up to %s, its available balance changed by %s\nsteps: %s", p.Hint(), got, want, strings.Join(log, "; "))
			}
		}
	}
	for _, u := range users {
		ledgertest.Mint(t, l, u, "2000")
	}
	check()

	pick := func() coin.PartyID { return users[r.IntN(len(users))] }
	pair := func() (coin.PartyID, coin.PartyID) {
		a := pick()
		for {
			if b := pick(); b != a {
				return a, b
			}
		}
	}
	amount := func() coin.Amount { return coin.MustParse(fmt.Sprintf("%d.%03d", r.IntN(300), 1+r.IntN(999))) }
	var instructions, offers []coin.ContractID
	offerSender := map[coin.ContractID]coin.PartyID{}
	var appPayments []coin.ContractID
	appProvider := map[coin.ContractID]coin.PartyID{}
	take := func(list *[]coin.ContractID) (coin.ContractID, bool) {
		if len(*list) == 0 {
			return "", false
		}
		i := r.IntN(len(*list))
		cid := (*list)[i]
		*list = append((*list)[:i], (*list)[i+1:]...)
		return cid, true
	}
	n := 0
	ops := []struct {
		name string
		run  func() error
	}{
		{"transfer", func() error {
			a, b := pair()
			if r.IntN(8) == 0 {
				b = a
			}
			_, err := l.Transfer(ctx, ledger.TransferRequest{Sender: a, Receiver: b, Amount: amount()})
			return err
		}},
		{"instruction", func() error {
			a, b := pair()
			res, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: a, Receiver: b, Amount: amount(), ExecuteBefore: clock.Now().Add(time.Duration(1+r.IntN(3)) * time.Hour)})
			if err == nil {
				instructions = append(instructions, res.InstructionCID)
			}
			return err
		}},
		{"finish instruction", func() error {
			cid, ok := take(&instructions)
			if !ok {
				return nil
			}
			ti, err := pending.New(l).TransferInstructionByID(ctx, "", cid)
			if err != nil {
				return err
			}
			switch r.IntN(3) {
			case 0:
				_, err = l.Instructions().Accept(ctx, ti.Receiver, cid)
			case 1:
				_, err = l.Instructions().Reject(ctx, ti.Receiver, cid)
			default:
				_, err = l.Instructions().Withdraw(ctx, ti.Sender, cid)
			}
			return err
		}},
		{"offer", func() error {
			a, b := pair()
			n++
			o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: a, Receiver: b, Amount: amount(), ExpiresAt: clock.Now().Add(time.Duration(1+r.IntN(3)) * time.Hour), TrackingID: fmt.Sprint("offer-", n)})
			if err == nil {
				offers = append(offers, o.ContractID)
				offerSender[o.ContractID] = a
			}
			return err
		}},
		{"finish offer", func() error {
			cid, ok := take(&offers)
			if !ok {
				return nil
			}
			o, err := pending.New(l).Offer(ctx, offerSender[cid], cid)
			if err != nil {
				return err
			}
			switch r.IntN(3) {
			case 0:
				_, err = l.Offers().Accept(ctx, o.Receiver, cid)
			case 1:
				err = l.Offers().Reject(ctx, o.Receiver, cid)
			default:
				err = l.Offers().Withdraw(ctx, o.Sender, cid)
			}
			return err
		}},
		{"app payment", func() error {
			// b asks a to pay it; a rejects or accepts (the total locked).
			a, b := pair()
			req, err := pays.RequestAppPayment(ctx, []coin.PartyID{b}, apppayments.AppPaymentRequest{Sender: a, Provider: b, Description: "app",
				ExpiresAt:       ledger.FormatTime(clock.Now().Add(time.Hour)),
				ReceiverAmounts: []apppayments.ReceiverAmount{{Receiver: b, Amount: ledger.PaymentAmount{Amount: amount(), Unit: payments.UnitAmulet}}}}, commands.Command{})
			if err != nil || r.IntN(4) == 0 {
				if err == nil {
					_, err = pays.RejectAppPayment(ctx, a, req.Created, commands.Command{})
				}
				return err
			}
			acc, err := pays.AcceptAppPayment(ctx, a, req.Created, commands.Command{})
			if err == nil {
				appPayments = append(appPayments, acc.Created)
				appProvider[acc.Created] = b
			}
			return err
		}},
		{"finish app payment", func() error {
			cid, ok := take(&appPayments)
			if !ok {
				return nil
			}
			move := apppayments.AppPaymentCollect
			if r.IntN(3) == 0 {
				move = apppayments.AppPaymentRefund
			}
			_, err := pays.MoveAcceptedAppPayment(ctx, []coin.PartyID{appProvider[cid]}, cid, move, commands.Command{})
			return err
		}},
		{"preapproval", func() error {
			_, _, err := l.Preapprovals().Create(ctx, pick())
			return err
		}},
		{"preapproved send", func() error {
			a, b := pair()
			n++
			_, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: a, Receiver: b, Amount: amount(), DeduplicationID: fmt.Sprint("send-", n)})
			return err
		}},
		{"renew or cancel preapproval", func() error {
			p, err := provider.New(l).Preapproval(ctx, pick())
			if err != nil {
				return err
			}
			if r.IntN(2) == 0 {
				_, err = l.Preapprovals().Renew(ctx, p.ContractID)
				return err
			}
			return l.Preapprovals().Cancel(ctx, p.Receiver)
		}},
		{"traffic", func() error {
			a := pick()
			n++
			_, err := traffic.New(l).BuyTraffic(ctx, traffic.BuyTrafficRequest{Payer: a, Member: a, SynchronizerID: l.SynchronizerID(), Bytes: l.Rules().MinTopupAmountBytes, ExpiresAt: clock.Now().Add(time.Hour), TrackingID: fmt.Sprint("traffic-", n)})
			return err
		}},
		{"rounds", func() error {
			// Rewards collected, holding fees accrued, small holdings
			// expired as dust, instructions and offers past due expired.
			clock.Advance(time.Duration(r.IntN(120)) * time.Minute)
			if _, err := devnet.New(l).AdvanceRounds(ctx, 1+r.IntN(150)); err != nil {
				return err
			}
			if _, err := expiry.New(l).Instructions(ctx); err != nil {
				return err
			}
			if _, err := pays.ExpireAppPayments(ctx); err != nil {
				return err
			}
			_, err := expiry.New(l).Offers(ctx)
			return err
		}},
		{"small holdings and merge", func() error {
			a := pick()
			amounts := make([]coin.Amount, 3+r.IntN(20))
			for i := range amounts {
				amounts[i] = coin.MustParse(fmt.Sprintf("0.%d", 1+r.IntN(900)))
			}
			if err := ledgertest.Dev(t, l).MintBulk(ctx, a, amounts); err != nil {
				return err
			}
			_, err := delegations.New(l).MergeHoldings(ctx)
			return err
		}},
		{"sweep", func() error {
			a, b := pair()
			_, err := autotransfer.New(l).Sweep(ctx, autotransfer.SweepConfig{Sender: a, Receiver: b, MaxBalanceUSD: coin.MustParse("1"), MinBalanceUSD: coin.MustParse("0.5"), UsePreapproval: r.IntN(2) == 0})
			return err
		}},
		{"airdrop", func() error {
			// From the operator, to delegating users with a preapproval,
			// merging their holdings in the same transaction.
			var shares []airdrop.Share
			for _, u := range users[:2] {
				if _, err := provider.New(l).Preapproval(ctx, u); err == nil && r.IntN(3) > 0 {
					shares = append(shares, airdrop.Share{Party: u, Amount: amount()})
				}
			}
			if len(shares) == 0 {
				return nil
			}
			if _, err := devnet.Tap(ctx, l, l.Operator(), coin.MustParse("10"), fmt.Sprint("airdrop-", n)); err != nil {
				return err
			}
			n++
			_, err := airdrop.New(l).Airdrop(ctx, airdrop.Request{Shares: shares, Description: "airdrop"})
			return err
		}},
		{"tap", func() error {
			n++
			_, err := devnet.Tap(ctx, l, pick(), coin.MustParse("2"), fmt.Sprint("tap-", n))
			return err
		}},
	}
	for range steps {
		op := ops[r.IntN(len(ops))]
		err := op.run()
		switch {
		case err == nil:
			log = append(log, op.name)
		case fault.IsValidation(err), errors.Is(err, fault.ErrInsufficientFunds), errors.Is(err, fault.ErrNotFound),
			errors.Is(err, fault.ErrExpired), errors.Is(err, ledger.ErrInstructionFinished), errors.Is(err, fault.ErrConflict):
			log = append(log, op.name+" (refused)")
		default:
			t.Fatalf("%s: %v\nsteps: %s", op.name, err, strings.Join(log, "; "))
		}
		check()
	}
	t.Logf("steps: %s", strings.Join(log, "; "))
}
