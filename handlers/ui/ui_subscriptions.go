package ui

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// subscriptionActions are the buttons of the Subscriptions and confirm
// pages: the ledger call of each; doneMessages["subscription-<action>"]
// says what it did.
var subscriptionActions = map[string]func(s *subscriptions.Service, ctx context.Context, p coin.PartyID, cid coin.ContractID) error{
	"accept": func(s *subscriptions.Service, ctx context.Context, p coin.PartyID, cid coin.ContractID) error {
		_, err := s.AcceptSubscriptionRequest(ctx, p, cid)
		return err
	},
	"reject": (*subscriptions.Service).RejectSubscriptionRequest,
	"cancel": (*subscriptions.Service).CancelSubscription,
}

// uiSubscriptions serves GET /subscriptions.
func (h paymentPages) uiSubscriptions(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.subscriptionsModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.SubscriptionsPage(m))
}

// uiSubscriptionAction serves POST /subscriptions/{cid}/{action}: on
// success 303 back to the page with its flash; a request or subscription
// that is gone or not the user's, or coin too short, is shown inline with
// 422.
func (h paymentPages) uiSubscriptionAction(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	action := r.PathValue("action")
	act, ok := subscriptionActions[action]
	if !ok {
		return notFound("no such action")
	}
	party := uiParty(r)
	err := h.subscriptionAct(r, act, party)
	if err == nil {
		done(w, r, "/subscriptions", "subscription-"+action)
		return nil
	}
	msg, ok := inline(err)
	if !ok {
		return err
	}
	m, merr := h.subscriptionsModel(r.Context(), s, party)
	if merr != nil {
		return merr
	}
	m.Error = msg
	h.named(r.Context(), &m)
	return render(w, r, http.StatusUnprocessableEntity, views.SubscriptionsPage(m))
}

// subscriptionAct runs act on the path's {cid} for party.
func (h paymentPages) subscriptionAct(r *http.Request, act func(*subscriptions.Service, context.Context, coin.PartyID, coin.ContractID) error, party coin.PartyID) error {
	cid, err := coin.ParseContractID(r.PathValue("cid"))
	if err != nil {
		return notFound("there is no such subscription request or subscription; reload the page")
	}
	return notYours(act(h.w.Subscriptions, r.Context(), party, cid))
}

func (h paymentPages) subscriptionsModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.Subscriptions, error) {
	m := views.Subscriptions{Page: h.livePage(s, "Subscriptions", "subscriptions")}
	for _, asked := range []struct {
		tmpl string
		rows *[]views.SubscriptionRow
	}{{payments.TemplateSubscriptionRequest, &m.Requests}, {payments.TemplateSubscriptionInitialPayment, &m.Waiting}} {
		vs, err := h.w.Subscriptions.SubscriptionsAsked(ctx, asked.tmpl, party)
		if err != nil {
			return m, err
		}
		for _, v := range vs {
			*asked.rows = append(*asked.rows, subscriptionRow(string(v.Contract.ContractID), v.Data, v.PayData))
		}
	}
	subs, err := h.w.Subscriptions.Subscriptions(ctx, party)
	if err != nil {
		return m, err
	}
	for _, v := range subs {
		row := subscriptionRow(string(v.Subscription.ContractID), v.Data, v.PayData)
		row.NextDue, row.Paying, row.Unpaid = v.NextPaymentDueAt, v.Payment != nil, v.Unpaid
		if v.Idle != nil {
			row.CancelID = string(v.Idle.ContractID)
		}
		m.Active = append(m.Active, row)
	}
	return m, nil
}

func subscriptionRow(cid string, d subscriptions.SubscriptionData, p subscriptions.SubscriptionPayData) views.SubscriptionRow {
	unit := "CC"
	if p.PaymentAmount.Unit == payments.UnitUSD {
		unit = "USD"
	}
	return views.SubscriptionRow{
		ContractID: cid, Provider: views.P(d.Provider), Receiver: views.P(d.Receiver), Description: d.Description,
		Amount: p.PaymentAmount.Amount.String(), Unit: unit,
		Every: fmtSpan(p.PaymentInterval.Duration()), Early: fmtSpan(p.PaymentDuration.Duration()),
	}
}

