package ui_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
)

// TestUIBalanceBreakdown (issue 24, splice#182): the home page says what
// can be sent, the total with what is locked in instructions, and the
// holding fees accrued, each exact in its title.
func TestUIBalanceBreakdown(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		ctx := context.Background()
		alice := e.Wallet(t, "alice", "100") // 20,000 CC
		bob := e.Wallet(t, "bob", "")
		if _, err := e.L.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: alice.Party, Receiver: bob.Party,
			Amount: coin.MustParse("5000"), ExecuteBefore: time.Now().Add(time.Hour), TrackingID: "lock"}); err != nil {
			t.Fatal(err)
		}
		if _, err := devnet.New(e.L).AdvanceRounds(ctx, 3); err != nil {
			t.Fatal(err)
		}
		b, err := e.L.Balance(ctx, alice.Party)
		if err != nil {
			t.Fatal(err)
		}
		if !b.HoldingFees.IsPositive() || !b.EffectiveLocked.IsPositive() {
			t.Fatalf("the scenario needs fees and a lock: %+v", b)
		}
		total := b.EffectiveUnlocked.Add(b.EffectiveLocked)
		handlerstest.MustHave(t, alice.Get("/"), http.StatusOK, "Available to send",
			`data-testid="balance-cc" title="`+b.EffectiveUnlocked.String()+` CC"`,
			`data-testid="balance-total" title="`+total.String()+` CC"`,
			`data-testid="balance-locked" title="`+b.EffectiveLocked.String()+` CC"`,
			`data-testid="balance-fees" title="`+b.HoldingFees.String()+` CC"`)
	})
}

// TestUIHistoryPagerNewest: the newest page has no "Newest" link; an older
// page links back to it. Kinds read as words.
func TestUIHistoryPagerNewest(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "")
		for range 30 { // more than one page of 25
			if r := alice.Post("/tap", url.Values{"csrf_token": {alice.Csrf}, "amount": {"1"}}); r.Status != http.StatusSeeOther {
				t.Fatalf("tap = %d", r.Status)
			}
		}
		first := alice.Get("/history")
		handlerstest.MustHave(t, first, http.StatusOK, `data-testid="history-older"`)
		if strings.Contains(first.Body, `data-testid="history-newest"`) {
			t.Error("the newest page links to the newest page")
		}
		// Kinds in words, in the rows and the filter (issue 24 point 10).
		handlerstest.MustHave(t, first, http.StatusOK, `<dt>Kind</dt><dd>Balance change</dd>`, `<option value="balance_change">Balance change</option>`)
		if strings.Contains(first.Body, `>balance_change<`) {
			t.Error("the page shows the kind balance_change as a code")
		}
		older := historyOlderRe.FindStringSubmatch(first.Body)
		if older == nil {
			t.Fatalf("no Older link: %.500s", first.Body)
		}
		handlerstest.MustHave(t, alice.Get(html.UnescapeString(older[1])), http.StatusOK, `data-testid="history-newest"`)
	})
}

var historyOlderRe = regexp.MustCompile(`href="([^"]+)" data-testid="history-older"`)
