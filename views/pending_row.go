package views

import (
	"time"

	"github.com/a-h/templ"
)

// PendingRow is one pending transfer as a compact row (PendingRowView):
// what it is and with whom, its description or detail, when it ends, the
// amount and the actions. Home's cards of what waits for the user's
// answer, Home's pending sends and the Offers page's lists all show their
// items with it, as History and Home share ActivityRow.
type PendingRow struct {
	// TestID, Kind and ContractID go on the row (data-testid, data-kind
	// when set, data-cid, in that order).
	TestID, Kind, ContractID string
	// What says what it is ("Transfer offer from"); Who is the other side.
	What      string
	Who       PartyRef
	WhoTestID string
	// Description is the sender's words, when there are any; Detail, when
	// set, says more instead (an allocation request's legs).
	Description, DescriptionTestID string
	Detail                         templ.Component
	// WhenLabel and When say until when it can be answered ("Expires").
	WhenLabel string
	When      time.Time
	// Amount (CC) is on the side, with the Actions under it; either may
	// be empty (nil).
	Amount, AmountTestID string
	Actions              templ.Component
}

// transferWhat is what an offer or instruction row says it is, from the
// user's side.
func transferWhat(base string, incoming bool) string {
	what := "Transfer offer"
	if base == "instructions" {
		what = "Transfer instruction"
	}
	if incoming {
		return what + " from"
	}
	return what + " to"
}

// incomingRow is an offer or instruction waiting for the user's answer on
// Home (base is "offers" or "instructions").
func incomingRow(csrf, base string, r OfferRow) PendingRow {
	return PendingRow{TestID: "incoming-card", Kind: base, ContractID: r.ContractID,
		What: transferWhat(base, true), Who: r.Counterparty, WhoTestID: "incoming-sender",
		Description: r.Description, DescriptionTestID: "incoming-description",
		WhenLabel: "Expires", When: r.ExpiresAt, Amount: r.Amount, AmountTestID: "incoming-amount",
		Actions: transferActions(csrf, base, r, true)}
}

// allocationRow is an allocation request with a leg the user has to
// allocate: allocating needs the legs in view, so it links to the
// Allocations page.
func allocationRow(r AllocationRequestRow) PendingRow {
	return PendingRow{TestID: "incoming-card", Kind: "allocations", ContractID: r.ContractID,
		What: "Allocation request from", Who: r.Executor, WhoTestID: "incoming-sender",
		Detail: allocationDetail(r), WhenLabel: "Allocate before", When: r.AllocateBefore,
		Actions: allocationLink()}
}

// outgoingRow is one of the user's own pending sends on Home.
func outgoingRow(r OutgoingRow) PendingRow {
	return PendingRow{TestID: "outgoing-row", Kind: r.Kind, ContractID: r.ContractID,
		What: transferWhat(r.Kind, false), Who: r.Counterparty,
		WhenLabel: "Expires", When: r.ExpiresAt, Amount: r.Amount, AmountTestID: "outgoing-amount"}
}

// offersRow is a row of one of the Offers page's lists (testid names the
// list): under the list's heading, "From" or "To" says enough (a page of
// 25 rows stays under its size aim, TestOfferSpamKeepsPagesSmall).
func offersRow(csrf, base, testid string, r OfferRow) PendingRow {
	what := "To"
	if r.Incoming {
		what = "From"
	}
	return PendingRow{TestID: testid + "-row", ContractID: r.ContractID,
		What: what, Who: r.Counterparty, Description: r.Description,
		WhenLabel: "Expires", When: r.ExpiresAt, Amount: r.Amount,
		Actions: transferActions(csrf, base, r, false)}
}
