package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/views"
)

// TestFirstCoinInProductionAtBothWidths: a new wallet's Home on a
// production network (no faucet; handlers' TestUIFirstCoinInProduction
// shows the handler chooses it) says how to receive coin, with Receive in
// reach, at a phone's and a desktop's width: the card and its Receive
// above the fold, nothing cut off or scrolling sideways, axe-core clean
// (issue 37 point 7). The page is rendered here from the views, without
// a faucet, into a page of the running wallet (its stylesheet, its CSP).
func TestFirstCoinInProductionAtBothWidths(t *testing.T) {
	t.Parallel()
	nav := []views.NavItem{{Key: "home", Label: "Home", Href: "/"}, {Key: "send", Label: "Send", Href: "/send"},
		{Key: "receive", Label: "Receive", Href: "/receive"}, {Key: "history", Label: "Activity", Href: "/history"},
		{Key: "offers", Label: "Offers", Href: "/offers", Group: views.NavMore}}
	party := "alice::1220" + strings.Repeat("ab", 32)
	m := views.Home{Page: views.Page{Title: "Home", User: "alice", CSRF: "tok", Nav: nav, Active: "home"}, Party: views.P(party), FirstRun: true,
		Balance: views.Balance{CC: "0.0000000000", USD: "0.0000000000", Total: "0.0000000000", Fees: "0.0000000000", Price: "0.0050000000", Round: 1}}
	var html strings.Builder
	must(t, views.HomePage(m).Render(context.Background(), &html))
	for _, w := range []int{390, 1280} {
		where := fmt.Sprintf("a production wallet's first Home at %d px", w)
		p := newPageAt(t, true, w)
		_, err := p.Goto(baseURL + "/login")
		must(t, err)
		must(t, p.SetContent(html.String()))
		card := testID(p, "first-coin")
		must(t, expect.Locator(card).ToContainText("Get your first coin"))
		must(t, expect.Locator(card).ToContainText("To receive coin, give the sender your party ID"))
		must(t, expect.Locator(card.GetByTestId("tap-form")).ToHaveCount(0))
		receive := card.GetByTestId("first-coin-receive")
		must(t, expect.Locator(receive).ToHaveAttribute("href", "/receive"))
		if b := box(t, receive, "the card's Receive"); b.Y+b.Height > 844-60 {
			t.Errorf("%s: the card's Receive is at %+v, below the fold or under the tab bar", where, b)
		}
		noSidewaysScroll(t, p, where)
		checkA11y(t, p, where)
	}
}
