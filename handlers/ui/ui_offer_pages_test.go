package ui_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/web"
)

var (
	incomingRowRe = regexp.MustCompile(`data-testid="incoming-offers-row" data-cid="([^"]*)"`)
	nextPageRe    = regexp.MustCompile(`href="([^"]*)" data-testid="incoming-offers-next"`)
)

// TestOfferSpamKeepsPagesSmall is issue 38's offer spam: 3,000 open
// offers from one sender (made through the ledger, with the cap raised)
// leave the receiver's Offers page under 50 KB, with the newest 25 first
// and from whom, and pages on to the older ones; the home page is the
// same size with 1,000 offers as with 3,000; the JSON API pages through
// all of them in the spec's shape. Before, the Offers page held every
// offer (6.6 MB at 3,000).
func TestOfferSpamKeepsPagesSmall(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			l := ledgertest.New(t, engine, ledgertest.Options{Offers: &ledger.OfferLimits{MinAmount: coin.MustParse("0.0000000001"), MaxOpenPerReceiver: 5000}})
			e, key := tokenUIEnv(t, l)
			ctx := context.Background()
			b := e.Browser(t)
			b.Onboarded("bob")
			u, err := users.Of(l).Get(ctx, "bob")
			if err != nil {
				t.Fatal(err)
			}
			bob := u.Party
			mallory, err := users.Of(l).Onboard(ctx, "mallory", "")
			if err != nil {
				t.Fatal(err)
			}
			ledgertest.Mint(t, l, mallory, "1")
			var cids []coin.ContractID // oldest first
			spam := func(n int) {
				t.Helper()
				for range n {
					o, _, err := l.Offers().Create(ctx, ledger.OfferRequest{Sender: mallory, Receiver: bob, Amount: coin.MustParse("0.0000000001"),
						Description: "spam", ExpiresAt: l.Now().Add(24 * time.Hour), TrackingID: fmt.Sprintf("spam-%d", len(cids))})
					if err != nil {
						t.Fatal(err)
					}
					cids = append(cids, o.ContractID)
				}
			}
			spam(1000)
			home1000 := b.Get("/")
			spam(2000)
			home3000 := b.Get("/")
			handlerstest.MustHave(t, home3000, http.StatusOK, `data-testid="incoming-more"`, "of 3000", `href="/offers"`)
			if len(home1000.Body) != len(home3000.Body) {
				t.Errorf("home page: %d bytes with 1,000 offers, %d with 3,000; want the same", len(home1000.Body), len(home3000.Body))
			}

			page := b.Get("/offers")
			handlerstest.MustHave(t, page, http.StatusOK, `<span class="row-what">From</span>`, "Showing 25 of 3000, newest first.")
			if len(page.Body) >= 50_000 {
				t.Errorf("offers page is %d bytes with 3,000 offers, want under 50 KB", len(page.Body))
			}
			t.Logf("offers page: %d bytes; home: %d bytes", len(page.Body), len(home3000.Body))
			newest := func(skip int) []string {
				var want []string
				for i := len(cids) - 1 - skip; i >= len(cids)-skip-25; i-- {
					want = append(want, string(cids[i]))
				}
				return want
			}
			rows := func(body string) []string {
				var got []string
				for _, m := range incomingRowRe.FindAllStringSubmatch(body, -1) {
					got = append(got, m[1])
				}
				return got
			}
			if got := rows(page.Body); strings.Join(got, ",") != strings.Join(newest(0), ",") {
				t.Errorf("first page shows %d offers, want the newest 25 first", len(got))
			}
			next := nextPageRe.FindStringSubmatch(page.Body)
			if next == nil {
				t.Fatal("no link to the older offers")
			}
			older := b.Get(strings.ReplaceAll(next[1], "&amp;", "&"))
			handlerstest.MustHave(t, older, http.StatusOK, `data-testid="incoming-offers-first"`)
			if got := rows(older.Body); strings.Join(got, ",") != strings.Join(newest(25), ",") {
				t.Errorf("second page shows %d offers, want the next 25", len(got))
			}
			if r := b.Get("/offers?in=not-a-token"); r.Status != http.StatusOK || strings.Join(rows(r.Body), ",") != strings.Join(newest(0), ",") {
				t.Errorf("a mangled page link = %d, want the newest page", r.Status)
			}

			// The JSON API: the spec's shape, a page at a time.
			tok, err := web.SignDevToken(key, "k", "", "", "bob", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			get := func(q url.Values) (int, string, []string) {
				t.Helper()
				return listPage(t, e, tok, "/v0/wallet/transfer-offers", "offers", q)
			}
			var all []string
			token := ""
			for pages := 0; ; pages++ {
				q := url.Values{"page_size": {"500"}}
				if token != "" {
					q.Set("page_token", token)
				}
				status, next, ids := get(q)
				if status != http.StatusOK || len(ids) > 500 || pages > 6 {
					t.Fatalf("page %d = %d, %d offers", pages, status, len(ids))
				}
				all = append(all, ids...)
				if token = next; token == "" {
					break
				}
			}
			var want []string
			for _, c := range cids {
				want = append(want, string(c))
			}
			if strings.Join(all, ",") != strings.Join(want, ",") {
				t.Errorf("the API's pages hold %d offers, want all 3,000 once, oldest first", len(all))
			}
			for _, q := range []url.Values{{"page_size": {"0"}}, {"page_size": {"1001"}}, {"page_size": {"x"}}, {"page_size": {"5"}, "page_token": {"bogus"}}} {
				if status, _, ids := get(q); status != http.StatusBadRequest || len(ids) != 1 || ids[0] == "" {
					t.Errorf("GET ?%s = %d %v, want 400 with words", q.Encode(), status, ids)
				}
			}
		})
	}
}

