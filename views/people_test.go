package views

import (
	"strings"
	"testing"
	"time"
)

func TestSignedPeople(t *testing.T) {
	for in, want := range map[string]string{"12.5": "+12.50", "-100": "-100.00", "0.0000000000": "0.00", "x": "x"} {
		if got := signedPeople(in); got != want {
			t.Errorf("signedPeople(%q) = %q, want %q", in, got, want)
		}
	}
}

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
