package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/web"
)

// createTransferOffer answers POST /v0/wallet/transfer-offers
// (wallet-external createTransferOffer). An unknown receiver is 400: the
// caller's wallet exists, the request names a party that does not.
func (h *Handler) createTransferOffer(w http.ResponseWriter, r *http.Request) error {
	var req createTransferOfferRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.ReceiverPartyID == nil:
		return badRequest("receiver_party_id: is required")
	case req.Amount == nil:
		return badRequest("amount: is required")
	case req.Description == nil:
		return badRequest("description: is required")
	case req.ExpiresAt == nil:
		return badRequest("expires_at: is required")
	case req.TrackingID == nil:
		return badRequest("tracking_id: is required")
	}
	receiver, err := coin.ParsePartyID(trimmed(*req.ReceiverPartyID))
	if err != nil {
		return err
	}
	amount, err := coin.ParseCanonical(*req.Amount)
	if err != nil {
		return err
	}
	sender, err := h.callerParty(r)
	if err != nil {
		return err
	}
	o, created, err := h.l.Offers().Create(r.Context(), ledger.OfferRequest{
		Sender: sender, Receiver: receiver, Amount: amount, Description: *req.Description,
		ExpiresAt: time.UnixMicro(*req.ExpiresAt), TrackingID: *req.TrackingID,
	})
	if err != nil {
		return err
	}
	if !created {
		// The spec rejects every later use of a tracking id with 409, so a
		// client retrying after a lost answer learns the offer exists
		// without creating another; the message names it.
		return fmt.Errorf("%w: tracking id %q was already used for transfer offer %s; check its status", fault.ErrDuplicate, *req.TrackingID, o.ContractID)
	}
	return web.WriteJSON(w, http.StatusOK, createTransferOfferResponse{OfferContractID: string(o.ContractID)})
}

// listTransferOffers answers GET /v0/wallet/transfer-offers: the open
// offers the caller sends or receives, all of them, or a page of them
// with ?page_size= (and ?page_token=, from the X-Next-Page-Token header
// of the page before) in the spec's shape (listOfferPage).
func (h *Handler) listTransferOffers(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	if q := r.URL.Query(); q.Has("page_size") || q.Has("page_token") {
		return h.listOfferPage(w, r, p)
	}
	cs, err := h.w.Pending.Offers(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, listTransferOffersResponse{Offers: contractDTOs(cs)})
}

// listAcceptedTransferOffers answers GET /v0/wallet/accepted-transfer-offers.
func (h *Handler) listAcceptedTransferOffers(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	cs, err := h.w.Pending.AcceptedOffers(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, listAcceptedTransferOffersResponse{AcceptedOffers: contractDTOs(cs)})
}

// getTransferOfferStatus answers POST
// /v0/wallet/transfer-offers/{tracking_id}/status with the spec's
// discriminated shapes.
func (h *Handler) getTransferOfferStatus(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	o, err := h.w.Pending.OfferStatus(r.Context(), p, r.PathValue("tracking_id"))
	if err != nil {
		return err
	}
	resp := transferOfferStatusResponse{Status: o.Status}
	switch o.Status {
	case ledger.OfferCreated:
		resp.TransactionID, resp.ContractID = o.CreatedTx, string(o.ContractID)
	case ledger.OfferAccepted:
		resp.TransactionID, resp.ContractID = o.AcceptedTx, string(o.AcceptedCID)
	case ledger.OfferCompleted:
		resp.TransactionID, resp.ContractID = o.CompletedTx, string(o.CompletedCID)
	case ledger.OfferFailed:
		resp.FailureKind, resp.WithdrawnReason = o.FailureKind, o.WithdrawnReason
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// offerContractID takes the offer's contract id from the spec's path
// ({contract_id}) or, for the mission's short forms
// (POST /v0/wallet/transfer-offers/accept), from the body.
func offerContractID(r *http.Request) (coin.ContractID, error) {
	if id := r.PathValue("contract_id"); id != "" {
		return coin.ContractID(id), nil
	}
	var req offerActionRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return "", err
	}
	if trimmed(req.ContractID) == "" {
		return "", badRequest("contract_id: is required")
	}
	return coin.ContractID(trimmed(req.ContractID)), nil
}

// acceptTransferOffer answers POST /v0/wallet/transfer-offers/{contract_id}/accept
// and POST /v0/wallet/transfer-offers/accept.
func (h *Handler) acceptTransferOffer(w http.ResponseWriter, r *http.Request) error {
	cid, err := offerContractID(r)
	if err != nil {
		return err
	}
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	accepted, err := h.l.Offers().Accept(r.Context(), p, cid)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, acceptTransferOfferResponse{AcceptedOfferContractID: string(accepted)})
}

// rejectTransferOffer answers POST /v0/wallet/transfer-offers/{contract_id}/reject
// and POST /v0/wallet/transfer-offers/reject.
func (h *Handler) rejectTransferOffer(w http.ResponseWriter, r *http.Request) error {
	cid, err := offerContractID(r)
	if err != nil {
		return err
	}
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	if err := h.l.Offers().Reject(r.Context(), p, cid); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}

// withdrawTransferOffer answers POST /v0/wallet/transfer-offers/{contract_id}/withdraw
// and POST /v0/wallet/transfer-offers/withdraw.
func (h *Handler) withdrawTransferOffer(w http.ResponseWriter, r *http.Request) error {
	cid, err := offerContractID(r)
	if err != nil {
		return err
	}
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	if err := h.l.Offers().Withdraw(r.Context(), p, cid); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}
