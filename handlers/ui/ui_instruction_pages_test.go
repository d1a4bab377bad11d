package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
)

var (
	incomingInstructionRe = regexp.MustCompile(`data-testid="incoming-instructions-row" data-cid="([^"]*)"`)
	nextInstructionsRe    = regexp.MustCompile(`href="([^"]*)" data-testid="incoming-instructions-next"`)
)

// TestInstructionSpamKeepsPagesSmall is the offer spam's variant found
// on issue 38's rerun: any sender may instruct any receiver, 1e-10 CC
// each (locking only its fee reserve), and the receiver's Offers page
// listed every pending instruction (1.2 MB at 640). It now shows the
// newest 25 with "Showing 25 of N" and pages on to the older ones.
func TestInstructionSpamKeepsPagesSmall(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			l := ledgertest.New(t, engine, ledgertest.Options{})
			e, _ := tokenUIEnv(t, l)
			ctx := context.Background()
			b := e.Browser(t)
			b.Onboarded("bob")
			u, err := users.Of(l).Get(ctx, "bob")
			if err != nil {
				t.Fatal(err)
			}
			mallory, err := users.Of(l).Onboard(ctx, "mallory", "")
			if err != nil {
				t.Fatal(err)
			}
			ledgertest.Mint(t, l, mallory, "1000")
			const n = 60
			var cids []coin.ContractID // oldest first
			for i := range n {
				res, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: mallory, Receiver: u.Party,
					Amount: coin.MustParse("0.0000000001"), Description: "spam", ExecuteBefore: l.Now().Add(24 * time.Hour), TrackingID: fmt.Sprintf("spam-%d", i)})
				if err != nil {
					t.Fatal(err)
				}
				cids = append(cids, res.InstructionCID)
			}
			page := b.Get("/offers")
			handlerstest.MustHave(t, page, http.StatusOK, fmt.Sprintf("Showing 25 of %d, newest first.", n))
			rows := incomingInstructionRe.FindAllStringSubmatch(page.Body, -1)
			if len(rows) != 25 || rows[0][1] != string(cids[n-1]) {
				t.Fatalf("the Offers page lists %d incoming instructions, want the newest 25 first", len(rows))
			}
			next := nextInstructionsRe.FindStringSubmatch(page.Body)
			if next == nil {
				t.Fatal("no link to the older instructions")
			}
			older := b.Get(strings.ReplaceAll(next[1], "&amp;", "&"))
			rows = incomingInstructionRe.FindAllStringSubmatch(older.Body, -1)
			if len(rows) != 25 || rows[0][1] != string(cids[n-26]) {
				t.Errorf("the second page lists %d, first %v; want the next 25, from %s", len(rows), rows[:min(1, len(rows))], cids[n-26])
			}
		})
	}
}
