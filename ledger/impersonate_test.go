package ledger_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/impersonation"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestImpersonationMarksUpdates: changes made with ActingAs carry the
// admin in acted_by, through a ledger change and through the grouped
// one-step send alike; changes without it carry none.
func TestImpersonationMarksUpdates(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, _ *ledgertest.Clock) {
		ctx := context.Background()
		alice, bob := ledgertest.Party(t, l), ledgertest.Party(t, l)
		if err := devnet.New(l).Impersonate(ctx, "admin", alice); err != nil {
			t.Fatal(err)
		}
		as := impersonation.ActingAs(ctx, "admin")
		from := lastOffset(t, l)
		if _, err := devnet.Tap(as, l, alice, coin.MustParse("5"), "imp-tap"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := l.Preapprovals().Create(ctx, bob); err != nil {
			t.Fatal(err)
		}
		send := ledger.PreapprovalSend{Sender: alice, Receiver: bob, Amount: coin.MustParse("1"), DeduplicationID: "imp-1"}
		if _, err := l.Preapprovals().Send(as, send); err != nil {
			t.Fatal(err)
		}
		evs, err := apiread.New(l).UpdatesAfter(ctx, from, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range evs {
			got = append(got, e.Kind+":"+e.ActedBy)
		}
		// The preapproval's fee is tapped for the operator first (devnet),
		// not impersonated.
		want := []string{"tap:admin", "tap:", "create-transfer-preapproval:", "transfer-preapproval-send:admin"}
		if !slices.Equal(got, want) {
			t.Fatalf("updates = %v, want %v", got, want)
		}
	})
}

// lastOffset is the newest update's offset.
func lastOffset(t *testing.T, l *ledger.Ledger) int64 {
	t.Helper()
	evs, err := apiread.New(l).UpdatesAfter(context.Background(), 0, 1_000_000)
	if err != nil || len(evs) == 0 {
		t.Fatalf("updates: %d, %v", len(evs), err)
	}
	return evs[len(evs)-1].Offset
}
