package api

import (
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/web"
)

func mintingDelegationDTOs(ds []delegations.MintingDelegation) []mintingDelegationDTO {
	out := make([]mintingDelegationDTO, len(ds))
	for i, d := range ds {
		out[i] = mintingDelegationDTO{Contract: contractDTO(d.Contract), Beneficiary: string(d.Beneficiary), Delegate: string(d.Delegate),
			ExpiresAt: ledger.FormatTime(d.ExpiresAt), MergeLimit: d.MergeLimit}
	}
	return out
}

// listMintingDelegationProposals answers GET
// /v0/wallet/minting-delegation-proposals: proposals naming the caller.
func (h *Handler) listMintingDelegationProposals(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	ds, err := h.w.Delegations.MintingDelegationProposals(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, listMintingDelegationProposalsResponse{Proposals: mintingDelegationDTOs(ds)})
}

// listMintingDelegations answers GET /v0/wallet/minting-delegations.
func (h *Handler) listMintingDelegations(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	ds, err := h.w.Delegations.MintingDelegations(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, listMintingDelegationsResponse{Delegations: mintingDelegationDTOs(ds)})
}

// pathContract is the caller's party and the {contract_id} path value.
func (h *Handler) pathContract(r *http.Request) (coin.PartyID, coin.ContractID, error) {
	cid, err := coin.ParseContractID(r.PathValue("contract_id"))
	if err != nil {
		return "", "", err
	}
	p, err := h.callerParty(r)
	return p, cid, err
}

// acceptMintingDelegationProposal answers POST
// /v0/wallet/minting-delegation-proposals/{contract_id}/accept.
func (h *Handler) acceptMintingDelegationProposal(w http.ResponseWriter, r *http.Request) error {
	p, cid, err := h.pathContract(r)
	if err != nil {
		return err
	}
	d, err := h.w.Delegations.AcceptMintingDelegationProposal(r.Context(), p, cid)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, acceptMintingDelegationProposalResponse{ContractID: string(d)})
}

// rejectMintingDelegationProposal answers POST
// /v0/wallet/minting-delegation-proposals/{contract_id}/reject.
func (h *Handler) rejectMintingDelegationProposal(w http.ResponseWriter, r *http.Request) error {
	p, cid, err := h.pathContract(r)
	if err != nil {
		return err
	}
	if err := h.w.Delegations.RejectMintingDelegationProposal(r.Context(), p, cid); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}

// withdrawMintingDelegation answers POST
// /v0/wallet/minting-delegations/{contract_id}/reject (withdraw).
func (h *Handler) withdrawMintingDelegation(w http.ResponseWriter, r *http.Request) error {
	p, cid, err := h.pathContract(r)
	if err != nil {
		return err
	}
	if err := h.w.Delegations.WithdrawMintingDelegation(r.Context(), p, cid); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}
