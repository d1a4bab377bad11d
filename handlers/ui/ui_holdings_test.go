package ui_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/static"
	"github.com/ccwallet/ccwallet/store"
)

// TestUIHoldingsCap: with 150 holdings the home page lists 10 (the
// largest, and every one at risk of expiry) and says so, the UTXO health
// still counts all 150, and /holdings pages through all of them.
func TestUIHoldingsCap(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		ctx := context.Background()
		b := e.Browser(t)
		b.Onboarded("alice")
		party, err := users.Of(e.L).PartyOf(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		// 147 holdings of 1 to 147 CC, and 3 of 0.1 CC that the holding
		// fee eats within a day of rounds: the smallest, so last by size.
		var as []coin.Amount
		for i := 1; i <= 147; i++ {
			as = append(as, coin.MustParse(fmt.Sprintf("%d", i)))
		}
		for range 3 {
			as = append(as, coin.MustParse("0.1"))
		}
		if err := ledgertest.Dev(t, e.L).MintBulk(ctx, party, as); err != nil {
			t.Fatal(err)
		}

		home := b.Get("/")
		handlerstest.MustHave(t, home, http.StatusOK, `data-testid="utxo-count">150<`, `data-testid="holdings-shown"`,
			"Showing 10 of 150 holdings", `href="/holdings"`, "3 at risk of expiry", "147.0000000000 CC")
		if n := strings.Count(home.Body, `data-testid="holding-row"`); n != 10 {
			t.Errorf("home lists %d holdings, want 10", n)
		}
		if n := strings.Count(home.Body, `data-testid="dust-risk"`); n != 3 {
			t.Errorf("home marks %d holdings at risk, want all 3", n)
		}
		// 7 largest fill the rest: 147 down to 141, not 140.
		if !strings.Contains(home.Body, `title="141.0000000000 CC">141.00 CC<`) || strings.Contains(home.Body, `title="140.0000000000 CC"`) {
			t.Error("home does not list the 7 largest besides the 3 at risk")
		}
		// The health summary's fee counts all 150 holdings.
		m := regexp.MustCompile(`Holding fee: <span class="amt" title="([0-9.]+) CC"`).FindStringSubmatch(home.Body)
		if m == nil || m[1] != "82.1918880000" {
			t.Errorf("fee per day: %v", m)
		}
		handlerstest.MustHave(t, b.Get("/home/live"), http.StatusOK, "Showing 10 of 150 holdings")

		p1 := b.Get("/holdings")
		handlerstest.MustHave(t, p1, http.StatusOK, "Holdings 1–100 of 150", `data-testid="holdings-next"`, `href="/holdings?page=2"`,
			"147.0000000000 CC", "3 at risk of expiry")
		if n := strings.Count(p1.Body, `data-testid="holding-row"`); n != 100 {
			t.Errorf("holdings page 1 lists %d, want 100", n)
		}
		p2 := b.Get("/holdings?page=2")
		handlerstest.MustHave(t, p2, http.StatusOK, "Holdings 101–150 of 150", `href="/holdings?page=1"`, `title="47.0000000000 CC">47.00 CC<`)
		if n := strings.Count(p2.Body, `data-testid="holding-row"`); n != 50 {
			t.Errorf("holdings page 2 lists %d, want 50", n)
		}
		if n := strings.Count(p2.Body, `data-testid="dust-risk"`); n != 3 {
			t.Errorf("holdings page 2 marks %d at risk, want 3", n)
		}
		if strings.Contains(p2.Body, `data-testid="holdings-next"`) {
			t.Error("the last page links to a next one")
		}
		handlerstest.MustHave(t, b.Get("/holdings?page=9"), http.StatusOK, "Holdings 101–150 of 150")
		handlerstest.MustHave(t, b.Get("/holdings?page=0"), http.StatusBadRequest)
	})
}

// TestUIHoldingsFew: a wallet with fewer holdings than the cap lists them
// all on the home page, without the "showing" line.
func TestUIHoldingsFew(t *testing.T) {
	e := handlerstest.NewUIEnv(t, store.SQLite)
	b := e.Browser(t)
	b.Onboarded("alice")
	handlerstest.MustHave(t, b.Get("/holdings"), http.StatusOK, `data-testid="no-holdings"`)
	party, err := users.Of(e.L).PartyOf(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := ledgertest.Dev(t, e.L).MintBulk(context.Background(), party, []coin.Amount{coin.MustParse("1"), coin.MustParse("2")}); err != nil {
		t.Fatal(err)
	}
	home := b.Get("/")
	if n := strings.Count(home.Body, `data-testid="holding-row"`); n != 2 || strings.Contains(home.Body, `data-testid="holdings-shown"`) {
		t.Errorf("home with 2 holdings: %d rows, showing line %v", n, strings.Contains(home.Body, `data-testid="holdings-shown"`))
	}
	handlerstest.MustHave(t, b.Get("/holdings"), http.StatusOK, "Holdings 1–2 of 2")
}

// TestUICompression: pages and static assets are compressed for a client
// that accepts gzip (and sent plain to one that does not); the event
// stream never is.
func TestUICompression(t *testing.T) {
	e := handlerstest.NewUIEnv(t, store.SQLite)
	b := e.Browser(t)
	b.Onboarded("alice")
	get := func(path, acceptEncoding string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, e.Srv.URL+path, nil)
		// Set by hand, so the client leaves the body as sent.
		req.Header.Set("Accept-Encoding", acceptEncoding)
		res, err := b.C.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, body
	}
	for _, path := range []string{"/", "/holdings", "/history", static.URL("app.css"), static.URL("htmx.min.js")} {
		t.Run(path, func(t *testing.T) {
			res, body := get(path, "gzip")
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("GET %s = %d, Content-Encoding %q", path, res.StatusCode, res.Header.Get("Content-Encoding"))
			}
			if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary %q", res.Header.Get("Vary"))
			}
			if res.Header.Get("Content-Security-Policy") == "" {
				t.Error("compressed response lost its CSP")
			}
			zr, err := gzip.NewReader(strings.NewReader(string(body)))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			res2, raw := get(path, "identity")
			if res2.Header.Get("Content-Encoding") != "" || string(raw) != string(plain) {
				t.Errorf("identity: Content-Encoding %q, or the body differs from the gzipped one", res2.Header.Get("Content-Encoding"))
			}
			if len(body) >= len(raw) {
				t.Errorf("gzip %d bytes, plain %d", len(body), len(raw))
			}
		})
	}
	if res, _ := get(static.URL("app.css"), "gzip"); !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("static Cache-Control %q", res.Header.Get("Cache-Control"))
	}

	// The event stream, asked for as EventSource does and as a plain
	// client does: plain, and its first event arrives at once.
	for _, accept := range []string{"text/event-stream", ""} {
		req, _ := http.NewRequest(http.MethodGet, e.Srv.URL+"/events", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		res, err := b.C.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if ce, ct := res.Header.Get("Content-Encoding"), res.Header.Get("Content-Type"); ce != "" || ct != "text/event-stream" {
			t.Errorf("/events (Accept %q): Content-Encoding %q, Content-Type %q", accept, ce, ct)
		}
		line, err := bufio.NewReader(res.Body).ReadString('\n')
		if err != nil || line != "retry: 5000\n" {
			t.Errorf("/events first line %q, %v", line, err)
		}
		res.Body.Close()
	}
}
