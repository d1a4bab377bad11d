package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/web"
)

// wallet-internal.yaml: allocations (the token standard's DvP) and the
// allocation requests of apps (the trading app's OTCTrade).

type allocateAmuletRequest struct {
	Settlement *struct {
		Executor      *string `json:"executor"`
		SettlementRef *struct {
			ID  *string `json:"id"`
			CID *string `json:"cid"`
		} `json:"settlement_ref"`
		RequestedAt    *int64            `json:"requested_at"`
		AllocateBefore *int64            `json:"allocate_before"`
		SettleBefore   *int64            `json:"settle_before"`
		Meta           map[string]string `json:"meta"`
	} `json:"settlement"`
	TransferLegID *string `json:"transfer_leg_id"`
	TransferLeg   *struct {
		Receiver *string           `json:"receiver"`
		Amount   *string           `json:"amount"`
		Meta     map[string]string `json:"meta"`
	} `json:"transfer_leg"`
}

type allocationCompleted struct {
	AllocationCID string `json:"allocation_cid"`
}

type allocateAmuletResponse struct {
	Output           allocationCompleted `json:"output"`
	SenderChangeCIDs []string            `json:"sender_change_cids"`
	Meta             map[string]string   `json:"meta"`
}

type withContract struct {
	Contract ContractDTO `json:"contract"`
}

// allocateAmulet answers POST /v0/allocations: the caller allocates its
// coin to one leg of a settlement.
func (h *Handler) allocateAmulet(w http.ResponseWriter, r *http.Request) error {
	var req allocateAmuletRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	st, leg := req.Settlement, req.TransferLeg
	switch {
	case st == nil:
		return badRequest("settlement: is required")
	case st.Executor == nil || st.SettlementRef == nil || st.SettlementRef.ID == nil:
		return badRequest("settlement: executor and settlement_ref.id are required")
	case st.RequestedAt == nil || st.AllocateBefore == nil || st.SettleBefore == nil:
		return badRequest("settlement: requested_at, allocate_before and settle_before are required")
	case req.TransferLegID == nil:
		return badRequest("transfer_leg_id: is required")
	case leg == nil || leg.Receiver == nil || leg.Amount == nil:
		return badRequest("transfer_leg: receiver and amount are required")
	}
	sender, err := h.callerParty(r)
	if err != nil {
		return err
	}
	executor, err := coin.ParsePartyID(*st.Executor)
	if err != nil {
		return err
	}
	receiver, err := coin.ParsePartyID(*leg.Receiver)
	if err != nil {
		return err
	}
	amount, err := coin.ParseCanonical(*leg.Amount)
	if err != nil {
		return err
	}
	ref := allocationdata.Reference{ID: *st.SettlementRef.ID}
	if st.SettlementRef.CID != nil {
		cid, err := coin.ParseContractID(*st.SettlementRef.CID)
		if err != nil {
			return err
		}
		ref.CID = &cid
	}
	spec := allocationdata.AllocationSpecification{
		Settlement: allocationdata.SettlementInfo{
			Executor: executor, SettlementRef: ref, RequestedAt: ledger.FormatTime(microsTime(*st.RequestedAt)),
			AllocateBefore: ledger.FormatTime(microsTime(*st.AllocateBefore)), SettleBefore: ledger.FormatTime(microsTime(*st.SettleBefore)),
			Meta: ledger.Metadata{Values: st.Meta},
		},
		TransferLegID: *req.TransferLegID,
		TransferLeg: allocationdata.TransferLeg{Sender: sender, Receiver: receiver, Amount: amount,
			InstrumentID: ledger.InstrumentRef{Admin: h.l.DSO(), ID: ledger.InstrumentID}, Meta: ledger.Metadata{Values: leg.Meta}},
	}
	res, err := h.w.Allocations.Allocate(r.Context(), spec, commands.Command{})
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, allocateAmuletResponse{
		Output: allocationCompleted{AllocationCID: string(res.AllocationCID)}, SenderChangeCIDs: cidStrings(res.SenderChangeCIDs), Meta: map[string]string{},
	})
}

// listContractsOf answers a list of the caller's contracts under field.
func (h *Handler) listContractsOf(field string, list func(*http.Request, coin.PartyID) ([]ledger.Contract, error)) apiFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := h.callerParty(r)
		if err != nil {
			return err
		}
		cs, err := list(r, p)
		if err != nil {
			return err
		}
		out := make([]withContract, 0, len(cs))
		for _, c := range cs {
			out = append(out, withContract{Contract: contractDTO(c)})
		}
		return web.WriteJSON(w, http.StatusOK, map[string][]withContract{field: out})
	}
}

// listAllocations answers GET /v0/allocations: the caller's active
// allocations (it is the sender).
func (h *Handler) listAllocations() apiFunc {
	return h.listContractsOf("allocations", func(r *http.Request, p coin.PartyID) ([]ledger.Contract, error) {
		return h.w.Allocations.AllocationsOf(r.Context(), p)
	})
}

// listAllocationRequests answers GET
// /v0/wallet/token-standard/allocation-requests: the active trades the
// caller trades in.
func (h *Handler) listAllocationRequests() apiFunc {
	return h.listContractsOf("allocation_requests", func(r *http.Request, p coin.PartyID) ([]ledger.Contract, error) {
		return h.w.Allocations.AllocationRequestsOf(r.Context(), p)
	})
}

// withdrawAllocation answers POST /v0/allocations/{contract_id}/withdraw:
// the caller's locked coin comes back.
func (h *Handler) withdrawAllocation(w http.ResponseWriter, r *http.Request) error {
	cid, err := coin.ParseContractID(r.PathValue("contract_id"))
	if err != nil {
		return notFound("allocation " + r.PathValue("contract_id") + " not found")
	}
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	res, err := h.w.Allocations.MoveAllocation(r.Context(), p, cid, allocationdata.AllocationWithdraw, commands.Command{})
	if errors.Is(err, fault.ErrForbidden) {
		// As the real wallet, which looks the allocation up among those
		// the caller sends: another party's allocation is not found.
		return notFound(fmt.Sprintf("allocation %s not found among the allocations %s sends; only its sender may withdraw it", cid, p))
	} else if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, map[string]any{"sender_holding_cids": cidStrings(res.SenderChangeCIDs), "meta": map[string]string{}})
}

// rejectAllocationRequest answers POST
// /v0/wallet/token-standard/allocation-requests/{contract_id}/reject.
func (h *Handler) rejectAllocationRequest(w http.ResponseWriter, r *http.Request) error {
	cid, err := coin.ParseContractID(r.PathValue("contract_id"))
	if err != nil {
		return notFound("allocation request " + r.PathValue("contract_id") + " not found")
	}
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	_, err = h.w.Allocations.RejectAllocationRequest(r.Context(), []coin.PartyID{p}, cid, p, commands.Command{})
	if errors.Is(err, fault.ErrRequirement) {
		// The spec declares no conflict status: the request is not one
		// this party can reject.
		return notFound(fmt.Sprintf("allocation request %s has no leg %s sends; only a sender of one of its legs may reject it", cid, p))
	} else if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, map[string]any{"meta": map[string]string{}})
}
