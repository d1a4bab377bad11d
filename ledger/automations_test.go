package ledger_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/expiry"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/rewards"
	"github.com/ccwallet/ccwallet/store"
)

// The merge tests' helpers (ledgertest's, shared with ledger/airdrop).
var (
	historySubtypes = ledgertest.HistorySubtypes
	delegate        = ledgertest.Delegate
	closeRounds     = ledgertest.CloseRounds
)

func TestTickRoundsOpensOnTheInterval(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		if _, err := l.Rounds().TickRounds(ctx, 0); !fault.IsValidation(err) {
			t.Errorf("interval 0 = %v, want a validation error", err)
		}
	})
	for _, e := range ledgertest.Engines {
		t.Run("boundary/"+ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			ctx := context.Background()
			const interval = 10 * time.Minute
			clock.Advance(interval - time.Nanosecond)
			if rep, err := l.Rounds().TickRounds(ctx, interval); err != nil || rep.To != 0 {
				t.Fatalf("just before the interval: %+v, %v; want no new round", rep, err)
			}
			clock.Advance(time.Nanosecond) // exactly at the interval
			if rep, err := l.Rounds().TickRounds(ctx, interval); err != nil || rep.To != 1 {
				t.Fatalf("at the interval: %+v, %v; want round 1", rep, err)
			}
			// A second replica ticking in the same instant opens nothing.
			if rep, err := l.Rounds().TickRounds(ctx, interval); err != nil || rep.To != 1 {
				t.Fatalf("second tick: %+v, %v; want still round 1", rep, err)
			}
		})
	}
}

func TestDustExpiry(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		p := ledgertest.Party(t, l)
		_, price, _ := l.CurrentRound(ctx)
		rate := l.Rules().HoldingRate(price)
		// exact holds exactly two rounds of fee: at round 2 its fee equals
		// its amount (not dust yet), at round 3 it exceeds it.
		exact := rate.MulInt(2)
		if _, err := ledgertest.Dev(t, l).Mint(ctx, p, exact, "dust"); err != nil {
			t.Fatal(err)
		}
		ledgertest.Mint(t, l, p, "100")
		// A locked dust holding whose lock expires later than the first
		// check.
		lockEnd := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Add(time.Hour)
		if _, err := l.MintLocked(ctx, p, exact, lockEnd); err != nil {
			t.Fatal(err)
		}
		count := func() int {
			hs, _, err := holdingsview.New(l).List(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			return len(hs)
		}
		rep, err := devnet.New(l).AdvanceRounds(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Expired != 0 || count() != 3 {
			t.Fatalf("at the boundary: expired %d, %d holdings; want 0, 3", rep.Expired, count())
		}
		rep, err = devnet.New(l).AdvanceRounds(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Expired != 1 || count() != 2 {
			t.Fatalf("past the boundary: expired %d, %d holdings; want 1 (the locked one waits), 2", rep.Expired, count())
		}
		if !slices.Contains(historySubtypes(t, l, p), "AmuletExpired") {
			t.Error("no AmuletExpired history entry")
		}
		ledgertest.Conserved(t, l)
	})
}

func TestLockedDustExpiresAfterItsLock(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			ctx := context.Background()
			p := ledgertest.Party(t, l)
			_, price, _ := l.CurrentRound(ctx)
			if _, err := l.MintLocked(ctx, p, l.Rules().HoldingRate(price), clock.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if _, err := devnet.New(l).AdvanceRounds(ctx, 3); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Hour) // exactly at the lock's expiry: still locked
			if n, err := expiry.New(l).Dust(ctx); err != nil || n != 0 {
				t.Fatalf("at lock expiry: %d, %v; want 0", n, err)
			}
			clock.Advance(time.Microsecond)
			if n, err := expiry.New(l).Dust(ctx); err != nil || n != 1 {
				t.Fatalf("after lock expiry: %d, %v; want 1", n, err)
			}
			if !slices.Contains(historySubtypes(t, l, p), "LockedAmuletExpired") {
				t.Error("no LockedAmuletExpired history entry")
			}
		})
	}
}

