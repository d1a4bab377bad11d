package views

import (
	"regexp"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

var (
	inputIDRe  = regexp.MustCompile(`<(?:input|select)[^>]* id="([^"]+)"`)
	labelForRe = regexp.MustCompile(`<label for="([^"]+)"`)
)

// TestWalletPagesAccessible checks the send, offers, approvals, traffic
// and admin pages: every visible field has a label, no inline script or
// style, the CSRF token in every form.
func TestWalletPagesAccessible(t *testing.T) {
	p := Page{Title: "T", User: "alice", CSRF: "tok", Nav: []NavItem{{Key: "send", Label: "Send", Href: "/send"}}, Active: "send"}
	row := OfferRow{ContractID: "00ab", Counterparty: P("bob::1220"), Amount: "1.0000000000", Incoming: true}
	pages := map[string]templ.Component{
		"send": SendPage(Send{Page: p, Form: SendForm{CSRF: "tok", DedupID: "d1", Error: "amount: must be positive",
			Methods: SendMethods{Checked: true, Preapproved: true, Method: SendDirect}}}),
		"offers": OffersPage(Offers{Page: p, Transfers: Transfers{CSRF: "tok", IncomingOffers: []OfferRow{row},
			OutgoingInstructions: []OfferRow{{ContractID: "00cd", Counterparty: P("carol::1220"), Amount: "2.0000000000"}}}}),
		"approvals": DelegationsPage(Delegations{Page: p}),
		"traffic":   TrafficPage(Traffic{Page: p, Form: TrafficForm{CSRF: "tok", Error: "amount: too small"}}),
		"confirm":   TrafficPage(Traffic{Page: p, Form: TrafficForm{CSRF: "tok"}, Quote: &TrafficQuote{Bytes: 200000, CostCC: "1"}}),
		"admin": AdminPage(Admin{Page: p, Operator: P("op::1220"), Form: OnboardForm{CSRF: "tok"},
			Network: []NetworkRow{{Key: "scanAddress", Env: "TRUSTED_SCAN_URL", Value: "https://scan.example.com", Ignored: true}, {Key: "migration.id"}}}),
	}
	for name, c := range pages {
		t.Run(name, func(t *testing.T) {
			got := renderString(t, c)
			labels := map[string]bool{}
			for _, m := range labelForRe.FindAllStringSubmatch(got, -1) {
				labels[m[1]] = true
			}
			for _, m := range inputIDRe.FindAllStringSubmatch(got, -1) {
				if !labels[m[1]] {
					t.Errorf("field #%s has no label", m[1])
				}
			}
			for _, bad := range []string{" style=", " onclick=", "<script>"} {
				if strings.Contains(got, bad) {
					t.Errorf("inline %q in the page", bad)
				}
			}
			if forms, tokens := strings.Count(got, `method="post"`), strings.Count(got, `name="csrf_token" value="tok"`); tokens < forms {
				t.Errorf("%d post forms, %d CSRF fields", forms, tokens)
			}
		})
	}
	if got := renderString(t, pages["offers"]); !strings.Contains(got, `aria-label="Accept 1 CC, bob::1220"`) ||
		!strings.Contains(got, `data-testid="withdraw"`) {
		t.Error("offers page lacks its labelled buttons")
	}
	if got := renderString(t, pages["admin"]); !strings.Contains(got, `<tr data-testid="network-setting" data-key="scanAddress">`) ||
		strings.Count(got, `data-testid="network-ignored"`) != 1 || !strings.Contains(got, "not set") {
		t.Error("admin page lacks its network configuration rows")
	}
	if got := renderString(t, pages["send"]); !strings.Contains(got, `value="direct" checked`) || !strings.Contains(got, `name="dedup_id" value="d1"`) {
		t.Error("send form lacks the direct method or the dedup id")
	}
}
