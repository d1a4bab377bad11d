package views

import (
	"strings"
	"testing"
	"time"
)

// TestPendingRowsShared: Home's cards of what waits for an answer, Home's
// pending sends and the Offers page's lists are one component
// (PendingRowView): the same row markup, each with its test ids and
// actions as before (the review of issue 37).
func TestPendingRowsShared(t *testing.T) {
	exp := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	in := OfferRow{ContractID: "00ab", Counterparty: P(testParty), Amount: "12.5000000000", Description: "rent", ExpiresAt: exp, Incoming: true}
	out := OfferRow{ContractID: "00cd", Counterparty: P(testParty), Amount: "2.0000000000", ExpiresAt: exp}
	home := renderString(t, HomeIncomingCards(Incoming{CSRF: "tok", Offers: []OfferRow{in}, Instructions: []OfferRow{in},
		Allocations: []AllocationRequestRow{{ContractID: "00ef", Executor: P(testParty), Send: "3.0000000000", AllocateBefore: exp}}}))
	sends := renderString(t, HomeOutgoing(Outgoing{Rows: []OutgoingRow{{OfferRow: out, Kind: "instructions"}}}))
	offers := renderString(t, TransfersList(Transfers{CSRF: "tok", IncomingOffers: []OfferRow{in}, OutgoingInstructions: []OfferRow{out}}))

	for _, c := range []struct {
		name, got string
		want      []string
	}{
		{"home", home, []string{
			`<li class="row" data-testid="incoming-card" data-kind="offers" data-cid="00ab"><div class="row-main"><span class="row-what">Transfer offer from</span>`,
			`data-testid="incoming-card" data-kind="instructions" data-cid="00ab"`, `<span class="row-what">Transfer instruction from</span>`,
			`data-testid="incoming-sender"`, `data-testid="incoming-description">rent<`, `data-testid="incoming-amount" title="12.5000000000 CC"`,
			`hx-post="/offers/00ab/accept" hx-target="#home-incoming"`, `<input type="hidden" name="from" value="home">`,
			`aria-label="Accept 12.5 CC from alice::1220ab12…e88d"`, `data-testid="reject"`,
			`data-testid="incoming-card" data-kind="allocations" data-cid="00ef"`, `Allocation request from`,
			`to allocate `, `data-testid="incoming-allocations"`, "Allocate before "}},
		{"home sends", sends, []string{
			`<li class="row" data-testid="outgoing-row" data-kind="instructions" data-cid="00cd"><div class="row-main"><span class="row-what">Transfer instruction to</span>`,
			`data-testid="outgoing-amount" title="2.0000000000 CC"`}},
		{"offers", offers, []string{
			`<ul class="rows" data-testid="incoming-offers"><li class="row" data-testid="incoming-offers-row" data-cid="00ab"><div class="row-main"><span class="row-what">From</span>`,
			`<span class="desc">rent</span>`, `hx-post="" class="inline"`, `aria-label="Accept 12.5 CC, alice::1220ab12…e88d"`,
			`<ul class="rows" data-testid="outgoing-instructions"><li class="row" data-testid="outgoing-instructions-row" data-cid="00cd">`,
			`<span class="row-what">To</span>`, `data-testid="withdraw"`}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.got, w) {
				t.Errorf("%s lacks %s:\n%s", c.name, w, c.got)
			}
		}
	}
	if strings.Contains(offers, "<table") || strings.Contains(offers, `hx-target="#home-incoming"`) {
		t.Errorf("offers has a table or Home's actions:\n%s", offers)
	}
	if strings.Contains(sends, "<form") {
		t.Errorf("Home's pending sends have actions:\n%s", sends)
	}
}
