package views

import (
	"strings"
	"testing"
	"time"
)

// TestActivityRowIsOneLineWithDetails: an entry's summary has kind,
// counterparty, signed amount and time; the rest is in its details.
func TestActivityRowIsOneLineWithDetails(t *testing.T) {
	got := renderString(t, ActivityRow(HistoryRow{Label: "Transfer offer paid", Kind: "transfer", Counterparty: testParty,
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
	row := HistoryRow{Label: "Transfer offer paid", Kind: "transfer", Counterparty: testParty,
		Amount: "-100.0000000000", Fees: "0.0000000000", At: time.Now().Add(-2 * time.Minute), Round: 7}
	got := renderString(t, HomePage(Home{Page: Page{Title: "T", User: "alice", CSRF: "tok"}, Party: testParty, Recent: []HistoryRow{row}}))
	_, recent, _ := strings.Cut(got, `data-testid="home-recent"`)
	recent, _, _ = strings.Cut(recent, "</section>")
	if want := renderString(t, ActivityRow(row)); !strings.Contains(recent, want) {
		t.Errorf("Home's recent activity lacks the entry as History shows it:\n%s\nwant within it\n%s", recent, want)
	}
}
