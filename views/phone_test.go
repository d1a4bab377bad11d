package views

import (
	"strings"
	"testing"
)

// TestSendUSDInParens: Send's available balance and review say
// "(12.00 USD)" with nothing between the amount and the ")" and as one
// piece that does not break on a phone.
func TestSendUSDInParens(t *testing.T) {
	got := renderString(t, SendPage(Send{Page: Page{Title: "Send", CSRF: "tok"}, Balance: "2400.0000000000", BalanceUSD: "12.0000000000",
		Form: SendForm{CSRF: "tok"}}))
	want := `<span class="nowrap">(<span class="amt" data-testid="send-balance-usd" title="12.0000000000 USD">12.00 USD</span>)</span>`
	if !strings.Contains(got, want) {
		t.Errorf("send page lacks %s:\n%s", want, got)
	}
}
