package views

import "time"

// Allocations is the Allocations page: the allocation requests of apps
// the user trades in, and its allocations.
type Allocations struct {
	Page
	AllocationsList
}

// AllocationsList is what the page's actions and live updates reload.
type AllocationsList struct {
	CSRF string
	// Error says why the last action was refused.
	Error    string
	Balance  string
	Requests []AllocationRequestRow
	Pending  []AllocationRow
	Finished []AllocationRow
}

// AllocationRequestRow is one allocation request (a trade): its legs,
// executor (the venue) and deadlines.
type AllocationRequestRow struct {
	ContractID     string
	Executor       PartyRef
	RequestedAt    time.Time
	AllocateBefore time.Time
	SettleBefore   time.Time
	// Closed is true once the time to allocate has passed.
	Closed bool
	// Sends is true when the user sends a leg: it may reject the request.
	Sends bool
	Legs  []AllocationLegRow
	// Summary sums up the user's side for a card: what it sends and gets.
	Send, Receive string
}

// AllocationLegRow is one transfer leg of a request.
type AllocationLegRow struct {
	ID, Amount       string
	Sender, Receiver PartyRef
	// Mine is true when the user sends the leg; Allocated once it did.
	// ToMe is true when the user receives it.
	Mine, Allocated, ToMe bool
}

// AllocationRow is one of the user's allocations, pending or finished.
type AllocationRow struct {
	ContractID string
	// Incoming is true for an allocation the user receives (finished
	// ones only: a pending one is its sender's).
	Incoming     bool
	Counterparty PartyRef
	Amount       string
	Executor     PartyRef
	LegID        string
	SettleBefore time.Time
	// Overdue marks a pending allocation past its settlement deadline:
	// the expiry automation returns its coin.
	Overdue bool
	// State is how a finished one ended (executed, withdrawn, cancelled,
	// expired), At when.
	State string
	At    time.Time
}
