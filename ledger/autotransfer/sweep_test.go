package autotransfer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/google/go-cmp/cmp"
)

// At the initial price of 0.005 USD, 1000 coin is 5 USD.
func TestSweep(t *testing.T) {
	tests := []struct {
		name        string
		mint        string
		outstanding string // a plain offer to the receiver, open
		preapproval bool   // the receiver has one
		usePre      bool
		wantAmount  string
		wantErr     string
		// balances of sender and receiver after the sweep (and acceptance).
		want []string
	}{
		{name: "above max: offer", mint: "1000", wantAmount: "800", want: []string{"unlocked=200.0000000000 locked=0.0000000000", "unlocked=800.0000000000 locked=0.0000000000"}},
		{name: "exactly at max: nothing", mint: "800", wantAmount: "0", want: []string{"unlocked=800.0000000000 locked=0.0000000000", "unlocked=0.0000000000 locked=0.0000000000"}},
		{name: "outstanding offers count", mint: "1000", outstanding: "300", wantAmount: "0",
			want: []string{"unlocked=1000.0000000000 locked=0.0000000000", "unlocked=0.0000000000 locked=0.0000000000"}},
		{name: "preapproval", mint: "1000", preapproval: true, usePre: true, wantAmount: "800",
			want: []string{"unlocked=200.0000000000 locked=0.0000000000", "unlocked=800.0000000000 locked=0.0000000000"}},
		{name: "preapproval missing: fails", mint: "1000", usePre: true, wantAmount: "0", wantErr: "has no valid transfer preapproval",
			want: []string{"unlocked=1000.0000000000 locked=0.0000000000", "unlocked=0.0000000000 locked=0.0000000000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
				ctx := context.Background()
				sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
				ledgertest.Mint(t, l, sender, tt.mint)
				if tt.outstanding != "" {
					if _, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: sender, Receiver: receiver, Amount: coin.MustParse(tt.outstanding),
						ExpiresAt: clock.Now().Add(time.Hour), TrackingID: "plain"}); err != nil {
						t.Fatal(err)
					}
				}
				if tt.preapproval {
					if _, _, err := l.Preapprovals().Create(ctx, receiver); err != nil {
						t.Fatal(err)
					}
				}
				cfg := autotransfer.SweepConfig{Sender: sender, Receiver: receiver, MaxBalanceUSD: coin.MustParse("4"), MinBalanceUSD: coin.MustParse("1"), UsePreapproval: tt.usePre}
				if err := autotransfer.New(l).CheckSweep(ctx, cfg); err != nil {
					t.Fatal(err)
				}
				res, err := autotransfer.New(l).Sweep(ctx, cfg)
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "sweep") {
						t.Errorf("err = %v, want %q", err, tt.wantErr)
					}
				} else if err != nil {
					t.Fatal(err)
				}
				if !res.Amount.Equal(coin.MustParse(tt.wantAmount)) {
					t.Errorf("swept %s, want %s", res.Amount, tt.wantAmount)
				}
				if res.OfferCID != "" {
					o, err := pending.New(l).Offer(ctx, receiver, res.OfferCID)
					if err != nil {
						t.Fatal(err)
					}
					if o.Description != "Sweeping wallet funds to receiver "+string(receiver)+"." || !o.ExpiresAt.Equal(clock.Now().Add(10*time.Minute)) ||
						!strings.HasPrefix(o.TrackingID, "sweep-") || !o.Amount.Equal(res.Amount) {
						t.Errorf("sweep offer = %+v", o)
					}
					// While it is open, no second sweep offer.
					again, err := autotransfer.New(l).Sweep(ctx, cfg)
					if err != nil || again.Amount.IsPositive() {
						t.Errorf("second sweep = %+v, %v; want nothing while the offer is open", again, err)
					}
					if _, err := l.Offers().Accept(ctx, receiver, res.OfferCID); err != nil {
						t.Fatal(err)
					}
				}
				if diff := cmp.Diff(tt.want, ledgertest.Balances(t, l, sender, receiver)); diff != "" {
					t.Errorf("balances (-want +got):\n%s", diff)
				}
				// At min now (or untouched): a further run does nothing new.
				if again, err := autotransfer.New(l).Sweep(ctx, cfg); (err == nil) == (tt.wantErr != "") || again.Amount.IsPositive() {
					t.Errorf("sweep after = %+v, %v", again, err)
				}
			})
		})
	}
}

func TestCheckSweep(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[1])
	ctx := context.Background()
	a, b := ledgertest.Party(t, l), ledgertest.Party(t, l)
	unknown := coin.PartyID("nobody::1220" + strings.Repeat("cd", 32))
	tests := []struct {
		name string
		cfg  autotransfer.SweepConfig
		want string
	}{
		{"ok", autotransfer.SweepConfig{Sender: a, Receiver: b, MaxBalanceUSD: coin.MustParse("5"), MinBalanceUSD: coin.MustParse("5")}, ""},
		{"min above max", autotransfer.SweepConfig{Sender: a, Receiver: b, MaxBalanceUSD: coin.MustParse("5"), MinBalanceUSD: coin.MustParse("6")},
			"walletSweep." + string(a) + ": minBalanceUSD 6 is greater than maxBalanceUSD 5"},
		{"negative", autotransfer.SweepConfig{Sender: a, Receiver: b, MaxBalanceUSD: coin.MustParse("-1"), MinBalanceUSD: coin.MustParse("-2")},
			"walletSweep." + string(a) + ".minBalanceUSD: must not be negative"},
		{"self", autotransfer.SweepConfig{Sender: a, Receiver: a}, "walletSweep." + string(a) + ".receiver: must differ"},
		{"unknown sender", autotransfer.SweepConfig{Sender: unknown, Receiver: b}, "walletSweep." + string(unknown) + ": sender"},
		{"unknown receiver", autotransfer.SweepConfig{Sender: a, Receiver: unknown}, "walletSweep." + string(a) + ".receiver: no party"},
	}
	for _, tt := range tests {
		err := autotransfer.New(l).CheckSweep(ctx, tt.cfg)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}
