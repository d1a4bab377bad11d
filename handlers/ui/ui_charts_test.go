package ui_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/views"
)

// svgRe reads a chart's svg: its point count and its title (the text
// alternative).
var svgRe = regexp.MustCompile(`(?s)<figure class="chart" data-testid="([^"]+)">.*?<svg [^>]*role="img"[^>]*data-points="(\d+)"[^>]*>\s*<title id="[^"]+">([^<]*)</title>`)

// TestUICharts: Home draws the balance after each change, one point per
// history entry (onboarding, then three mints), and says the numbers in
// the chart's title; the holdings page counts the holdings by size. A
// wallet with one change draws no line.
func TestUICharts(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		b.Onboarded("alice")
		if strings.Contains(b.Get("/").Body, `data-testid="balance-chart"`) {
			t.Error("a wallet with one change draws a balance line")
		}
		u, err := users.Of(e.L).Get(context.Background(), "alice")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{"10", "20", "30.5", "0.5"} {
			ledgertest.Mint(t, e.L, u.Party, a)
		}
		charts := func(path string) map[string][2]string {
			t.Helper()
			r := b.Get(path)
			handlerstest.MustHave(t, r, 200)
			out := map[string][2]string{}
			for _, m := range svgRe.FindAllStringSubmatch(r.Body, -1) {
				out[m[1]] = [2]string{m[2], m[3]}
			}
			return out
		}
		home := charts("/")["balance-chart"]
		if home[0] != "5" {
			t.Errorf("balance chart has %q points, want 5 (onboarding and 4 mints)", home[0])
		}
		if !strings.Contains(home[1], "last 5 changes: From 0 CC (") || !strings.Contains(home[1], ") to 61 CC (") ||
			!strings.HasSuffix(home[1], "; lowest 0 CC, highest 61 CC.") {
			t.Errorf("balance chart's text: %q", home[1])
		}
		sizes := charts("/holdings")["holdings-chart"]
		if sizes[0] != "3" || sizes[1] != "Holdings by size in CC: 1 of 0.1–1, 0 of 1–10, 3 of 10–100." {
			t.Errorf("holdings chart: %q", sizes)
		}
		// Home's chart and its recent activity share one read of the last
		// changes: with more changes than the activity lists, the chart
		// still draws them all and the activity shows the newest few.
		for _, a := range []string{"1", "2", "3"} {
			ledgertest.Mint(t, e.L, u.Party, a)
		}
		if got := charts("/")["balance-chart"][0]; got != "8" {
			t.Errorf("balance chart has %q points after 7 mints, want 8", got)
		}
		page := b.Get("/").Body
		_, recent, _ := strings.Cut(page, `data-testid="home-recent"`)
		recent, _, _ = strings.Cut(recent, `data-testid="recent-all"`)
		if n := strings.Count(recent, `data-testid="history-row"`); n != views.HomeRecent {
			t.Errorf("recent activity lists %d changes of 8, want %d", n, views.HomeRecent)
		}
		if !strings.Contains(recent, "+3.00 CC") || strings.Contains(recent, "+10.00 CC") {
			t.Errorf("recent activity is not the newest changes: %s", recent)
		}
	})
}
