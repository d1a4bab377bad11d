package views

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
)

// tagRe is an HTML tag with its attributes: what is left without them is
// the text a person reads.
var tagRe = regexp.MustCompile(`<[^>]*>`)

// TestTimesAreRelative: the pages that still wrote absolute UTC times
// with seconds (issue 37: admin, allocations, names, subscriptions, Home's
// cards; payments, rewards, approvals and minting delegations too) show
// every time relative, in a <time> whose title has the exact time.
func TestTimesAreRelative(t *testing.T) {
	p := Page{Title: "T", User: "alice", CSRF: "tok"}
	soon := time.Now().Add(3*time.Hour + 10*time.Minute)
	ago := time.Now().Add(-2 * time.Minute)
	req := AllocationRequestRow{ContractID: "00a1", Executor: P(testParty), RequestedAt: ago, AllocateBefore: soon, SettleBefore: soon,
		Legs: []AllocationLegRow{{ID: "leg0", Sender: P(testParty), Receiver: P(testParty), Amount: "1.0000000000", Mine: true}}, Send: "1.0000000000"}
	alloc := AllocationRow{ContractID: "00a2", Counterparty: P(testParty), Amount: "1.0000000000", Executor: P(testParty), LegID: "leg0", SettleBefore: soon, State: "executed", At: ago}
	offer := OfferRow{ContractID: "00ab", Counterparty: P(testParty), Amount: "1.0000000000", ExpiresAt: soon, Incoming: true}
	payment := AppPaymentRow{ContractID: "00p1", Provider: P(testParty), Description: "shop", Total: "1.0000000000", Expires: soon}
	active := MintingDelegationRow{ContractID: "00m1", Beneficiary: P(testParty), Expires: soon, MergeLimit: 5,
		Activity: []DelegateActivityRow{{Time: ago, What: "merged 4 holdings"}}}
	proposal := active
	proposal.ContractID, proposal.Replaces = "00m2", &active
	sub := SubscriptionRow{ContractID: "00s1", Provider: P(testParty), Receiver: P(testParty), Amount: "1.0000000000", Unit: "CC", Every: "30 days", Early: "1 hour", NextDue: soon}
	paying := sub
	paying.Paying = true
	pages := map[string]templ.Component{
		"admin": AdminPage(Admin{Page: p, Operator: P(testParty), Automations: []AutomationRow{
			{Name: "merge", LastRun: ago, NextRun: soon, LastDuration: "1s"}, {Name: "idle", LastDuration: "—"}}}),
		"allocations":   AllocationsPage(Allocations{Page: p, AllocationsList: AllocationsList{CSRF: "tok", Requests: []AllocationRequestRow{req}, Pending: []AllocationRow{alloc}, Finished: []AllocationRow{alloc}}}),
		"names":         NamesPage(Names{Page: p, Rows: []NameRow{{Name: "a.unverified.cns", State: "active", Expires: soon}, {Name: "b.unverified.cns", State: "expired", Expires: ago}}}),
		"subscriptions": SubscriptionsPage(Subscriptions{Page: p, Active: []SubscriptionRow{sub, paying}}),
		"home": HomePage(Home{Page: p, Party: P(testParty), Incoming: Incoming{CSRF: "tok", Offers: []OfferRow{offer}, Allocations: []AllocationRequestRow{req}},
			Outgoing: Outgoing{Rows: []OutgoingRow{{OfferRow: offer, Kind: "offers"}}}}),
		"payments":  AppPaymentsPage(AppPayments{Page: p, Requests: []AppPaymentRow{payment}, Accepted: []AppPaymentRow{payment}}),
		"confirm":   ConfirmPaymentPage(ConfirmPayment{Page: p, Row: payment, Pending: true}),
		"rewards":   RewardsPage(Rewards{Page: p, Rows: []RewardRow{{Round: 3, Kind: "app", Amount: "1.0000000000", Collected: true, UpdateID: "1220abcd", CollectedAt: ago}}}),
		"approvals": DelegationsPage(Delegations{Page: p, PreapprovalExpires: soon, PreapprovalCID: "00d1"}),
		"minting":   MintingDelegationsPage(MintingDelegations{Page: p, Proposals: []MintingDelegationRow{proposal}, Active: []MintingDelegationRow{active}}),
	}
	for name, c := range pages {
		got := renderString(t, c)
		text := tagRe.ReplaceAllString(got, "")
		if strings.Contains(text, "UTC") || regexp.MustCompile(`\d\d:\d\d:\d\d`).MatchString(text) {
			t.Errorf("%s: an absolute time in the text: %s", name, text)
		}
		if !strings.Contains(text, "in 3 h") && !strings.Contains(text, "2 min ago") {
			t.Errorf("%s: no relative time: %s", name, text)
		}
		if !strings.Contains(got, `<time datetime="`) || !strings.Contains(got, ` UTC">`) {
			t.Errorf("%s: no <time> with the exact time in its title: %s", name, got)
		}
	}
}
