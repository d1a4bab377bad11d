package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/rewards"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/store"
)

// fee90 is 90 days × 0.00274 USD/day ÷ 0.005 USD/CC.
var fee90 = coin.MustParse("49.32")

func TestPreapprovalCreateAndSend(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		sender, receiver, other := ledgertest.Party(t, l), ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "100")
		before := ledgertest.Conserved(t, l)

		// The operator has nothing: on devnet the fee is tapped, then burned.
		cid, exists, err := l.Preapprovals().Create(ctx, receiver)
		if err != nil || exists {
			t.Fatalf("create = %s, %v, %v", cid, exists, err)
		}
		after := ledgertest.Conserved(t, l)
		if burned := after.Burned.Sub(before.Burned); !burned.Equal(fee90) {
			t.Errorf("burned %s, want the fee %s", burned, fee90)
		}
		if got := balance(t, l, l.Operator()); got != "0.0000000000" {
			t.Errorf("operator balance = %s, want 0 (tapped exactly the fee)", got)
		}
		if vc, err := rewards.New(l).Coupons(ctx, l.Operator(), ledger.RewardValidator); err != nil || len(vc) != 1 {
			t.Errorf("validator reward coupons for the fee = %d, %v; want 1", len(vc), err)
		}
		again, exists, err := l.Preapprovals().Create(ctx, receiver)
		if err != nil || !exists || again != cid {
			t.Errorf("second create = %s, %v, %v; want the existing %s", again, exists, err, cid)
		}
		p, err := provider.New(l).Preapproval(ctx, receiver)
		if err != nil || p.Provider != l.Operator() || !p.ExpiresAt.Equal(clock.Now().Add(ledger.PreapprovalLifetime)) {
			t.Fatalf("preapproval = %+v, %v", p, err)
		}
		if !strings.Contains(string(p.Contract.Payload), `"provider":"`+string(l.Operator())) {
			t.Errorf("payload = %s", p.Contract.Payload)
		}

		send := ledger.PreapprovalSend{Sender: sender, Receiver: receiver, Amount: coin.MustParse("10"), DeduplicationID: "d-1", Description: "tip"}
		if _, err := l.Preapprovals().Send(ctx, send); err != nil {
			t.Fatal(err)
		}
		if got := balance(t, l, receiver); got != "10.0000000000" {
			t.Errorf("receiver balance = %s", got)
		}
		coupons, err := rewards.New(l).Coupons(ctx, l.Operator(), ledger.RewardApp)
		if err != nil || len(coupons) != 1 || !strings.Contains(string(coupons[0].Payload), `"featured":true`) {
			t.Errorf("app reward coupons of the featured provider = %+v, %v; want one", coupons, err)
		}
		if _, err := l.Preapprovals().Send(ctx, send); !errors.Is(err, fault.ErrDuplicate) {
			t.Errorf("replayed deduplication id = %v, want ErrDuplicate", err)
		}
		if got := balance(t, l, receiver); got != "10.0000000000" {
			t.Errorf("receiver balance after replay = %s", got)
		}
		clock.Advance(25 * time.Hour)
		if _, err := l.Preapprovals().Send(ctx, send); err != nil {
			t.Errorf("deduplication id after 24 h = %v, want allowed", err)
		}
		send.Receiver, send.DeduplicationID = other, "d-2"
		if _, err := l.Preapprovals().Send(ctx, send); !fault.IsValidation(err) {
			t.Errorf("send to a receiver without preapproval = %v, want a validation error", err)
		}
		items, err := history.New(l).List(ctx, sender, history.Query{PageSize: 1})
		if err != nil || len(items) != 1 || items[0].Subtype != "TransferPreapprovalSend" {
			t.Errorf("sender history = %+v, %v", items, err)
		}
	})
}

