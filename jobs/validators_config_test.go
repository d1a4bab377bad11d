package jobs_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/ccwallet/ccwallet/ledger/validators"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/google/go-cmp/cmp"
)

// TestValidatorsRunTheirConfiguredAutomations: on a network of two
// validators (LocalNet) one configuration's walletSweep and
// autoAcceptTransfers entries run on the validator that hosts their
// party (a sweep's sender, a rule's receiver), and each validator's
// operator gets its own traffic top-up: the app provider's jobs sweep and
// auto-accept for its parties and buy its operator's traffic, leaving the
// app user's alone, and the app user's jobs do the same for theirs.
func TestValidatorsRunTheirConfiguredAutomations(t *testing.T) {
	withClock(t, func(t *testing.T, l *ledger.Ledger, _ *ledgertest.Clock) {
		ctx := context.Background()
		pv, w, pw := appProvider(t, l)
		customer, exchange := ledgertest.Party(t, pv), ledgertest.Party(t, pv) // the app provider's
		alice, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)           // the app user's
		ledgertest.Mint(t, l, customer, "1001")                                // 5.005 USD at 0.005
		ledgertest.Mint(t, l, alice, "1001")
		sweep := func(from, to coin.PartyID) autotransfer.SweepConfig {
			return autotransfer.SweepConfig{Sender: from, Receiver: to, MaxBalanceUSD: coin.MustParse("5"), MinBalanceUSD: coin.MustParse("1")}
		}
		a := jobs.Automation{
			Sweeps:     []autotransfer.SweepConfig{sweep(customer, exchange), sweep(alice, bob)},
			AutoAccept: []jobs.AutoAcceptRule{{Receiver: exchange, From: []coin.PartyID{customer}}, {Receiver: bob, From: []coin.PartyID{alice}}},
			Topup:      traffic.TopupConfig{TargetThroughput: 20000, MinInterval: time.Minute},
		}
		js, err := jobs.Build(ctx, w, a)
		if err != nil {
			t.Fatal(err)
		}
		pjs, err := jobs.BuildValidator(ctx, pw, a)
		if err != nil {
			t.Fatal(err)
		}
		configured := func(js []jobs.Job) []string {
			var out []string
			for _, j := range js {
				for _, prefix := range []string{"sweep-", "auto-accept-", "traffic-topup"} {
					if strings.HasPrefix(j.Name, prefix) {
						out = append(out, j.Name)
					}
				}
			}
			return out
		}
		at := "@" + pv.Operator().Hint()
		if diff := cmp.Diff([]string{"sweep-" + string(alice), "auto-accept-" + string(bob), "traffic-topup"}, configured(js)); diff != "" {
			t.Errorf("the app user's configured jobs (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"sweep-" + string(customer) + at, "auto-accept-" + string(exchange) + at, "traffic-topup" + at}, configured(pjs)); diff != "" {
			t.Errorf("the app provider's configured jobs (-want +got):\n%s", diff)
		}
		runAll := func(js []jobs.Job) {
			t.Helper()
			for _, j := range js {
				if j.Name == "round-clock" {
					continue
				}
				if err := j.Run(ctx); err != nil {
					t.Fatalf("%s: %v", j.Name, err)
				}
			}
		}
		purchases := func(v *ledger.Ledger) int64 {
			t.Helper()
			s, err := traffic.New(v).TrafficStatus(ctx, v.Operator())
			if err != nil {
				t.Fatal(err)
			}
			return s.NumPurchases
		}
		state := func() []string {
			return []string{balance(t, l, customer), balance(t, l, exchange), balance(t, l, alice), balance(t, l, bob),
				fmt.Sprintf("provider purchases %d", purchases(pv)), fmt.Sprintf("user purchases %d", purchases(l))}
		}
		runAll(pjs)
		if diff := cmp.Diff([]string{"unlocked=200 locked=0", "unlocked=801 locked=0", "unlocked=1001 locked=0", "unlocked=0 locked=0",
			"provider purchases 1", "user purchases 0"}, state()); diff != "" {
			t.Errorf("after the app provider's jobs (-want +got):\n%s", diff)
		}
		runAll(js)
		if diff := cmp.Diff([]string{"unlocked=200 locked=0", "unlocked=801 locked=0", "unlocked=200 locked=0", "unlocked=801 locked=0",
			"provider purchases 1", "user purchases 1"}, state()); diff != "" {
			t.Errorf("after the app user's jobs (-want +got):\n%s", diff)
		}
		if slices.ContainsFunc(pjs, func(j jobs.Job) bool { return j.Name == "round-clock" || j.Name == "expire-transfers" }) {
			t.Error("the app provider runs the network's jobs a second time")
		}
	})
}

// appProvider opens LocalNet's app provider validator beside l and
// returns it with the workflows of both (l's first).
func appProvider(t *testing.T, l *ledger.Ledger) (*ledger.Ledger, *workflows.Set, *workflows.Set) {
	t.Helper()
	pv, err := validators.Add(context.Background(), l, "app-provider-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := workflows.New(l)
	return pv, w, w.ForValidator(pv)
}
