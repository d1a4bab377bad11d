package users_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledger/validators"
)

// TestValidatorUsers: each validator of a network has its own users, as
// each of LocalNet's participants has: the same user ID is a user of
// each validator apart, with its own party and rights; each validator
// lists its own users only; an admin is bound to its own validator's
// operator on each; a right granted on one is not held on the other;
// offboarding on one leaves the other's; the first validator refuses a
// user ID under another validator's prefix; a reset keeps them apart.
func TestValidatorUsers(t *testing.T) {
	ledgertest.ForEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		pv, err := validators.Add(ctx, l, "app-provider-1", []string{"ledger-api-user"})
		if err != nil {
			t.Fatal(err)
		}
		up, err := users.Of(l).Onboard(ctx, "alice", "")
		if err != nil {
			t.Fatal(err)
		}
		pp, err := users.Of(pv).Onboard(ctx, "alice", "")
		if err != nil {
			t.Fatal(err)
		}
		if up == pp || up.Namespace() != l.Namespace() || pp.Namespace() != pv.Namespace() {
			t.Fatalf("alice: %s on the app user, %s on the app provider; want two parties, each of its validator's participant", up, pp)
		}
		names := func(v *ledger.Ledger) []string {
			t.Helper()
			us, err := users.Of(v).All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, u := range us {
				out = append(out, u.Name+"="+string(u.Party))
			}
			return out
		}
		if got, want := names(pv), []string{"alice=" + string(pp), "ledger-api-user=" + string(pv.Operator())}; !slices.Equal(got, want) {
			t.Errorf("the app provider's users = %v, want %v", got, want)
		}
		if got := names(l); !slices.Contains(got, "alice="+string(up)) || slices.Contains(got, "alice="+string(pp)) ||
			slices.Contains(got, "ledger-api-user="+string(pv.Operator())) {
			t.Errorf("the app user's users = %v: want its own alice and none of the app provider's", got)
		}
		// Rights are each validator's user's.
		bob, err := users.Of(pv).Onboard(ctx, "bob", "")
		if err != nil {
			t.Fatal(err)
		}
		read := userrights.Right{Kind: userrights.RightCanReadAs, Party: bob}
		if _, err := userrights.New(pv).GrantRights(ctx, "alice", []userrights.Right{read}); err != nil {
			t.Fatal(err)
		}
		has := func(v *ledger.Ledger, name string, r userrights.Right) bool {
			t.Helper()
			u, err := users.Of(v).Get(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := userrights.New(v).RightsOf(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			return rs.Has(r)
		}
		if !has(pv, "alice", read) || has(l, "alice", read) {
			t.Errorf("CanReadAs bob granted to the app provider's alice: held there %v, on the app user %v; want only there",
				has(pv, "alice", read), has(l, "alice", read))
		}
		// Offboarding the app user's alice leaves the app provider's.
		if err := userrights.New(l).Offboard(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		if u, err := users.Of(pv).Get(ctx, "alice"); err != nil || !u.Onboarded || u.Party != pp {
			t.Errorf("the app provider's alice after the app user's offboarding = %+v, %v", u, err)
		}
		// A user ID under the app provider's prefix is not the app user's.
		if _, err := users.Of(l).Onboard(ctx, "app-provider-1/mallory", ""); !fault.IsValidation(err) {
			t.Errorf("onboarding app-provider-1/mallory on the app user = %v, want refused", err)
		}
		if u, err := users.Of(l).Get(ctx, "app-provider-1/alice"); err != nil || u.Onboarded {
			t.Errorf("the app user sees app-provider-1/alice as %+v, %v; want no such user", u, err)
		}
		// After a reset each validator's admin is its own again.
		if err := ledgertest.Dev(t, l).Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if u, err := users.Of(pv).Get(ctx, "ledger-api-user"); err != nil || u.Party != pv.Operator() || !u.IsAdmin {
			t.Errorf("after a reset the app provider's ledger-api-user = %+v, %v; want its operator's admin", u, err)
		}
		if u, err := users.Of(l).Get(ctx, "ledger-api-user"); err != nil || u.Onboarded {
			t.Errorf("after a reset the app user has a ledger-api-user %+v, %v; want none (not its admin here)", u, err)
		}
	})
}
