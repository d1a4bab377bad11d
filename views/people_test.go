package views

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
)

// TestActivityRowIsOneLineWithDetails: an entry's summary has kind,
// counterparty, signed amount and time; the rest is in its details.
func TestActivityRowIsOneLineWithDetails(t *testing.T) {
	got := renderString(t, ActivityRow(HistoryRow{Label: "Transfer offer paid", Kind: "transfer", Counterparty: P(testParty),
		Amount: "-100.0000000000", Fees: "0.0000000000", Description: "rent", At: time.Now().Add(-2 * time.Minute), Round: 7}))
	summary, details, ok := strings.Cut(got, "</summary>")
	if !ok {
		t.Fatalf("no summary: %s", got)
	}
	for _, want := range []string{"Transfer offer paid", "alice::1220ab12…e88d", "-100.00 CC", "2 min ago", `<time datetime="`} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q: %s", want, summary)
		}
	}
	for _, want := range []string{"round 7", "Fees", testParty, "rent"} {
		if !strings.Contains(details, want) {
			t.Errorf("details lack %q: %s", want, details)
		}
	}
}

func TestSendErrorDescribesItsField(t *testing.T) {
	f := SendForm{Error: "Enter an amount.", ErrorField: "amount"}
	if got := describedBy(f, "amount", "send-usd"); got != "send-amount-error send-usd" {
		t.Errorf("amount described by %q", got)
	}
	if got := describedBy(f, "receiver", "send-who"); got != "send-who" {
		t.Errorf("receiver described by %q", got)
	}
	got := renderString(t, SendFormView(f))
	if !strings.Contains(got, `id="send-amount-error"`) || strings.Contains(got, `<p id="send-error"`) {
		t.Errorf("the amount's error is not at the amount: %s", got)
	}
}

// TestHomeRecentIsActivity: Home's latest activity lists its entries as
// History does, one line each with the details on tap.
func TestHomeRecentIsActivity(t *testing.T) {
	row := HistoryRow{Label: "Transfer offer paid", Kind: "transfer", Counterparty: P(testParty),
		Amount: "-100.0000000000", Fees: "0.0000000000", At: time.Now().Add(-2 * time.Minute), Round: 7}
	got := renderString(t, HomePage(Home{Page: Page{Title: "T", User: "alice", CSRF: "tok"}, Party: P(testParty), Recent: []HistoryRow{row}}))
	_, recent, _ := strings.Cut(got, `data-testid="home-recent"`)
	recent, _, _ = strings.Cut(recent, "</section>")
	if want := renderString(t, ActivityRow(row)); !strings.Contains(recent, want) {
		t.Errorf("Home's recent activity lacks the entry as History shows it:\n%s\nwant within it\n%s", recent, want)
	}
}

var amtFullRe = regexp.MustCompile(`<span class="amt-full">[^<]*</span>`)

// TestSubscriptionAmountsForPeople: Subscriptions and its confirm page
// show each payment with 2 decimals as every other page does, the exact
// amount in the title and in what a selection copies (issue 37).
func TestSubscriptionAmountsForPeople(t *testing.T) {
	p := Page{Title: "T", User: "alice", CSRF: "tok"}
	row := SubscriptionRow{ContractID: "00s1", Provider: P(testParty), Receiver: P(testParty), Description: "news",
		Amount: "50281.3938345000", Unit: "CC", Every: "30 days", Early: "1 hour", NextDue: time.Now().Add(time.Hour)}
	want := `<span class="amt-short" aria-hidden="true">50,281.39</span><span class="amt-full">50,281.3938345</span> CC`
	for name, c := range map[string]templ.Component{
		"subscriptions": SubscriptionsPage(Subscriptions{Page: p, Requests: []SubscriptionRow{row}, Active: []SubscriptionRow{row}}),
		"confirm":       ConfirmSubscriptionPage(ConfirmSubscription{Page: p, Request: row, Pending: true, CC: row.Amount, USD: "251.4069691725"}),
	} {
		got := renderString(t, c)
		if !strings.Contains(got, `data-testid="subscription-amount" title="50281.3938345000 CC" tabindex="0">`+want) {
			t.Errorf("%s: the payment is not shown with 2 decimals, exact on focus: %s", name, got)
		}
		// Seen, outside the exact copies and titles: never all the digits.
		if text := tagRe.ReplaceAllString(amtFullRe.ReplaceAllString(got, ""), ""); strings.Contains(text, "3938345") {
			t.Errorf("%s: many decimals shown: %s", name, text)
		}
	}
}