// fmtSpan writes a payment interval for people: "30 days", "1 hour".
func fmtSpan(d time.Duration) string {
	switch {
	case d > 0 && d%(24*time.Hour) == 0:
		return plural(int(d/(24*time.Hour)), "day")
	case d > 0 && d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	case d > 0 && d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	case d > 0 && d%time.Second == 0:
		return plural(int(d/time.Second), "second")
	}
	return d.String()
}

// maxShownRedirect bounds the refused address the confirm page repeats.
const maxShownRedirect = 200

// uiConfirmSubscription serves GET /confirm-subscription/{cid}?redirect=URL.
func (h paymentPages) uiConfirmSubscription(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.confirmSubscriptionModel(r, s, r.URL.Query().Get("redirect"))
	if err != nil {
		return err
	}
	allowFormRedirect(w, m.Redirect)
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.ConfirmSubscriptionPage(m))
}

// uiConfirmSubscriptionAction serves POST
// /confirm-subscription/{cid}/{accept|reject}: on success the user goes
// back to the app when the form's redirect is an address the request
// names, else to the confirm page saying what happened.
func (h paymentPages) uiConfirmSubscriptionAction(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	action := r.PathValue("action")
	act, ok := subscriptionActions[action]
	if !ok || action == "cancel" {
		return notFound("no such action")
	}
	err := h.subscriptionAct(r, act, uiParty(r))
	if err == nil {
		m, merr := h.confirmSubscriptionModel(r, s, r.PostFormValue("redirect"))
		if merr != nil {
			return merr
		}
		if m.Redirect != "" {
			redirect(w, r, m.Redirect)
			return nil
		}
		done(w, r, "/confirm-subscription/"+m.Request.ContractID, "subscription-"+action)
		return nil
	}
	msg, ok := inline(err)
	if !ok {
		return err
	}
	m, merr := h.confirmSubscriptionModel(r, s, r.PostFormValue("redirect"))
	if merr != nil {
		return merr
	}
	m.Error = msg
	allowFormRedirect(w, m.Redirect)
	h.named(r.Context(), &m)
	return render(w, r, http.StatusUnprocessableEntity, views.ConfirmSubscriptionPage(m))
}

// allowFormRedirect lets the confirm page's forms lead on to the app's
// allowed address: browsers hold the redirect after a post to the page's
// form-action policy.
func allowFormRedirect(w http.ResponseWriter, to string) {
	if u, err := url.Parse(to); to != "" && err == nil {
		web.AllowFormAction(w, u.Scheme+"://"+u.Host)
	}
}

// confirmSubscriptionModel is the confirm page of the path's request for the user,
// with the app's address when redirect names one the request allows.
func (h paymentPages) confirmSubscriptionModel(r *http.Request, s *web.Session, rawRedirect string) (views.ConfirmSubscription, error) {
	m := views.ConfirmSubscription{Page: h.page(s, "Confirm subscription", "subscriptions")}
	m.Minimal = true
	party := uiParty(r)
	cid, err := coin.ParseContractID(r.PathValue("cid"))
	if err != nil {
		return m, notFound("there is no such subscription request; check the link the app gave you")
	}
	v, err := h.w.Subscriptions.SubscriptionRequest(r.Context(), party, cid)
	if err == nil && v.Data.Sender != party {
		err = notFound("this subscription request is not one you are asked to pay")
	}
	if err != nil {
		return m, err
	}
	m.Request = subscriptionRow(string(cid), v.Data, v.PayData)
	_, price, err := h.l.CurrentRound(r.Context())
	if err != nil {
		return m, err
	}
	// Each payment in both units at the current price.
	if amt := v.PayData.PaymentAmount.Amount; v.PayData.PaymentAmount.Unit == payments.UnitUSD {
		m.CC, m.USD = ledger.USDToCoin(amt, price).String(), amt.String()
	} else {
		m.CC, m.USD = amt.String(), ledger.CoinToUSD(amt, price).String()
	}
	m.Pending = !v.Contract.Archived
	m.Redirect = v.RedirectTo(rawRedirect)
	if rawRedirect != "" && m.Redirect == "" {
		m.Refused = strings.ToValidUTF8(rawRedirect, "")
		if len(m.Refused) > maxShownRedirect {
			m.Refused = m.Refused[:maxShownRedirect] + "…"
		}
	}
	return m, nil
}
