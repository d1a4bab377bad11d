package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/web"
)

// TestInstructionSpamKeepsTransfersListBounded: a stranger's many
// transfer instructions leave GET /v0/wallet/token-standard/transfers
// bounded (pending.DefaultInstructionListPage by default, newest first,
// in the spec's shape), and its pages, asked for with page_size and
// the X-Next-Page-Token header's token, hold every instruction once even
// while new ones arrive between pages. Before, the answer held every
// instruction, oldest first.
func TestInstructionSpamKeepsTransfersListBounded(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			l := ledgertest.New(t, engine, ledgertest.Options{})
			e, key := tokenUIEnv(t, l)
			ctx := context.Background()
			bob := e.Wallet(t, "bob", "").Party
			mallory, err := users.Of(l).Onboard(ctx, "mallory", "")
			if err != nil {
				t.Fatal(err)
			}
			ledgertest.Mint(t, l, mallory, "1000000")
			var cids []coin.ContractID // oldest first
			spam := func(n int) {
				t.Helper()
				for range n {
					res, err := l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: mallory, Receiver: bob,
						Amount: coin.MustParse("0.0000000001"), Description: "spam", ExecuteBefore: l.Now().Add(24 * time.Hour)})
					if err != nil {
						t.Fatal(err)
					}
					cids = append(cids, res.InstructionCID)
				}
			}
			spam(pending.DefaultInstructionListPage + 30)

			tok, err := web.SignDevToken(key, "k", "", "", "bob", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			get := func(q url.Values) (int, string, []string) {
				t.Helper()
				return listPage(t, e, tok, "/v0/wallet/token-standard/transfers", "transfers", q)
			}
			newest := func(n int) []string {
				var want []string
				for i := len(cids) - 1; i >= len(cids)-n; i-- {
					want = append(want, string(cids[i]))
				}
				return want
			}

			status, next, ids := get(nil)
			if status != http.StatusOK || next == "" || strings.Join(ids, ",") != strings.Join(newest(pending.DefaultInstructionListPage), ",") {
				t.Fatalf("GET without a page size = %d, %d transfers, next %q; want the newest %d and a next page",
					status, len(ids), next, pending.DefaultInstructionListPage)
			}

			// Page through 100 at a time while mallory keeps sending: every
			// instruction that was there at the start comes once, in order.
			before := newest(len(cids))
			var all []string
			token := ""
			for pages := 0; ; pages++ {
				q := url.Values{"page_size": {"100"}}
				if token != "" {
					q.Set("page_token", token)
				}
				status, next, ids := get(q)
				if status != http.StatusOK || len(ids) > 100 || pages > 3 {
					t.Fatalf("page %d = %d, %d transfers", pages, status, len(ids))
				}
				all = append(all, ids...)
				spam(7)
				if token = next; token == "" {
					break
				}
			}
			if strings.Join(all, ",") != strings.Join(before, ",") {
				t.Errorf("the pages hold %d transfers, want the %d there were at the start once, newest first", len(all), len(before))
			}

			// The sender sees its own, too: sender and receiver sides merge.
			mtok, err := web.SignDevToken(key, "k", "", "", "mallory", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			tok = mtok
			if status, _, ids := get(url.Values{"page_size": {"3"}}); status != http.StatusOK || !slices.Equal(ids, newest(3)) {
				t.Errorf("the sender's first page = %d %v, want its newest 3", status, ids)
			}

			for _, q := range []url.Values{{"page_size": {"0"}}, {"page_size": {"1001"}}, {"page_size": {"x"}}, {"page_size": {"5"}, "page_token": {"bogus"}}} {
				if status, _, ids := get(q); status != http.StatusBadRequest || len(ids) != 1 || ids[0] == "" {
					t.Errorf("GET ?%s = %d %v, want 400 with words", q.Encode(), status, ids)
				}
			}
		})
	}
}
