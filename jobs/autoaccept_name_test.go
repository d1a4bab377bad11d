package jobs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/ledger/workflows"
)

// TestAutoAcceptKeyedByName: an autoAcceptTransfers entry may be keyed
// by the receiver's name, which the name service resolves (as Send and
// the senders do); a name nobody has stops the build with its key.
// Before, the key had to be a party ID.
func TestAutoAcceptKeyedByName(t *testing.T) {
	withClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		w := workflows.New(l)
		sender, receiver := ledgertest.Party(t, l), ledgertest.Party(t, l)
		ledgertest.Mint(t, l, receiver, "500")
		res, err := w.Names.RequestAnsEntry(ctx, names.AnsRequest{User: receiver, Name: "shop.unverified.cns"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Subscriptions.AcceptSubscriptionRequest(ctx, receiver, res.SubscriptionRequestCID); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Subscriptions.CollectSubscriptions(ctx); err != nil {
			t.Fatal(err)
		}
		a := jobs.Automation{AutoAccept: []jobs.AutoAcceptRule{{Receiver: "shop.unverified.cns", From: []coin.PartyID{sender}}}}
		js, err := jobs.Build(ctx, w, a)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, j := range js {
			found = found || j.Name == "auto-accept-"+string(receiver)
		}
		if !found {
			t.Errorf("no auto-accept job for the name's owner %s", receiver)
		}
		a.AutoAccept[0].Receiver = "nobody.unverified.cns"
		if _, err := jobs.Build(ctx, w, a); err == nil || !strings.Contains(err.Error(), "autoAcceptTransfers.nobody.unverified.cns: no party has the name") {
			t.Errorf("unknown name: %v", err)
		}
	})
}
