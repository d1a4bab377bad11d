package api

import (
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/web"
)

// createTransferPreapproval answers POST /v0/wallet/transfer-preapproval:
// 200 with the new preapproval, or 409 with the same body when the caller
// has a valid one already (as the spec says).
func (h *Handler) createTransferPreapproval(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	cid, exists, err := h.l.Preapprovals().Create(r.Context(), p)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if exists {
		status = http.StatusConflict
	}
	return web.WriteJSON(w, status, createTransferPreapprovalResponse{TransferPreapprovalContractID: string(cid)})
}

// transferPreapprovalSend answers POST /v0/wallet/transfer-preapproval/send.
func (h *Handler) transferPreapprovalSend(w http.ResponseWriter, r *http.Request) error {
	var req transferPreapprovalSendRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	switch {
	case req.ReceiverPartyID == nil:
		return badRequest("receiver_party_id: is required")
	case req.Amount == nil:
		return badRequest("amount: is required")
	case req.DeduplicationID == nil:
		return badRequest("deduplication_id: is required")
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
	_, err = h.l.Preapprovals().Send(r.Context(), ledger.PreapprovalSend{
		Sender: sender, Receiver: receiver, Amount: amount, DeduplicationID: *req.DeduplicationID, Description: req.Description,
	})
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}

// lookupTransferPreapprovalByParty answers GET
// /v0/admin/transfer-preapprovals/by-party/{receiver-party}.
func (h validatorAdmin) lookupTransferPreapprovalByParty(w http.ResponseWriter, r *http.Request) error {
	p, err := h.w.Provider.LivePreapproval(r.Context(), coin.PartyID(r.PathValue("receiver")))
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, lookupTransferPreapprovalByPartyResponse{TransferPreapproval: contractWithState(p.Contract)})
}

// cancelTransferPreapprovalByParty answers DELETE
// /v0/admin/transfer-preapprovals/by-party/{receiver-party}.
func (h validatorAdmin) cancelTransferPreapprovalByParty(w http.ResponseWriter, r *http.Request) error {
	if err := h.l.Preapprovals().Cancel(r.Context(), coin.PartyID(r.PathValue("receiver"))); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}

// listTransferPreapprovals answers GET /v0/admin/transfer-preapprovals: the
// preapprovals the validator operator provides.
func (h validatorAdmin) listTransferPreapprovals(w http.ResponseWriter, r *http.Request) error {
	ps, err := h.w.Provider.Preapprovals(r.Context())
	if err != nil {
		return err
	}
	resp := listTransferPreapprovalsResponse{Contracts: make([]ContractWithStateDTO, 0, len(ps))}
	for _, p := range ps {
		resp.Contracts = append(resp.Contracts, contractWithState(p.Contract))
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}
