package ui_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/traffic"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// TestUIConcurrentDoubleSubmit posts one rendered send form (and one
// traffic confirmation) several times at once, as an impatient double
// click does: the form's id makes it one transfer, and every submission is
// answered the same way, with the redirect that reports success, so the
// page the browser ends up showing is right whichever answer it shows.
func TestUIConcurrentDoubleSubmit(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		alice := e.Wallet(t, "alice", "100") // 20000 CC
		bob := e.Wallet(t, "bob", "")
		if r := bob.Post("/preapproval", url.Values{"csrf_token": {bob.Csrf}}); r.Status != http.StatusSeeOther {
			t.Fatalf("create preapproval = %d", r.Status)
		}
		concurrently := func(path string, form url.Values) []handlerstest.Resp {
			const clicks = 6
			out := make([]handlerstest.Resp, clicks)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range clicks {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					out[i] = alice.Post(path, form)
				}()
			}
			close(start)
			wg.Wait()
			return out
		}
		carol, err := users.Of(e.L).Onboard(t.Context(), "carol", "") // no preapproval
		if err != nil {
			t.Fatal(err)
		}
		bobsHoldings := func() int {
			b, err := e.L.Balance(t.Context(), bob.Party)
			if err != nil {
				t.Fatal(err)
			}
			return b.Count
		}
		for _, tc := range []struct {
			name, method string
			to           coin.PartyID
			// sent is how the send settled: an instruction to a receiver
			// with a preapproval completes at once (issue 22.3).
			sent    string
			effects func() int
		}{
			{"direct", "direct", bob.Party, "direct", bobsHoldings},
			{"offer", "offer", bob.Party, "offer", func() int { return len(alice.Pending()["outgoing-offers"]) }},
			{"instruction", "instruction", carol, "instruction", func() int { return len(alice.Pending()["outgoing-instructions"]) }},
			{"instruction to a preapproved receiver", "instruction", bob.Party, "direct", bobsHoldings},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := tc.effects()
				page := alice.Get("/send")
				form := url.Values{"csrf_token": {alice.Csrf}, "dedup_id": {handlerstest.DedupOf(t, page.Body)}, "receiver": {string(tc.to)},
					"amount": {"7"}, "method": {tc.method}, "expires": {"1d"}}
				if tc.sent == "direct" {
					// A send that completes at once is shown to confirm
					// first (issue 37): Send sends nothing yet; the double
					// click is on Confirm and send.
					form.Set("action", "send")
					if r := alice.Post("/send", form); r.Status != http.StatusOK || !strings.Contains(r.Body, `data-testid="send-review"`) {
						t.Errorf("send = %d, want the review: %.300s", r.Status, r.Body)
					}
					if n := tc.effects() - before; n != 0 {
						t.Errorf("the review sent %d", n)
					}
					form.Set("action", "confirm")
				}
				for i, r := range concurrently("/send", form) {
					if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/send?done=sent-"+tc.sent {
						t.Errorf("submission %d = %d %q: %.300s", i, r.Status, r.Header.Get("Location"), r.Body)
					}
				}
				if n := tc.effects() - before; n != 1 {
					t.Errorf("%d %s sends, want 1", n, tc.method)
				}
			})
		}
		t.Run("traffic", func(t *testing.T) {
			q := alice.Post("/traffic", url.Values{"csrf_token": {alice.Csrf}, "step": {"quote"}, "member": {string(e.L.Operator())}, "amount": {"200000"}, "unit": {"bytes"}})
			handlerstest.MustHave(t, q, http.StatusOK, `data-testid="traffic-confirm"`)
			tracking := regexp.MustCompile(`name="tracking_id" value="([^"]+)"`).FindStringSubmatch(q.Body)[1]
			confirm := url.Values{"csrf_token": {alice.Csrf}, "step": {"confirm"}, "member": {string(e.L.Operator())}, "amount": {"200000"}, "unit": {"bytes"}, "tracking_id": {tracking}}
			for i, r := range concurrently("/traffic", confirm) {
				if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/traffic?tracking="+tracking+"&done=traffic-bought" {
					t.Errorf("confirmation %d = %d %q: %.300s", i, r.Status, r.Header.Get("Location"), r.Body)
				}
			}
			s, err := traffic.New(e.L).TrafficStatus(t.Context(), alice.Party)
			if err != nil || s.NumPurchases != 1 {
				t.Errorf("traffic purchases = %d, %v; want 1", s.NumPurchases, err)
			}
		})
	})
}
