package views

import (
	"strings"
	"testing"
)

// TestFillNames: every PartyRef of a view model, in embedded structs,
// slices and pointers, gets its name from one map, and the page shows it
// beside the party on its one render.
func TestFillNames(t *testing.T) {
	m := Home{Page: Page{Title: "Wallet", CSRF: "tok"}, Party: P(testParty),
		Recent: []HistoryRow{{Label: "Sent", Counterparty: P("bob::1220")}, {Label: "Tap"}}}
	tr := Traffic{Quote: &TrafficQuote{Member: P("carol::1220")}}
	if got := len(PartyRefs(&m)); got != 2 {
		t.Errorf("home: %d parties, want 2 (an empty one is none)", got)
	}
	if got := PartyRefs(&tr); len(got) != 1 || got[0].ID != "carol::1220" {
		t.Errorf("traffic: parties %v", got)
	}
	FillNames(&m, map[string]string{testParty: "alice.unverified.cns", "bob::1220": "bob.unverified.cns"})
	FillNames(&tr, map[string]string{"carol::1220": "carol.unverified.cns"})
	if m.Party.Name != "alice.unverified.cns" || m.Recent[0].Counterparty.Name != "bob.unverified.cns" || tr.Quote.Member.Name != "carol.unverified.cns" {
		t.Errorf("names not filled: %+v %+v %+v", m.Party, m.Recent[0].Counterparty, tr.Quote.Member)
	}
	got := renderString(t, HomePage(m))
	for _, want := range []string{`data-testid="party-name">alice.unverified.cns<`, `data-testid="party-name">bob.unverified.cns<`} {
		if !strings.Contains(got, want) {
			t.Errorf("home page lacks %s", want)
		}
	}
}
