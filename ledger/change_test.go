package ledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

// TestChangeIsAllOrNothing: a ledger change's txn commits first and its
// after-commit steps follow in the same database transaction, so a step
// that fails or panics takes the committed rows back with it (no holding,
// no history row, nothing minted), and a lost race there retries the
// whole change, which then lands once.
func TestChangeIsAllOrNothing(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		amount := coin.MustParse("5")
		before := ledgertest.Conserved(t, l)
		nothing := func(what string) {
			t.Helper()
			if b, err := l.Balance(ctx, p); err != nil || b.Count != 0 {
				t.Errorf("after %s: balance %+v, %v; want no holding", what, b, err)
			}
			if h, err := history.New(l).List(ctx, p, history.Query{PageSize: 10}); err != nil || len(h) != 1 { // the onboarding row
				t.Errorf("after %s: %d history rows, %v; want only the onboarding's", what, len(h), err)
			}
			if s := ledgertest.Conserved(t, l); s.Minted.Cmp(before.Minted) != 0 {
				t.Errorf("after %s: minted %s, want %s as before", what, s.Minted, before.Minted)
			}
		}

		boom := errors.New("boom")
		if _, err := l.MintThen(ctx, p, amount, func() error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("failing step: %v, want boom", err)
		}
		nothing("a failing step")

		func() {
			defer func() {
				if r := recover(); r != "panic in step" {
					t.Errorf("recovered %v, want the step's panic", r)
				}
			}()
			l.MintThen(ctx, p, amount, func() error { panic("panic in step") })
		}()
		nothing("a panicking step")

		runs := 0
		if _, err := l.MintThen(ctx, p, amount, func() error {
			if runs++; runs == 1 {
				return store.ErrStale
			}
			return nil
		}); err != nil || runs != 2 {
			t.Fatalf("step losing a race once: %v after %d runs, want success on the second", err, runs)
		}
		if b, err := l.Balance(ctx, p); err != nil || b.Count != 1 || b.EffectiveUnlocked.Cmp(amount) != 0 {
			t.Errorf("after the retried change: %+v, %v; want one holding of %s", b, err, amount)
		}
	})
}
