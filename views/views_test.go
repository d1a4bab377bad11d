package views

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

func renderString(t *testing.T, c templ.Component) string {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHomePage(t *testing.T) {
	m := Home{
		Page:    Page{Title: "Wallet", User: "alice", CSRF: "tok", Nav: []NavItem{{Key: "home", Label: "Wallet", Href: "/"}}, Active: "home", Events: "/events"},
		Party:   P(testParty),
		Balance: Balance{CC: "1.0000000000", USD: "0.0050000000", Price: "0.0050000000", Round: 7},
		Holdings: []HoldingRow{
			{Amount: "0.9000000000", CreatedRound: 1, AccruedFee: "0.1000000000"},
			{Amount: "0.1000000000", CreatedRound: 2, AccruedFee: "0.0000000000", DustRisk: true, ExpiresRound: 30},
		},
		Health: UTXOHealth{Count: 2, FeePerDay: "1.0000000000", DustRisk: 1},
		Tap:    &TapForm{CSRF: "tok", Error: "amount: must be positive"},
	}
	got := renderString(t, HomePage(m))
	for _, want := range []string{
		`data-testid="balance-cc" title="1.0000000000 CC">1.00 CC<`, `data-testid="balance-usd" title="0.0050000000 USD" tabindex="0"><span class="amt-short" aria-hidden="true">0.01</span><span class="amt-full">0.005</span> USD<`,
		`data-testid="party-id" title="` + testParty + `"`, `>alice::1220ab12…e88d<`, `data-copy="` + testParty + `"`,
		`data-testid="dust-risk"`, `expires at round 30`, `data-testid="tap-error"`, `aria-invalid="true"`,
		`name="csrf_token" value="tok"`, `data-events="/events"`, `aria-current="page"`, `<label for="tap-amount">`,
		`hx-headers="{&#34;X-CSRF-Token&#34;:&#34;tok&#34;}"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("home page lacks %s", want)
		}
	}
	if strings.Contains(got, `data-testid="fragmented"`) {
		t.Error("2 holdings marked fragmented")
	}
	for _, bad := range []string{" style=", " onclick=", "<script>"} {
		if strings.Contains(got, bad) {
			t.Errorf("inline %q in the page", bad)
		}
	}
}

func TestFragmentHasNoLayout(t *testing.T) {
	got := renderString(t, TapFormView(TapForm{CSRF: "tok", Message: "Received 1.0000000000 CC."}))
	if strings.Contains(got, "<html") || !strings.Contains(got, `data-testid="tap-ok"`) {
		t.Errorf("fragment: %s", got)
	}
}

func TestPublicPageHasNoUserBits(t *testing.T) {
	got := renderString(t, LandingPage(Landing{Page: Page{Title: "Welcome"}, DevProvider: true}))
	for _, bad := range []string{"hx-headers", `data-testid="logout"`, "data-events"} {
		if strings.Contains(got, bad) {
			t.Errorf("landing page has %s", bad)
		}
	}
}

func TestHomePageCappedHoldings(t *testing.T) {
	m := Home{
		Page:     Page{Title: "Wallet", User: "alice", CSRF: "tok"},
		Holdings: []HoldingRow{{Amount: "5.0000000000"}, {Amount: "0.1000000000", DustRisk: true, ExpiresRound: 9}},
		Health:   UTXOHealth{Count: 150, DustRisk: 1},
	}
	got := renderString(t, HomePage(m))
	for _, want := range []string{`data-testid="holdings-shown"`, "Showing 2 of 150 holdings", "at risk of expiry", `href="/holdings"`} {
		if !strings.Contains(got, want) {
			t.Errorf("capped home page lacks %s", want)
		}
	}
	m.Health.Count = 2
	if got := renderString(t, HomePage(m)); strings.Contains(got, `data-testid="holdings-shown"`) {
		t.Error("home page with every holding listed says it shows only some")
	}
}

func TestHoldingsPage(t *testing.T) {
	got := renderString(t, HoldingsPage(Holdings{
		Page: Page{Title: "Holdings", User: "alice", CSRF: "tok"},
		Rows: []HoldingRow{{Amount: "1.0000000000"}, {Amount: "0.5000000000"}}, Total: 202, From: 101, To: 102,
		PrevHref: "/holdings?page=1", NextHref: "/holdings?page=3",
	}))
	for _, want := range []string{"Holdings 101–102 of 202", `href="/holdings?page=1"`, `href="/holdings?page=3"`, `data-testid="holding-row"`} {
		if !strings.Contains(got, want) {
			t.Errorf("holdings page lacks %s", want)
		}
	}
	if n := strings.Count(got, `data-testid="holding-row"`); n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
}
