package api

import (
	"net/http"

	"github.com/ccwallet/ccwallet/ledger/traffic"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/web"
)

// wallet-external.yaml: buying traffic.

type createBuyTrafficRequest struct {
	ReceivingValidatorPartyID *string `json:"receiving_validator_party_id"`
	DomainID                  *string `json:"domain_id"`
	TrafficAmount             *int64  `json:"traffic_amount"`
	TrackingID                *string `json:"tracking_id"`
	ExpiresAt                 *int64  `json:"expires_at"`
}

type createBuyTrafficRequestResponse struct {
	RequestContractID string `json:"request_contract_id"`
}

type getBuyTrafficRequestStatusResponse struct {
	Status          string `json:"status"`
	TransactionID   string `json:"transaction_id,omitempty"`
	FailureReason   string `json:"failure_reason,omitempty"`
	RejectionReason string `json:"rejection_reason,omitempty"`
}

// createBuyTrafficRequest answers POST /v0/wallet/buy-traffic-requests. The
// purchase completes in the same transaction, so the status endpoint
// answers completed right away.
func (h *Handler) createBuyTrafficRequest(w http.ResponseWriter, r *http.Request) error {
	var req createBuyTrafficRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.ReceivingValidatorPartyID == nil:
		return badRequest("receiving_validator_party_id: is required")
	case req.DomainID == nil:
		return badRequest("domain_id: is required")
	case req.TrafficAmount == nil:
		return badRequest("traffic_amount: is required")
	case req.TrackingID == nil || trimmed(*req.TrackingID) == "":
		return badRequest("tracking_id: is required")
	case req.ExpiresAt == nil:
		return badRequest("expires_at: is required")
	}
	member, err := coin.ParsePartyID(*req.ReceivingValidatorPartyID)
	if err != nil {
		return err
	}
	payer, err := h.callerParty(r)
	if err != nil {
		return err
	}
	res, err := h.w.Traffic.BuyTraffic(r.Context(), traffic.BuyTrafficRequest{
		Payer: payer, Member: member, SynchronizerID: *req.DomainID, Bytes: *req.TrafficAmount,
		ExpiresAt: microsTime(*req.ExpiresAt), TrackingID: *req.TrackingID,
	})
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, createBuyTrafficRequestResponse{RequestContractID: string(res.RequestCID)})
}

// getBuyTrafficRequestStatus answers POST
// /v0/wallet/buy-traffic-requests/{tracking_id}/status.
func (h *Handler) getBuyTrafficRequestStatus(w http.ResponseWriter, r *http.Request) error {
	payer, err := h.callerParty(r)
	if err != nil {
		return err
	}
	s, err := h.w.Traffic.BuyTrafficStatusOf(r.Context(), payer, r.PathValue("tracking_id"))
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, getBuyTrafficRequestStatusResponse{Status: s.Status, TransactionID: s.TransactionID})
}
