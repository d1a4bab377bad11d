package holdingsview_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/selftransfer"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/go-cmp/cmp"
)

// sameAsFresh fails t unless the cached service's overview and holdings
// of each party are what a service with nothing cached reads now.
func sameAsFresh(t *testing.T, step string, cached *holdingsview.Service, l *ledger.Ledger, parties ...coin.PartyID) {
	t.Helper()
	ctx := context.Background()
	for _, p := range parties {
		fresh := holdingsview.New(l)
		want, err := fresh.Overview(ctx, p, 40, 100)
		if err != nil {
			t.Fatalf("%s: fresh overview: %v", step, err)
		}
		got, err := cached.Overview(ctx, p, 40, 100)
		if err != nil {
			t.Fatalf("%s: cached overview: %v", step, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%s: the cached overview of %s is not what a fresh read gives (-fresh +cached):\n%s", step, p, d)
		}
		wantB, wantHs, err := fresh.BalanceAndHoldings(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		gotB, gotHs, err := cached.BalanceAndHoldings(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]any{wantB, wantHs}, []any{gotB, gotHs}); d != "" {
			t.Fatalf("%s: the cached holdings of %s are not what a fresh read gives (-fresh +cached):\n%s", step, p, d)
		}
	}
}

// TestCachedHoldingsAfterEveryKindOfCommit: the home page's cached
// valuation (kept by the party's holding version) is what an uncached
// read gives right after each kind of commit that creates or archives
// holdings (mints, one-step sends, offers, instructions and the locks
// they take and release, self-transfers, dust expiry), after rounds
// advance (the valuation's round), and after a snapshot's restore and a
// reset of the development network, on both engines. The cache is warm
// before each step, so a commit that forgot to raise a version would
// serve the old valuation.
func TestCachedHoldingsAfterEveryKindOfCommit(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		// b has a transfer preapproval, c none (its instructions wait).
		a, b, c := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		cached := holdingsview.New(l)
		step := func(name string, do func() error) {
			t.Helper()
			sameAsFresh(t, name+" (before)", cached, l, a, b, c)
			if err := do(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameAsFresh(t, name, cached, l, a, b, c)
		}
		dev := devnet.New(l)
		step("mint", func() error {
			for _, amt := range []string{"100", "40"} {
				if _, err := dev.Mint(ctx, a, coin.MustParse(amt), "test"); err != nil {
					return err
				}
			}
			return nil
		})
		step("preapproval", func() error {
			_, _, err := l.Preapprovals().Create(ctx, b)
			return err
		})
		step("one-step send", func() error {
			_, err := l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: a, Receiver: b, Amount: coin.MustParse("7"), DeduplicationID: "send-1"})
			return err
		})
		var offer ledger.Offer
		step("offer", func() (err error) {
			offer, _, err = l.Offers().Create(ctx, ledger.OfferRequest{Sender: a, Receiver: b, Amount: coin.MustParse("3"), ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "offer-1"})
			return err
		})
		step("offer accepted", func() error {
			_, err := l.Offers().Accept(ctx, b, offer.ContractID)
			return err
		})
		instruct := func(amount string) (coin.ContractID, error) {
			r, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: a, Receiver: c, Amount: coin.MustParse(amount), ExecuteBefore: clock.Now().Add(time.Hour)})
			if err != nil {
				return "", err
			}
			return r.InstructionCID, nil
		}
		for _, end := range []struct {
			name string
			move func(cid coin.ContractID) error
		}{
			{"accepted", func(cid coin.ContractID) error { _, err := l.Instructions().Accept(ctx, c, cid); return err }},
			{"rejected", func(cid coin.ContractID) error { _, err := l.Instructions().Reject(ctx, c, cid); return err }},
			{"withdrawn", func(cid coin.ContractID) error { _, err := l.Instructions().Withdraw(ctx, a, cid); return err }},
		} {
			var cid coin.ContractID
			step("instruction (locks)", func() (err error) { cid, err = instruct("2"); return err })
			step("instruction "+end.name, func() error { return end.move(cid) })
		}
		step("self-transfer", func() error {
			_, err := selftransfer.New(l).Run(ctx, selftransfer.Request{Owner: a, Amount: coin.MustParse("50"), ExecuteBefore: clock.Now().Add(time.Hour)})
			return err
		})
		restore := ledgertest.Snapshot(t, l)
		step("rounds advance", func() error { _, err := dev.AdvanceRounds(ctx, 3); return err })
		count := func(p coin.PartyID) int {
			hs, err := store.HoldingsByOwner(ctx, l.DB(), p)
			if err != nil {
				t.Fatal(err)
			}
			return len(hs)
		}
		step("dust minted", func() error { _, err := dev.Mint(ctx, a, coin.MustParse("0.0000001"), "test"); return err })
		before := count(a)
		step("dust expires", func() error {
			// Advancing the rounds expires the dust (Rounds.ExpireDust).
			clock.Advance(24 * time.Hour)
			_, err := dev.AdvanceRounds(ctx, 40)
			return err
		})
		if count(a) >= before {
			t.Error("no dust expired: the step checked nothing")
		}
		step("restore", func() error { restore(t); return nil })
		step("reset", func() error {
			if err := dev.Reset(ctx); err != nil {
				return err
			}
			// The parties are gone with the reset: Home reads none.
			for _, p := range []coin.PartyID{a, b, c} {
				if v, err := store.HoldingVersion(ctx, l.DB(), p); err != nil || v == 0 {
					t.Errorf("version of %s after the reset = %d, %v; want it raised", p, v, err)
				}
			}
			return nil
		})
	})
}

