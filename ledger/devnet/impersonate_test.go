package devnet_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// TestImpersonateRule: only an admin, only a known party, only on a
// development network.
func TestImpersonateRule(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, _ *ledgertest.Clock) {
		ctx := context.Background()
		alice := ledgertest.Party(t, l)
		if err := devnet.New(l).Impersonate(ctx, "admin", l.Operator()); err != nil {
			t.Errorf("admin as the validator's party: %v", err)
		}
		if err := devnet.New(l).Impersonate(ctx, "alice", alice); !errors.Is(err, fault.ErrForbidden) {
			t.Errorf("a user impersonating = %v, want ErrForbidden", err)
		}
		if err := devnet.New(l).Impersonate(ctx, "admin", coin.PartyID("nobody::1220"+strings.Repeat("ab", 32))); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("unknown party = %v, want ErrNotFound", err)
		}
		if err := devnet.New(l).Impersonate(ctx, "admin", "not a party"); !errors.As(err, new(*fault.ValidationError)) {
			t.Errorf("malformed party = %v, want a validation error", err)
		}
	})
	for _, e := range ledgertest.Engines {
		prod, err := ledgertest.OpenLedger(context.Background(), ledgertest.DB(t, e), ledger.Config{AdminUsers: []string{"admin"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := devnet.New(prod).Impersonate(context.Background(), "admin", prod.Operator()); !errors.Is(err, fault.ErrDisabled) {
			t.Errorf("%s: impersonating on a production ledger = %v, want ErrDisabled", ledgertest.Name(e), err)
		}
	}
}

// TestIsAdminAs: an admin is one without an impersonation token; with
// one, nobody is.
func TestIsAdminAs(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		alice := ledgertest.Party(t, l)
		for _, c := range []struct {
			user, actAs string
			want        bool
		}{{"admin", "", true}, {"admin", string(alice), false}, {"alice", "", false}, {"alice", string(alice), false}} {
			if got := devnet.IsAdminAs(l, c.user, c.actAs); got != c.want {
				t.Errorf("IsAdminAs(%q, %q) = %v, want %v", c.user, c.actAs, got, c.want)
			}
		}
	})
}
