package ui_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// rewardsWallet onboards alice through the UI and gives her two app
// coupons and a validator coupon that reward collection mints, and a
// liveness record still pending; it returns her party and the ID of the
// update that collected.
func rewardsWallet(t *testing.T, e *handlerstest.UIEnv, b *handlerstest.Browser) (coin.PartyID, string) {
	t.Helper()
	ctx := context.Background()
	b.Onboarded("alice")
	u, err := users.Of(e.L).Get(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	dev := ledgertest.Dev(t, e.L)
	seed := func(kind, amount string) {
		t.Helper()
		if err := dev.SeedRewardCoupons(ctx, kind, []coin.PartyID{u.Party}, coin.MustParse(amount)); err != nil {
			t.Fatal(err)
		}
	}
	seed(ledger.RewardApp, "1.5")
	seed(ledger.RewardApp, "1.5")
	seed(ledger.RewardValidator, "0.5")
	if _, err := devnet.New(e.L).AdvanceRounds(ctx, 4); err != nil {
		t.Fatal(err)
	}
	seed(ledger.RewardLiveness, "0")
	page, err := history.New(e.L).Page(ctx, u.Party, history.Query{PageSize: 50, Kind: "balance_change"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range page.Items {
		if it.Subtype == "CollectRewards" {
			return u.Party, it.UpdateID
		}
	}
	t.Fatal("reward collection wrote no history")
	return "", ""
}

var rewardRowRe = regexp.MustCompile(`(?s)data-testid="reward-row" data-kind="([^"]*)" data-round="(\d+)" data-collected="(\w+)">.*?<span class="amt" title="([^"]*) CC">.*?</tr>`)

// TestUIRewards: the rewards page lists the pending liveness record
// (2.85 CC) and the collected app (2 coupons, 3 CC) and validator (the 0.2
// cap) rewards, by round, with the collecting update's ID, shortened and
// whole in the title; the menu leads there. Bob has none.
func TestUIRewards(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		_, collectedBy := rewardsWallet(t, e, b)
		r := b.Get("/rewards")
		handlerstest.MustHave(t, r, 200, `data-testid="nav-rewards"`, `aria-current="page" data-testid="nav-rewards"`,
			`data-update="`+collectedBy+`"`, `title="`+collectedBy+`"`, `>`+collectedBy[:4]+`…`+collectedBy[len(collectedBy)-8:]+`<`, `2 coupons`, `data-testid="reward-pending"`)
		var got []string
		for _, m := range rewardRowRe.FindAllStringSubmatch(r.Body, -1) {
			got = append(got, m[1]+" "+m[3]+" "+m[4])
			if m[3] == "true" && !strings.Contains(m[0], collectedBy) {
				t.Errorf("collected row without its update %s: %s", collectedBy, m[0])
			}
		}
		want := "liveness false 2.8500000000; app true 3.0000000000; validator true 0.2000000000"
		if strings.Join(got, "; ") != want {
			t.Errorf("rows %q, want %q", strings.Join(got, "; "), want)
		}
		if strings.Contains(r.Body, `data-testid="rewards-newest"`) || strings.Contains(r.Body, `data-testid="rewards-older"`) {
			t.Error("one page of rewards has a pager")
		}
		bob := e.Browser(t)
		bob.Onboarded("bob")
		handlerstest.MustHave(t, bob.Get("/rewards"), 200, `data-testid="rewards-empty"`)
		handlerstest.MustHave(t, b.Get("/rewards?before=x"), 400, "before: must be a round number from 1")
		handlerstest.MustHave(t, b.Get("/rewards?before=1"), 200, `data-testid="rewards-newest"`)
	})
}

// TestUIHistoryUpdatesAndRewards: every history row shows its update ID
// (the reward collection's is the one the rewards page names), and the
// rewards earned show as rows of their own with their amounts, adding
// nothing to the balance column.
func TestUIHistoryUpdatesAndRewards(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		_, collectedBy := rewardsWallet(t, e, b)
		r := b.Get("/history")
		handlerstest.MustHave(t, r, 200, `data-update="`+collectedBy+`"`,
			`Liveness (validator faucet) for round`, `: 2.85 CC from 1 coupon`,
			`App reward for round`, `: 3 CC from 2 coupons`, `Validator reward for round`, `: 0.2 CC from 1 coupon`,
			`data-subtype="Onboarded"`, `Wallet created`)
		rows := strings.Split(r.Body, `data-testid="history-row"`)[1:]
		rewards := 0
		for _, row := range rows {
			if !strings.Contains(row, `data-testid="history-update"`) {
				t.Errorf("history row without its update ID: %.300s", row)
			}
			if strings.Contains(row, `data-kind="reward"`) {
				rewards++
				if !strings.Contains(row, "Reward earned") || !strings.Contains(row, `title="0.0000000000 CC"`) {
					t.Errorf("reward row: %.600s", row)
				}
			}
		}
		if rewards != 3 {
			t.Errorf("%d reward rows, want 3 (app, validator, liveness)", rewards)
		}
	})
}
