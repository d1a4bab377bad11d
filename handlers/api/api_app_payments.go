package api

import (
	"errors"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/web"
)

// wallet-internal.yaml: app payments. The caller acts for its own party
// only: it sees the requests it is asked to pay and the payments it
// accepted, and accepts or rejects its own requests.

type listAppPaymentRequestsResponse struct {
	PaymentRequests []ContractWithStateDTO `json:"payment_requests"`
}

type acceptAppPaymentRequestResponse struct {
	AcceptedPaymentContractID string `json:"accepted_payment_contract_id"`
}

type listAcceptedAppPaymentsResponse struct {
	AcceptedAppPayments []ContractWithStateDTO `json:"accepted_app_payments"`
}

// appPaymentDTOs renders payments as the spec's ContractWithState list.
func appPaymentDTOs(ps []apppayments.AppPayment) []ContractWithStateDTO {
	out := make([]ContractWithStateDTO, 0, len(ps))
	for _, p := range ps {
		out = append(out, contractWithState(p.Contract))
	}
	return out
}

// listAppPaymentRequests answers GET /v0/wallet/app-payment-requests.
func (h *Handler) listAppPaymentRequests(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	ps, err := h.w.AppPayments.AppPaymentRequestsOf(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, listAppPaymentRequestsResponse{PaymentRequests: appPaymentDTOs(ps)})
}

// listAcceptedAppPayments answers GET /v0/wallet/accepted-app-payments.
func (h *Handler) listAcceptedAppPayments(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	ps, err := h.w.AppPayments.AcceptedAppPaymentsOf(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, listAcceptedAppPaymentsResponse{AcceptedAppPayments: appPaymentDTOs(ps)})
}

// appPaymentRequestOf reads the path's active payment request the caller
// is asked to pay: any other (unknown, ended, someone else's) is not
// found.
func (h *Handler) appPaymentRequestOf(r *http.Request) (coin.PartyID, apppayments.AppPayment, error) {
	id := r.PathValue("contract_id")
	cid, err := coin.ParseContractID(id)
	if err != nil {
		return "", apppayments.AppPayment{}, notFound("app payment request " + id + " not found")
	}
	p, err := h.callerParty(r)
	if err != nil {
		return "", apppayments.AppPayment{}, err
	}
	a, err := h.w.AppPayments.AppPaymentByID(r.Context(), p, cid)
	if err != nil {
		return "", a, err
	}
	if a.Request == nil || a.Contract.Archived || a.Request.Sender != p {
		return "", a, notFound("app payment request " + id + " not found, or no longer waiting for your answer")
	}
	return p, a, nil
}

// getAppPaymentRequest answers GET
// /v0/wallet/app-payment-requests/{contract_id}.
func (h *Handler) getAppPaymentRequest(w http.ResponseWriter, r *http.Request) error {
	_, a, err := h.appPaymentRequestOf(r)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, contractWithState(a.Contract))
}

// acceptAppPaymentRequest answers POST
// /v0/wallet/app-payment-requests/{contract_id}/accept: the caller's coin
// for the payment plus its fees is locked.
func (h *Handler) acceptAppPaymentRequest(w http.ResponseWriter, r *http.Request) error {
	p, a, err := h.appPaymentRequestOf(r)
	if err != nil {
		return err
	}
	res, err := h.w.AppPayments.AcceptAppPayment(r.Context(), p, a.Contract.ContractID, commands.Command{})
	if err = paymentAnswerError(err); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, acceptAppPaymentRequestResponse{AcceptedPaymentContractID: string(res.Created)})
}

// rejectAppPaymentRequest answers POST
// /v0/wallet/app-payment-requests/{contract_id}/reject.
func (h *Handler) rejectAppPaymentRequest(w http.ResponseWriter, r *http.Request) error {
	p, a, err := h.appPaymentRequestOf(r)
	if err != nil {
		return err
	}
	_, err = h.w.AppPayments.RejectAppPayment(r.Context(), p, a.Contract.ContractID, commands.Command{})
	if err = paymentAnswerError(err); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}

// paymentAnswerError maps an accept's or reject's refusal to the statuses
// the spec declares (no 403, no 409): a request that expired meanwhile is
// a bad request, with the ledger's words.
func paymentAnswerError(err error) error {
	var p *fault.Problem
	switch {
	case err == nil:
		return nil
	case errors.As(err, &p) && errors.Is(err, fault.ErrExpired):
		return badRequest(p.Msg)
	case errors.Is(err, fault.ErrForbidden):
		return notFound("this app payment request is not yours to answer")
	}
	return err
}