func TestPreapprovalRenewalAndExpiry(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		receiver := ledgertest.Party(t, l)
		cid, _, err := l.Preapprovals().Create(ctx, receiver)
		if err != nil {
			t.Fatal(err)
		}
		first, _ := provider.New(l).Preapproval(ctx, receiver)
		if n, err := provider.New(l).RenewDue(ctx); err != nil || n != 0 {
			t.Errorf("renew a fresh one = %d, %v; want 0", n, err)
		}
		clock.Advance(61 * 24 * time.Hour) // 29 days left: inside the window
		if n, err := provider.New(l).RenewDue(ctx); err != nil || n != 1 {
			t.Fatalf("renew due = %d, %v; want 1", n, err)
		}
		renewed, err := provider.New(l).Preapproval(ctx, receiver)
		if err != nil || renewed.ContractID == cid || !renewed.ExpiresAt.Equal(first.ExpiresAt.Add(ledger.PreapprovalLifetime)) ||
			!renewed.ValidFrom.Equal(first.ValidFrom) || !renewed.LastRenewedAt.Equal(clock.Now()) {
			t.Fatalf("renewed = %+v, %v", renewed, err)
		}
		if _, err := l.Preapprovals().Renew(ctx, cid); !errors.Is(err, fault.ErrConflict) {
			t.Errorf("renew the archived one = %v, want ErrConflict", err)
		}
		clock.Advance(200 * 24 * time.Hour)
		if n, err := provider.New(l).RenewDue(ctx); err != nil || n != 0 {
			t.Errorf("renew due after expiry = %d, %v; want 0 (never an expired one)", n, err)
		}
		if _, err := l.Preapprovals().Renew(ctx, renewed.ContractID); !errors.Is(err, fault.ErrExpired) {
			t.Errorf("renew an expired one = %v, want ErrExpired", err)
		}
		if _, err := provider.New(l).Preapproval(ctx, receiver); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("Preapprovals().Of an expired one = %v, want ErrNotFound", err)
		}
		// A new one replaces the expired one.
		fresh, exists, err := l.Preapprovals().Create(ctx, receiver)
		if err != nil || exists || fresh == renewed.ContractID {
			t.Errorf("create after expiry = %s, %v, %v", fresh, exists, err)
		}
		if err := l.Preapprovals().Cancel(ctx, receiver); err != nil {
			t.Fatal(err)
		}
		if err := l.Preapprovals().Cancel(ctx, receiver); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("cancel twice = %v, want ErrNotFound", err)
		}
		if ps, err := provider.New(l).Preapprovals(ctx); err != nil || len(ps) != 0 {
			t.Errorf("preapprovals after cancel = %d, %v", len(ps), err)
		}
	})
}

func TestPreapprovalFeeOutsideDevNet(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := ledgertest.DBURL(t, e)
			l, err := ledgertest.OpenLedger(ctx, ledgertest.OpenDB(t, url), ledger.Config{AdminUsers: []string{"admin"}})
			if err != nil {
				t.Fatal(err)
			}
			receiver, err := users.Of(l).Onboard(ctx, "bob", "")
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = l.Preapprovals().Create(ctx, receiver)
			if !fault.IsValidation(err) || !strings.Contains(err.Error(), "the validator operator cannot pay the preapproval fee (missing 49.32 CC)") {
				t.Fatalf("create without operator funds = %v", err)
			}
			// A production ledger cannot mint; the coin comes from a
			// development replica of the same database, as a test seeds it.
			if _, err := l.Dev(); !errors.Is(err, fault.ErrDisabled) {
				t.Fatalf("Dev on a production ledger = %v, want ErrDisabled", err)
			}
			// The replica keeps the network's (wall) time: with the test
			// clock, weeks behind, no open round would have opened yet.
			clock := ledgertest.NewClock()
			clock.Advance(time.Since(clock.Now()))
			ledgertest.Mint(t, ledgertest.Open(t, url, ledgertest.Options{Clock: clock}), l.Operator(), "60")
			if _, _, err := l.Preapprovals().Create(ctx, receiver); err != nil {
				t.Fatal(err)
			}
			if got := balance(t, l, l.Operator()); got != "10.6800000000" {
				t.Errorf("operator balance = %s, want 60 - 49.32", got)
			}
			ledgertest.Conserved(t, l)
		})
	}
}

// TestPreapprovalCreationInFlight: while a preapproval for the same
// receiver is being created, another request is refused with ErrInFlight
// (the spec's 429) and changes nothing; Postgres only, where the in-flight
// lock does not wait.
func TestPreapprovalCreationInFlight(t *testing.T) {
	l := ledgertest.New(t, store.Postgres)
	ctx := context.Background()
	receiver := ledgertest.Party(t, l)
	release, err := l.HoldPreapprovalCreation(ctx, receiver)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Preapprovals().Create(ctx, receiver); !errors.Is(err, fault.ErrInFlight) {
		t.Errorf("while in flight = %v, want ErrInFlight", err)
	}
	if _, err := provider.New(l).Preapproval(ctx, receiver); !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("a refused creation left a preapproval: %v", err)
	}
	release()
	if _, exists, err := l.Preapprovals().Create(ctx, receiver); err != nil || exists {
		t.Errorf("after release = %v, exists %v", err, exists)
	}
}
