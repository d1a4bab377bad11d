package views

import "time"

// Subscriptions is the page of the user's subscriptions: the requests
// apps made of them, initial payments waiting for their app, and the
// running subscriptions.
type Subscriptions struct {
	Page
	Requests []SubscriptionRow
	Waiting  []SubscriptionRow
	Active   []SubscriptionRow
	Error    string
}

// SubscriptionRow is one request, initial payment or subscription.
type SubscriptionRow struct {
	ContractID  string
	Provider    PartyRef
	Receiver    PartyRef
	Description string
	// Amount is the exact amount of each payment, in Unit ("CC" or "USD").
	Amount string
	Unit   string
	// Every is the payment interval in words ("30 days"); Early how long
	// before it is due a payment is made ("1 hour").
	Every string
	Early string
	// NextDue is when the next payment is due (active rows); Paying says a
	// payment is locked, waiting for the app to collect it.
	NextDue time.Time
	Paying  bool
	// Unpaid is the payment automation's notice when it could not pay.
	Unpaid string
	// CancelID is the idle state a cancel acts on ("" while paying).
	CancelID string
}

// ConfirmSubscription is the page an app sends its user to: what the
// request asks, and Accept / Reject.
type ConfirmSubscription struct {
	Page
	Request SubscriptionRow
	// Pending is false once the request was answered.
	Pending bool
	// Redirect is the app's address the answer returns to ("" when the
	// link gave none or one the request does not name); Refused is the
	// address a link gave that the request does not name.
	Redirect string
	Refused  string
	Error    string
	// CC and USD are each payment in both units at the current price.
	CC, USD string
}
