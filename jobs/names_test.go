package jobs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/autotransfer"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/ledger/workflows"
)

// TestWalletJobsTakeNames: a sweep's receiver and auto-accept's senders
// may be names, resolved to their owners when the jobs are built; a name
// nobody has stops the build with its configuration key.
func TestWalletJobsTakeNames(t *testing.T) {
	withClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		w := workflows.New(l)
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "2000")
		ledgertest.Mint(t, l, receiver, "500")
		for _, n := range []struct {
			p    coin.PartyID
			name string
		}{{sender, "sender.unverified.cns"}, {receiver, "receiver.unverified.cns"}} {
			res, err := w.Names.RequestAnsEntry(ctx, names.AnsRequest{User: n.p, Name: n.name})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Subscriptions.AcceptSubscriptionRequest(ctx, n.p, res.SubscriptionRequestCID); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Subscriptions.CollectSubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		a := jobs.Automation{
			Sweeps:     []autotransfer.SweepConfig{{Sender: sender, Receiver: "receiver.unverified.cns", MaxBalanceUSD: coin.MustParse("5"), MinBalanceUSD: coin.MustParse("1")}},
			AutoAccept: []jobs.AutoAcceptRule{{Receiver: receiver, From: []coin.PartyID{"sender.unverified.cns"}}},
		}
		js, err := jobs.Build(ctx, w, a)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range js {
			if j.Name == "sweep-"+string(sender) || j.Name == "auto-accept-"+string(receiver) {
				if err := j.Run(ctx); err != nil {
					t.Fatalf("%s: %v", j.Name, err)
				}
			}
		}
		// The sweep offered everything above 1 USD to the receiver, and
		// auto-accept took it from the sender's name.
		if got := balance(t, l, receiver); !strings.HasPrefix(got, "unlocked=") || got == "unlocked=300 locked=0" {
			t.Errorf("receiver = %s, want the swept coin", got)
		}
		if string(a.Sweeps[0].Receiver) != "receiver.unverified.cns" {
			t.Errorf("Build changed its caller's configuration: %s", a.Sweeps[0].Receiver)
		}
		a.Sweeps[0].Receiver = "nobody.unverified.cns"
		if _, err := jobs.Build(ctx, w, a); err == nil || !strings.Contains(err.Error(), "walletSweep."+string(sender)+".receiver: no party has the name nobody.unverified.cns") {
			t.Errorf("unknown name: %v", err)
		}
		ledgertest.Conserved(t, l)
	})
}
