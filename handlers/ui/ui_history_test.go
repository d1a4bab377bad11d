package ui_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/csv"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/web"
)

// historyRowRe reads a history row's subtype and its exact amount (the
// title of its Amount cell: the text is rounded for people).
var historyRowRe = regexp.MustCompile(`(?s)data-testid="history-row" data-kind="[^"]*" data-subtype="([^"]*)">.*?data-testid="history-amount" title="([^"]*) CC"`)

// TestHistorySameEverywhere: a 50 CC transfer instruction, created and
// withdrawn, shows -50 then +50 in the JSON API (the caller's share of
// sender and receivers), on the history page and in the CSV alike, and
// each of the three adds up to the balance. Before, the API showed only
// the fee for the creation and +50 for the withdrawal, the page and the
// CSV 0 for both.
func TestHistorySameEverywhere(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			_, key, err := ed25519.GenerateKey(nil) // nil: crypto/rand
			if err != nil {
				t.Fatal(err)
			}
			v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{"k": key.Public()}}, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			e := handlerstest.NewUIEnvWith(t, engine, func(cfg *handlers.Config) { cfg.Auth = v })
			ctx := context.Background()
			b := e.Browser(t)
			b.Onboarded("alice")
			u, err := users.Of(e.L).Get(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			alice := u.Party
			bob, err := users.Of(e.L).Onboard(ctx, "bob", "")
			if err != nil {
				t.Fatal(err)
			}
			ledgertest.Mint(t, e.L, alice, "80")
			ti, err := e.L.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: alice, Receiver: bob, Amount: coin.MustParse("50"), ExecuteBefore: e.L.Now().Add(time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.L.Instructions().Withdraw(ctx, alice, ti.InstructionCID); err != nil {
				t.Fatal(err)
			}
			// The lock is the 50 and its fee reserve for the hour.
			lock := coin.MustParse("50").Add(e.L.Rules().TransferLockReserve(coin.MustParse("50"), e.L.Rules().InitialPriceUSD, time.Hour))
			want := map[string]string{
				"CreateTokenStandardTransferInstruction": lock.Neg().String(),
				"TransferInstruction_Withdraw":           lock.String(),
				"Mint":                                   "80.0000000000",
			}
			check := func(where string, got map[string]string) {
				t.Helper()
				sum := coin.Zero
				for sub, a := range got {
					sum = sum.Add(coin.MustParse(a))
					if w, ok := want[sub]; ok && a != w {
						t.Errorf("%s: %s shows %s, want %s", where, sub, a, w)
					}
				}
				if len(got) < len(want) || !sum.Equal(coin.MustParse("80")) {
					t.Errorf("%s: %v adds up to %s, want the balance 80", where, got, sum)
				}
			}

			// The API: the caller's share of sender and receivers.
			tok, err := web.SignDevToken(key, "k", "", "", "alice", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodPost, e.Srv.URL+"/v0/wallet/transactions", strings.NewReader(`{"page_size": 100}`))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var out struct {
				Items []struct {
					Subtype struct {
						Choice string `json:"choice"`
					} `json:"transaction_subtype"`
					Type      string               `json:"transaction_type"`
					Receiver  string               `json:"transfer_instruction_receiver"`
					Amount    string               `json:"transfer_instruction_amount"`
					CID       string               `json:"transfer_instruction_cid"`
					Sender    *ledger.PartyAmount  `json:"sender"`
					Receivers []ledger.PartyAmount `json:"receivers"`
				} `json:"items"`
			}
			if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusOK {
				t.Fatalf("transactions: %d, %v", res.StatusCode, err)
			}
			api := map[string]string{}
			for _, it := range out.Items {
				if it.Type == "notification" {
					continue
				}
				sub := it.Subtype.Choice
				if sub == "AmuletRules_Mint" {
					sub = "Mint"
				}
				api[sub] = ledgertest.ShareOf(alice, it.Sender, it.Receivers).String()
				if strings.Contains(sub, "TransferInstruction") && it.CID != string(ti.InstructionCID) {
					t.Errorf("API: %s names instruction %q, want %s", sub, it.CID, ti.InstructionCID)
				}
				if sub == "CreateTokenStandardTransferInstruction" && (it.Receiver != string(bob) || it.Amount != "50.0000000000") {
					t.Errorf("API: the instruction's receiver and amount are %q, %q; want bob and 50", it.Receiver, it.Amount)
				}
			}
			check("API", api)

			page := map[string]string{}
			h := b.Get("/history")
			handlerstest.MustHave(t, h, http.StatusOK)
			for _, m := range historyRowRe.FindAllStringSubmatch(h.Body, -1) {
				if m[1] != "Onboarded" {
					page[m[1]] = m[2]
				}
			}
			check("page", page)

			rows, err := csv.NewReader(strings.NewReader(b.Get("/history.csv").Body)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			file := map[string]string{}
			for _, r := range rows[1:] {
				if r[4] != "Onboarded" {
					file[r[4]] = r[5]
				}
			}
			check("CSV", file)
		})
	}
}