func TestCouponIssuance(t *testing.T) {
	r := ledger.DefaultRules()
	tests := []struct {
		kind   string
		weight string
		want   coin.Amount
	}{
		{ledger.RewardValidator, "0.1", coin.MustParse("0.1")},
		{ledger.RewardValidator, "0.2", r.ValidatorRewardPerCouponCap}, // exactly the cap
		{ledger.RewardValidator, "5", r.ValidatorRewardPerCouponCap},
		{ledger.RewardApp, "200", r.FeaturedAppRewardCap},
		{ledger.RewardLiveness, "0", r.LivenessActivityReward},
		{"unknown", "5", coin.Zero},
	}
	for _, tt := range tests {
		if got := r.CouponIssuance(tt.kind, coin.MustParse(tt.weight)); !got.Equal(tt.want) {
			t.Errorf("CouponIssuance(%s, %s) = %s, want %s", tt.kind, tt.weight, got, tt.want)
		}
	}
}

// TestTickRoundsAfterDeveloperJump: after advance-rounds the clock keeps
// ticking by wall time, each round opening when it is created.
func TestTickRoundsAfterDeveloperJump(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			clock := ledgertest.NewClock()
			l := ledgertest.New(t, e, ledgertest.Options{Clock: clock})
			ctx := context.Background()
			if _, err := devnet.New(l).AdvanceRounds(ctx, 5); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Minute)
			if rep, err := l.Rounds().TickRounds(ctx, time.Minute); err != nil || rep.To != 6 {
				t.Fatalf("tick after a jump = %+v, %v; want round 6", rep, err)
			}
			rs, _ := l.Rounds().OpenRounds(ctx)
			if !rs[2].OpensAt.After(rs[1].OpensAt) {
				t.Errorf("round 6 opens %s, not after round 5 at %s", rs[2].OpensAt, rs[1].OpensAt)
			}
		})
	}
}

// TestRewardCouponContracts: a reward coupon's contract is built from its
// row (no contracts row), with the payload, template and blob of the real
// coupon; collecting it archives it at the collection's offset.
func TestRewardCouponContracts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l *ledger.Ledger) {
		ctx := context.Background()
		db := ledger.StoreOf(l)
		p := ledgertest.Party(t, l)
		if err := ledgertest.Dev(t, l).SeedRewardCoupons(ctx, ledger.RewardApp, []coin.PartyID{p}, coin.MustParse("2.5")); err != nil {
			t.Fatal(err)
		}
		cs, err := rewards.New(l).Coupons(ctx, p, ledger.RewardApp)
		if err != nil || len(cs) != 1 {
			t.Fatalf("coupons %v, %v", cs, err)
		}
		c := cs[0]
		var payload struct {
			Provider coin.PartyID `json:"provider"`
			Featured bool         `json:"featured"`
			Amount   coin.Amount  `json:"amount"`
			Round    struct {
				Number string `json:"number"`
			} `json:"round"`
		}
		if err := json.Unmarshal(c.Payload, &payload); err != nil {
			t.Fatal(err)
		}
		if c.TemplateID != ledger.RewardTemplate(ledger.RewardApp) || payload.Provider != p || !payload.Featured ||
			!payload.Amount.Equal(coin.MustParse("2.5")) || payload.Round.Number == "" || c.CreatedAt.IsZero() || c.Archived {
			t.Errorf("coupon contract %+v, payload %s", c, c.Payload)
		}
		if id, tmpl, err := l.VerifyBlob(c.CreatedEventBlob); err != nil || id != c.ContractID || tmpl != c.TemplateID {
			t.Errorf("blob: %s %s %v", id, tmpl, err)
		}
		if n, err := db.NewSelect().Table("contracts").Where("contract_id = ?", c.ContractID).Count(ctx); err != nil || n != 0 {
			t.Errorf("%d contracts rows for the coupon (%v), want none", n, err)
		}
		if _, err := devnet.New(l).AdvanceRounds(ctx, 3); err != nil {
			t.Fatal(err)
		}
		var row store.RewardCoupon
		if err := db.NewSelect().Model(&row).Where("contract_id = ?", c.ContractID).Scan(ctx); err != nil {
			t.Fatal(err)
		}
		var collect store.Update
		// A time jump collects within its own update (advance.go).
		if err := db.NewSelect().Model(&collect).Where("kind = ?", "advance-rounds").Order("offset_id").Limit(1).Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if row.CollectedAt.IsZero() || row.CollectedOffset == nil || *row.CollectedOffset != collect.OffsetID {
			t.Errorf("collected coupon %+v, want collected at offset %d", row, collect.OffsetID)
		}
		if left, err := rewards.New(l).Coupons(ctx, p, ledger.RewardApp); err != nil || len(left) != 0 {
			t.Errorf("after collection: %v, %v; want none", left, err)
		}
	})
}
