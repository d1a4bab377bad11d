package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
	"github.com/ccwallet/ccwallet/web"
)

// The wallet-internal subscription operations: the caller acts for its
// own party only, as the sender of the subscriptions it pays.

type listSubscriptionRequestsResponse struct {
	SubscriptionRequests []ContractDTO `json:"subscription_requests"`
}

type listSubscriptionInitialPaymentsResponse struct {
	InitialPayments []ContractDTO `json:"initial_payments"`
}

// subscriptionStateDTO is the spec's SubscriptionState: idle or payment.
type subscriptionStateDTO struct {
	Idle    *ContractDTO `json:"idle,omitempty"`
	Payment *ContractDTO `json:"payment,omitempty"`
}

type subscriptionDTO struct {
	Subscription ContractDTO          `json:"subscription"`
	State        subscriptionStateDTO `json:"state"`
}

type listSubscriptionsResponse struct {
	Subscriptions []subscriptionDTO `json:"subscriptions"`
}

type acceptSubscriptionRequestResponse struct {
	InitialPaymentContractID string `json:"initial_payment_contract_id"`
}

// listSubscriptionRequests answers GET /v0/wallet/subscription-requests.
func (h subscriptionRoutes) listSubscriptionRequests(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	cs, err := h.w.Subscriptions.SubscriptionRequests(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, listSubscriptionRequestsResponse{SubscriptionRequests: contractDTOs(cs)})
}

// getSubscriptionRequest answers GET
// /v0/wallet/subscription-requests/{contract_id}: an active request the
// caller is asked to pay.
func (h subscriptionRoutes) getSubscriptionRequest(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	v, err := h.w.Subscriptions.SubscriptionRequest(r.Context(), p, coin.ContractID(r.PathValue("contract_id")))
	if err != nil {
		return err
	}
	if v.Contract.Archived || v.Data.Sender != p {
		return fmt.Errorf("%w: subscription request %s is no longer pending", fault.ErrNotFound, v.Contract.ContractID)
	}
	return web.WriteJSON(w, http.StatusOK, contractDTO(v.Contract))
}

// acceptSubscriptionRequest answers POST
// /v0/wallet/subscription-requests/{contract_id}/accept.
func (h subscriptionRoutes) acceptSubscriptionRequest(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	paid, err := h.w.Subscriptions.AcceptSubscriptionRequest(r.Context(), p, coin.ContractID(r.PathValue("contract_id")))
	if err != nil {
		return notYours(err)
	}
	return web.WriteJSON(w, http.StatusOK, acceptSubscriptionRequestResponse{InitialPaymentContractID: string(paid)})
}

// rejectSubscriptionRequest answers POST
// /v0/wallet/subscription-requests/{contract_id}/reject.
func (h subscriptionRoutes) rejectSubscriptionRequest(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	if err := h.w.Subscriptions.RejectSubscriptionRequest(r.Context(), p, coin.ContractID(r.PathValue("contract_id"))); err != nil {
		return notYours(err)
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}

// cancelSubscription answers DELETE
// /v0/wallet/subscription-requests/{contract_id}: as the real wallet, it
// cancels the subscription whose idle state is contract_id
// (SubscriptionIdleState_CancelSubscription).
func (h subscriptionRoutes) cancelSubscription(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	if err := h.w.Subscriptions.CancelSubscription(r.Context(), p, coin.ContractID(r.PathValue("contract_id"))); err != nil {
		return notYours(err)
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}

// listSubscriptionInitialPayments answers GET
// /v0/wallet/subscription-initial-payments.
func (h subscriptionRoutes) listSubscriptionInitialPayments(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	cs, err := h.w.Subscriptions.SubscriptionInitialPayments(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, listSubscriptionInitialPaymentsResponse{InitialPayments: contractDTOs(cs)})
}

// listSubscriptions answers GET /v0/wallet/subscriptions.
func (h subscriptionRoutes) listSubscriptions(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	vs, err := h.w.Subscriptions.Subscriptions(r.Context(), p)
	if err != nil {
		return err
	}
	out := listSubscriptionsResponse{Subscriptions: make([]subscriptionDTO, 0, len(vs))}
	for _, v := range vs {
		s := subscriptionDTO{Subscription: contractDTO(v.Subscription)}
		if v.Idle != nil {
			c := contractDTO(*v.Idle)
			s.State.Idle = &c
		} else {
			c := contractDTO(*v.Payment)
			s.State.Payment = &c
		}
		out.Subscriptions = append(out.Subscriptions, s)
	}
	return web.WriteJSON(w, http.StatusOK, out)
}

// devnetSubscriptionRequest is the body of POST
// /v0/admin/devnet/subscription-requests (ours, not in the specs).
type devnetSubscriptionRequest struct {
	Sender          string   `json:"sender"`
	Receiver        string   `json:"receiver"`
	Provider        string   `json:"provider"`
	Description     string   `json:"description"`
	Amount          string   `json:"amount"`
	Unit            string   `json:"unit"` // "CC" (default) or "USD"
	IntervalSeconds int64    `json:"payment_interval_seconds"`
	DurationSeconds int64    `json:"payment_duration_seconds"`
	Origins         []string `json:"origins"`
}

// createDevnetSubscriptionRequest answers POST
// /v0/admin/devnet/subscription-requests: on a development network the
// admin makes a subscription request as an app (the provider party)
// would, naming the origins its confirm page may send the user back to.
// 501 outside devnet.
func (h subscriptionRoutes) createDevnetSubscriptionRequest(w http.ResponseWriter, r *http.Request) error {
	if !h.l.DevNet() {
		return fault.ErrDisabled
	}
	var req devnetSubscriptionRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	spec := subscriptions.SubscriptionRequestSpec{Description: req.Description, Origins: req.Origins}
	var err error
	for _, p := range []struct {
		field, v string
		dst      *coin.PartyID
	}{{"sender", req.Sender, &spec.Sender}, {"receiver", req.Receiver, &spec.Receiver}, {"provider", req.Provider, &spec.Provider}} {
		if *p.dst, err = coin.ParsePartyID(trimmed(p.v)); err != nil {
			return badRequest(p.field + ": " + err.Error())
		}
	}
	if spec.Amount, err = coin.ParseCanonical(req.Amount); err != nil {
		return badRequest("amount: " + err.Error())
	}
	switch req.Unit {
	case "", "CC":
	case "USD":
		spec.USD = true
	default:
		return badRequest(`unit: want "CC" or "USD"`)
	}
	const maxSeconds = int64(subscriptions.MaxSubscriptionInterval / time.Second)
	if req.IntervalSeconds <= 0 || req.IntervalSeconds > maxSeconds || req.DurationSeconds <= 0 || req.DurationSeconds > maxSeconds {
		return badRequest(fmt.Sprintf("payment_interval_seconds and payment_duration_seconds: want 1 to %d", maxSeconds))
	}
	spec.Interval, spec.Duration = time.Duration(req.IntervalSeconds)*time.Second, time.Duration(req.DurationSeconds)*time.Second
	cid, err := h.w.Subscriptions.RequestSubscription(r.Context(), spec)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, map[string]string{"contract_id": string(cid)})
}