// TestCachedHoldingsAcrossReplicas: two replicas on one Postgres
// database, each with its own cache, each sending from its own party to
// a receiver both pay, while readers on both replicas keep reading every
// party's overview (racing their caches' fills with the commits). Right
// after each send commits, the other replica's cache shows it: the
// receiver's holdings include the new one (nobody spends them), and the
// sender's overview is what an uncached read gives (only its own writer
// changes it). At the end both caches agree with an uncached read.
func TestCachedHoldingsAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	url := ledgertest.DBURL(t, store.Postgres)
	clock := ledgertest.NewClock()
	ls := []*ledger.Ledger{ledgertest.Open(t, url, ledgertest.Options{Clock: clock}), ledgertest.Open(t, url, ledgertest.Options{Clock: clock})}
	ledgertest.AuditHoldingVersions(t, ls[0].DB())
	caches := []*holdingsview.Service{holdingsview.New(ls[0]), holdingsview.New(ls[1])}
	senders := []coin.PartyID{ledgertest.Party(t, ls[0]), ledgertest.Party(t, ls[1])}
	receiver := ledgertest.Party(t, ls[0])
	if _, _, err := ls[0].Preapprovals().Create(ctx, receiver); err != nil {
		t.Fatal(err)
	}
	const sends = 25
	for _, s := range senders {
		amounts := make([]coin.Amount, sends+5)
		for i := range amounts {
			amounts[i] = coin.MustParse("10")
		}
		if err := devnet.New(ls[0]).MintBulk(ctx, s, amounts); err != nil {
			t.Fatal(err)
		}
	}
	all := append([]coin.PartyID{receiver}, senders...)

	done := make(chan struct{})
	readErr := make(chan error, 2)
	for _, c := range caches {
		go func() {
			for {
				select {
				case <-done:
					readErr <- nil
					return
				default:
				}
				for _, p := range all {
					if _, err := c.Overview(ctx, p, 40, 5); err != nil {
						readErr <- err
						return
					}
				}
			}
		}()
	}
	writeErr := make(chan error, 2)
	for w := range ls {
		go func() {
			writeErr <- func() error {
				mine, other := caches[w], caches[1-w]
				for k := range sends {
					res, err := ls[w].Preapprovals().Send(ctx, ledger.PreapprovalSend{
						Sender: senders[w], Receiver: receiver, Amount: coin.MustParse("1"), DeduplicationID: fmt.Sprintf("send-%d-%d", w, k),
					})
					if err != nil {
						return err
					}
					for _, c := range []*holdingsview.Service{other, mine} {
						_, hs, err := c.BalanceAndHoldings(ctx, receiver)
						if err != nil {
							return err
						}
						if !slices.ContainsFunc(hs, func(h ledger.HoldingView) bool { return h.Contract.ContractID == res.Outputs[0] }) {
							return fmt.Errorf("send %d of writer %d committed, but a cache does not show the receiver's new holding", k, w)
						}
						want, err := holdingsview.New(ls[1-w]).Overview(ctx, senders[w], 40, 5)
						if err != nil {
							return err
						}
						got, err := c.Overview(ctx, senders[w], 40, 5)
						if err != nil {
							return err
						}
						if d := cmp.Diff(want, got); d != "" {
							return fmt.Errorf("send %d of writer %d: a cached overview of the sender is stale (-fresh +cached):\n%s", k, w, d)
						}
					}
				}
				return nil
			}()
		}()
	}
	for range ls {
		if err := <-writeErr; err != nil {
			t.Error(err)
		}
	}
	close(done)
	for range caches {
		if err := <-readErr; err != nil {
			t.Error(err)
		}
	}
	for _, c := range caches {
		sameAsFresh(t, "after the sends", c, ls[0], all...)
	}
	ledgertest.Conserved(t, ls[0])
}
