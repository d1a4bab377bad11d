package ui

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// paymentGone is what the pages say of a request that no longer waits
// for the user's answer.
const paymentGone = "This payment request is no longer waiting for your answer: it was accepted, rejected or has expired."

// uiAppPayments serves GET /payments.
func (h paymentPages) uiAppPayments(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m := views.AppPayments{Page: h.livePage(s, "Payments", "payments")}
	ctx, party, now := r.Context(), uiParty(r), h.l.Now()
	reqs, err := h.w.AppPayments.AppPaymentRequestsOf(ctx, party)
	if err != nil {
		return err
	}
	for _, a := range reqs {
		m.Requests = append(m.Requests, appPaymentRow(a, now))
	}
	acc, err := h.w.AppPayments.AcceptedAppPaymentsOf(ctx, party)
	if err != nil {
		return err
	}
	for _, a := range acc {
		m.Accepted = append(m.Accepted, appPaymentRow(a, now))
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.AppPaymentsPage(m))
}

// appPaymentRow is the view of a request or an accepted payment.
func appPaymentRow(a apppayments.AppPayment, now time.Time) views.AppPaymentRow {
	row := views.AppPaymentRow{ContractID: string(a.Contract.ContractID), Description: a.Description, Origin: a.Origin,
		Amount: a.Quote.Amount.String(), Fees: a.Quote.Fees.String(), Total: a.Quote.Total.String(),
		Expires: a.ExpiresAt, Expired: !a.ExpiresAt.After(now)}
	switch {
	case a.Request != nil:
		row.Provider = views.P(a.Request.Provider)
		for _, rc := range a.Request.ReceiverAmounts {
			row.Receivers = append(row.Receivers, views.AppPaymentReceiver{Party: views.P(rc.Receiver), Amount: rc.Amount.Amount.String()})
		}
	case a.Accepted != nil:
		row.Provider = views.P(a.Accepted.Provider)
		for _, rc := range a.Accepted.AmuletReceiverAmounts {
			row.Receivers = append(row.Receivers, views.AppPaymentReceiver{Party: views.P(rc.Receiver), Amount: rc.AmuletAmount.String()})
		}
	}
	return row
}

// confirmModel reads the request cid the user is asked to pay; any other
// contract (unknown, someone else's, an accepted payment) is not found.
func (h paymentPages) confirmModel(ctx context.Context, s *web.Session, party coin.PartyID, id, redirectTo string) (views.ConfirmPayment, error) {
	m := views.ConfirmPayment{Page: h.page(s, "Confirm a payment", "payments")}
	m.Minimal = true
	cid, err := coin.ParseContractID(id)
	if err != nil {
		return m, notFound("there is no such payment request; check the link the app gave you")
	}
	a, err := h.w.AppPayments.AppPaymentByID(ctx, party, cid)
	if errors.Is(err, fault.ErrNotFound) || err == nil && (a.Request == nil || a.Request.Sender != party) {
		return m, notFound("there is no such payment request for you; check the link the app gave you")
	} else if err != nil {
		return m, err
	}
	m.Row, m.Pending = appPaymentRow(a, h.l.Now()), !a.Contract.Archived
	_, price, err := h.l.CurrentRound(ctx)
	if err != nil {
		return m, err
	}
	m.AmountUSD, m.FeesUSD, m.TotalUSD = usdOf(m.Row.Amount, price), usdOf(m.Row.Fees, price), usdOf(m.Row.Total, price)
	if len(redirectTo) <= payments.MaxReturnURL {
		m.Redirect = redirectTo
	}
	m.RedirectOK = payments.RedirectAllowed(a.Origin, m.Redirect)
	return m, nil
}

// usdOf is an exact CC amount's value in USD at price ("" for none).
func usdOf(cc string, price coin.Amount) string {
	a, err := coin.ParseAmount(cc)
	if err != nil {
		return ""
	}
	return ledger.CoinToUSD(a, price).String()
}

// uiConfirmPayment serves GET /confirm-payment/{cid}?redirect=URL, the
// page an app sends its user to.
func (h paymentPages) uiConfirmPayment(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.confirmModel(r.Context(), s, uiParty(r), r.PathValue("cid"), r.URL.Query().Get("redirect"))
	if err != nil {
		return err
	}
	allowReturn(w, m)
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.ConfirmPaymentPage(m))
}

// allowReturn lets the confirm page's forms end at the app's origin: the
// answer's redirect there counts as the form's target for the browser's
// form-action check.
func allowReturn(w http.ResponseWriter, m views.ConfirmPayment) {
	if m.Pending && m.RedirectOK {
		web.AllowFormAction(w, m.Row.Origin)
	}
}

// uiConfirmPaymentAction serves POST /confirm-payment/{cid}/{action}
// (accept or reject). On success it sends the user back to the app's
// return URL when that is of the origin the request names (see
// payments.AppOrigin), and nowhere else: otherwise to the confirm page,
// which says what happened. A refusal (expired, too little coin, already
// answered) is shown on the confirm page with 422.
func (h paymentPages) uiConfirmPaymentAction(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	action := r.PathValue("action")
	if action != "accept" && action != "reject" {
		return notFound("no such action")
	}
	party, id := uiParty(r), r.PathValue("cid")
	m, err := h.confirmModel(r.Context(), s, party, id, r.PostFormValue("redirect"))
	if err != nil {
		return err
	}
	cid := coin.ContractID(m.Row.ContractID)
	if action == "accept" {
		_, err = h.w.AppPayments.AcceptAppPayment(r.Context(), party, cid, commands.Command{})
	} else {
		_, err = h.w.AppPayments.RejectAppPayment(r.Context(), party, cid, commands.Command{})
	}
	if err == nil {
		if m.RedirectOK {
			redirect(w, r, m.Redirect)
			return nil
		}
		done(w, r, "/confirm-payment/"+m.Row.ContractID, "payments-"+action)
		return nil
	}
	msg, ok := inline(err)
	if !ok {
		return err
	}
	if errors.Is(err, fault.ErrNotFound) {
		msg = paymentGone
	}
	// Read again: the request may have ended meanwhile.
	if m2, merr := h.confirmModel(r.Context(), s, party, id, m.Redirect); merr == nil {
		m = m2
	}
	m.Error = msg
	allowReturn(w, m)
	h.named(r.Context(), &m)
	return render(w, r, http.StatusUnprocessableEntity, views.ConfirmPaymentPage(m))
}
