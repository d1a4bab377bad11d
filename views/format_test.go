package views

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
)

func TestHumanAmount(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"19311.2000000000", "19,311.2"},
		{"0.0000000000", "0"},
		{"-0.0000000000", "0"},
		{"-100.0000000000", "-100"},
		{"-1234567.0000000001", "-1,234,567.0000000001"},
		{"0.0000000001", "0.0000000001"},
		{"999.9999999999", "999.9999999999"},
		{"1000.0000000000", "1,000"},
		{"100", "100"},
		{"0012.50", "12.5"},
		{"9999999999999999999999999999.9999999999", "9,999,999,999,999,999,999,999,999,999.9999999999"},
		{"", ""},
		{"lots", "lots"},
		{"1e5", "1e5"},
	} {
		if got := HumanAmount(c.in); got != c.want {
			t.Errorf("HumanAmount(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShortParty(t *testing.T) {
	fp := "1220ab12" + "00000000000000000000000000000000000000000000000000000000" + "e88d"
	for _, c := range []struct{ in, want string }{
		{"hint::" + fp, "hint::1220ab12…e88d"},
		{"bob::1220", "bob::1220"},
		{"nobody", "nobody"},
		{"", ""},
	} {
		if got := ShortParty(c.in); got != c.want {
			t.Errorf("ShortParty(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// testParty is a party ID of the real form: hint, "::", "1220" and 64 hex.
const testParty = "alice::1220ab12" + "00000000000000000000000000000000000000000000000000000000" + "e88d"

var tdRe = regexp.MustCompile(`<td[^>]*>`)

// TestTableCellsAreLabelled: on a phone every table row is a card whose
// lines are labelled by the cells' data-label, so every cell needs one.
func TestTableCellsAreLabelled(t *testing.T) {
	p := Page{Title: "T", User: "alice", CSRF: "tok"}
	pages := map[string]templ.Component{
		"home": HomePage(Home{Page: p, Party: P(testParty), Holdings: []HoldingRow{{Amount: "1.0000000000", DustRisk: true, Locked: true}},
			Health: UTXOHealth{Count: 1}}),
		// History is a list of one-line entries, not a table (issue 37);
		// so are the Offers page's lists (PendingRowView, as on Home).
		"admin": AdminPage(Admin{Page: p, Operator: P(testParty), Users: []UserRow{{Name: "alice", Party: P(testParty)}},
			Automations: []AutomationRow{{Name: "merge"}}, Merges: []MergeRow{{Party: P(testParty)}}, Network: []NetworkRow{{Key: "k"}}}),
		"minting": MintingDelegationsPage(MintingDelegations{Page: p, Proposals: []MintingDelegationRow{{ContractID: "00ef", Beneficiary: P(testParty)}}}),
	}
	for name, c := range pages {
		got := renderString(t, c)
		tds := tdRe.FindAllString(got, -1)
		if len(tds) == 0 {
			t.Errorf("%s: no table cells rendered", name)
		}
		for _, td := range tds {
			if !strings.Contains(td, `data-label="`) {
				t.Errorf("%s: cell without data-label: %s", name, td)
			}
		}
		if strings.Contains(got, `class="party">`+testParty) {
			t.Errorf("%s: a party ID shown whole", name)
		}
	}
}

func TestAmountAndPartyComponents(t *testing.T) {
	for _, c := range []struct {
		c    templ.Component
		want string
	}{
		{CC("19311.2000000000", "x"), `<span class="amt" data-testid="x" title="19311.2000000000 CC">19,311.20 CC</span>`},
		{USD("96.5560000000", ""), `<span class="amt" title="96.5560000000 USD" tabindex="0"><span class="amt-short" aria-hidden="true">96.56</span>` +
			`<span class="amt-full">96.556</span> USD</span>`},
		{Party(P(testParty), ""), `<span class="party" title="` + testParty + `" data-party="` + testParty + `" tabindex="0">` +
			`<span class="party-short" aria-hidden="true">alice::1220ab12…e88d</span><span class="party-full">` + testParty + `</span></span>`},
		{Party(P("bob::1220"), ""), `<span class="party" title="bob::1220" data-party="bob::1220">bob::1220</span>`},
		{Party(PartyRef{}, ""), ``},
	} {
		if got := renderString(t, c.c); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestShortID(t *testing.T) {
	for in, want := range map[string]string{
		"122001a2b3c4d5e6f708090a0b0c0d0e5a7c26ef": "1220…5a7c26ef",
		"1220abcd": "1220abcd",
		"":         "",
	} {
		if got := ShortID(in); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPeopleAmount(t *testing.T) {
	for _, c := range []struct {
		in, want string
		lossy    bool
	}{
		{"19311.2000000000", "19,311.20", false},
		{"50281.3938345000", "50,281.39", true},
		{"0.0000000000", "0.00", false},
		{"-100.0000000000", "-100.00", false},
		{"999.9950000000", "1,000.00", true},
		{"0.0012345000", "0.0012", true},
		{"-0.0000000001", "-0.0000000001", false},
		{"0.0050000000", "0.01", true},
		{"0.0100000000", "0.01", false},
		// USD values: rounded to cents, half away from zero.
		{"96.5560000000", "96.56", true},
		{"96.5549999999", "96.55", true},
		{"-3.3350000000", "-3.34", true},
		{"9999999999999999999999999999.9950000000", "10,000,000,000,000,000,000,000,000,000.00", true},
		{"1234567.1000000000", "1,234,567.10", false},
		{"100", "100.00", false},
		{"lots", "lots", false},
	} {
		got, lossy := PeopleAmount(c.in)
		if got != c.want || lossy != c.lossy {
			t.Errorf("PeopleAmount(%q) = %q, %v; want %q, %v", c.in, got, lossy, c.want, c.lossy)
		}
	}
}

func TestSignedPeople(t *testing.T) {
	for in, want := range map[string]string{"12.5": "+12.50", "-100": "-100.00", "0.0000000000": "0.00", "x": "x"} {
		if got := signedPeople(in); got != want {
			t.Errorf("signedPeople(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRelTime(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "just now"},
		{-2 * time.Minute, "2 min ago"},
		{3*time.Hour + 10*time.Minute, "in 3 h"},
		{-50 * time.Second, "1 min ago"},
		{-26 * time.Hour, "1 d ago"},
		{-20 * 24 * time.Hour, "8 Nov"},
		{90 * 24 * time.Hour, "in 90 d"},
		{120 * 24 * time.Hour, "28 Mar 2027"},
		{-400 * 24 * time.Hour, "24 Oct 2025"},
	} {
		if got := RelTime(now.Add(c.d), now); got != c.want {
			t.Errorf("RelTime(now%+v) = %q, want %q", c.d, got, c.want)
		}
	}
	if RelTime(time.Time{}, now) != "" {
		t.Error("the zero time is not empty")
	}
}
