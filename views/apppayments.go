package views

import "time"

// AppPayments is the Payments page: the app payment requests waiting for
// the user's answer and the payments accepted, waiting for their app to
// collect them.
type AppPayments struct {
	Page
	Requests []AppPaymentRow
	Accepted []AppPaymentRow
	Error    string
}

// AppPaymentRow is one payment request or accepted payment.
type AppPaymentRow struct {
	ContractID  string
	Provider    PartyRef
	Description string
	// Origin is the app's web origin the request names ("" for none).
	Origin    string
	Receivers []AppPaymentReceiver
	// Amount is what the receivers get, Fees the transfer fees, Total
	// what is locked: exact decimals.
	Amount, Fees, Total string
	// Expires is the request's expiry, or the accepted payment's: the app
	// must collect before it, or the coin comes back.
	Expires time.Time
	Expired bool
}

// AppPaymentReceiver is one receiver of a payment and its amount.
type AppPaymentReceiver struct {
	Party  PartyRef
	Amount string
}

// ConfirmPayment is the confirm-payment page an app sends its user to.
type ConfirmPayment struct {
	Page
	Row AppPaymentRow
	// Pending: the request still waits for the user's answer; otherwise
	// it was answered or expired.
	Pending bool
	// Redirect is the URL the app asked to return to; RedirectOK says
	// whether it is of the origin the request names, the only place the
	// wallet sends the user.
	Redirect   string
	RedirectOK bool
	Error      string
	// AmountUSD, FeesUSD and TotalUSD are the row's amounts in USD at the
	// current price.
	AmountUSD, FeesUSD, TotalUSD string
}