// TestOfferLimitsInWords: the offer floor and the cap on one sender's
// open offers to one receiver are refused with the limit in words, on the
// Send page (422 with the message) and in the JSON API (400 with
// {"error"}), and nothing is created.
func TestOfferLimitsInWords(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[0], ledgertest.Options{Offers: &ledger.OfferLimits{MinAmount: coin.MustParse("2"), MaxOpenPerReceiver: 1}})
	e, key := tokenUIEnv(t, l)
	alice := e.Wallet(t, "alice", "100")
	bob := e.Wallet(t, "bob", "")
	offer := func(amount string) handlerstest.Resp {
		return alice.Send(url.Values{"receiver": {string(bob.Party)}, "amount": {amount}, "method": {"offer"}, "expires": {"1d"}})
	}
	if r := offer("1"); r.Status != http.StatusUnprocessableEntity || !strings.Contains(alertText(t, r.Body), "must be at least 2 CC") {
		t.Errorf("an offer below the floor = %d %q", r.Status, alertText(t, r.Body))
	}
	handlerstest.MustSend(t, alice, bob.Party, "2", "offer")
	if r := offer("3"); r.Status != http.StatusUnprocessableEntity || !strings.Contains(alertText(t, r.Body), "you already have 1 open transfer offers to this party, the most one sender may have (1)") {
		t.Errorf("an offer over the cap = %d %q", r.Status, alertText(t, r.Body))
	}
	tok, err := web.SignDevToken(key, "k", "", "", "alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ amount, want string }{{"1", "at least 2 CC"}, {"3", "the most one sender may have (1)"}} {
		body, _ := json.Marshal(map[string]any{"receiver_party_id": bob.Party, "amount": c.amount, "description": "",
			"expires_at": l.Now().Add(time.Hour).UnixMicro(), "tracking_id": "api-" + c.amount})
		req, _ := http.NewRequest(http.MethodPost, e.Srv.URL+"/v0/wallet/transfer-offers", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(out.Error, c.want) {
			t.Errorf("API offer of %s = %d %q, want 400 with %q", c.amount, res.StatusCode, out.Error, c.want)
		}
	}
	if in, err := pending.New(l).Incoming(context.Background(), bob.Party); err != nil || in.OfferCount != 1 {
		t.Errorf("bob has %d offers, %v; want 1", in.OfferCount, err)
	}
}

// tokenUIEnv is the web wallet over l whose JSON API also takes tokens
// signed by the key it returns (web.SignDevToken with key id "k").
func tokenUIEnv(t *testing.T, l *ledger.Ledger) (*handlerstest.UIEnv, ed25519.PrivateKey) {
	t.Helper()
	_, key, err := ed25519.GenerateKey(nil) // nil: crypto/rand
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{"k": key.Public()}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return handlerstest.NewUIEnvOn(t, l, nil, func(cfg *handlers.Config) { cfg.Auth = v }), key
}

// listPage GETs a paged list of the JSON API with the token and query:
// the status, the X-Next-Page-Token header and the contract IDs of the
// answer's field (or its error's words).
func listPage(t *testing.T, e *handlerstest.UIEnv, tok, path, field string, q url.Values) (int, string, []string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.Srv.URL+path+"?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]json.RawMessage
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		var words string
		_ = json.Unmarshal(out["error"], &words)
		return res.StatusCode, "", []string{words}
	}
	var cs []struct {
		ContractID string `json:"contract_id"`
	}
	if err := json.Unmarshal(out[field], &cs); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ContractID)
	}
	return res.StatusCode, res.Header.Get("X-Next-Page-Token"), ids
}
