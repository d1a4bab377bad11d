package api

import (
	"fmt"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/airdrop"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/web"
)

// Merge delegation has no public wallet API yet (it is newer than the
// pinned Splice release); these endpoints follow the minting-delegation
// endpoints' shapes.

type mergeDelegationDTO struct {
	Contract ContractDTO `json:"contract"`
	Status   string      `json:"status"`
}

type listMergeDelegationsResponse struct {
	Proposals   []mergeDelegationDTO `json:"proposals"`
	Delegations []mergeDelegationDTO `json:"delegations"`
}

type pendingMergeDTO struct {
	PartyID  string `json:"party_id"`
	Holdings int    `json:"holdings"`
	Target   int    `json:"target"`
}

type pendingMergesResponse struct {
	Parties []pendingMergeDTO `json:"parties"`
}

func mergeDTO(d delegations.MergeDelegation) mergeDelegationDTO {
	return mergeDelegationDTO{Contract: contractDTO(d.Contract), Status: d.Status}
}

// listMergeDelegations answers GET /v0/wallet/merge-delegations.
func (h *Handler) listMergeDelegations(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	ds, err := h.w.Delegations.MergeDelegations(r.Context(), p)
	if err != nil {
		return err
	}
	resp := listMergeDelegationsResponse{Proposals: []mergeDelegationDTO{}, Delegations: []mergeDelegationDTO{}}
	for _, d := range ds {
		if d.Status == delegations.MergeProposed {
			resp.Proposals = append(resp.Proposals, mergeDTO(d))
		} else {
			resp.Delegations = append(resp.Delegations, mergeDTO(d))
		}
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// proposeMergeDelegation answers POST /v0/wallet/merge-delegation-proposals:
// the caller proposes that the wallet provider merge its holdings.
func (h *Handler) proposeMergeDelegation(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	d, err := h.w.Delegations.ProposeMergeDelegation(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, mergeDTO(d))
}

// withdrawMergeDelegation answers
// POST /v0/wallet/merge-delegations/{contract_id}/withdraw (a proposal or an
// active delegation of the caller's).
func (h *Handler) withdrawMergeDelegation(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	cid, err := coin.ParseContractID(r.PathValue("contract_id"))
	if err != nil {
		return err
	}
	if err := h.w.Delegations.WithdrawMergeDelegation(r.Context(), p, cid); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}

// acceptMergeDelegation answers
// POST /v0/admin/merge-delegation-proposals/{contract_id}/accept: the
// wallet provider accepts at once instead of waiting for the merge job.
func (h validatorAdmin) acceptMergeDelegation(w http.ResponseWriter, r *http.Request) error {
	cid, err := coin.ParseContractID(r.PathValue("contract_id"))
	if err != nil {
		return err
	}
	d, err := h.w.Delegations.AcceptMergeDelegation(r.Context(), cid)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, mergeDTO(d))
}

// pendingMerges answers GET /v0/admin/merge-progress: parties the merge
// automation still has to bring down to their target.
func (h validatorAdmin) pendingMerges(w http.ResponseWriter, r *http.Request) error {
	ps, err := h.w.Delegations.PendingMerges(r.Context())
	if err != nil {
		return err
	}
	resp := pendingMergesResponse{Parties: []pendingMergeDTO{}}
	for _, p := range ps {
		resp.Parties = append(resp.Parties, pendingMergeDTO{PartyID: string(p.Party), Holdings: p.Holdings, Target: p.Target})
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

type airdropShareDTO struct {
	PartyID string `json:"party_id"`
	Amount  string `json:"amount"`
}

type airdropRequest struct {
	Recipients  []airdropShareDTO `json:"recipients"`
	Description string            `json:"description"`
	CommandID   string            `json:"command_id"`
}

type airdropResponse struct {
	UpdateID     string `json:"update_id"`
	Recipients   int    `json:"recipients"`
	Total        string `json:"total"`
	Fees         string `json:"fees"`
	Merges       int    `json:"merges"`
	MergedInputs int    `json:"merged_inputs"`
}

// airdrop answers POST /v0/admin/merge-delegations/airdrop: the provider
// (the operator) sends each delegating recipient its amount through its
// preapproval and merges its holdings, all in one transaction
// (airdrop.Service.Airdrop). Amounts are decimal strings, exact to 10 digits; an
// optional command_id makes a retry answer the first result.
func (h validatorAdmin) airdrop(w http.ResponseWriter, r *http.Request) error {
	var req airdropRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if len(req.Recipients) > airdrop.MaxRecipients {
		return badRequest(fmt.Sprintf("recipients: at most %d per airdrop", airdrop.MaxRecipients))
	}
	shares := make([]airdrop.Share, len(req.Recipients))
	for i, s := range req.Recipients {
		p, err := coin.ParsePartyID(trimmed(s.PartyID))
		if err != nil {
			return badRequest(fmt.Sprintf("recipients[%d].party_id: %s", i, err.Error()))
		}
		a, err := coin.ParseCanonical(s.Amount)
		if err != nil {
			return badRequest(fmt.Sprintf("recipients[%d].amount: %s", i, err.Error()))
		}
		shares[i] = airdrop.Share{Party: p, Amount: a}
	}
	res, err := h.w.Airdrop.Airdrop(r.Context(), airdrop.Request{Shares: shares, Description: req.Description, CommandID: req.CommandID})
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, airdropResponse{UpdateID: res.UpdateID, Recipients: len(shares), Total: res.Total.String(),
		Fees: res.Fees.String(), Merges: res.Merges, MergedInputs: res.MergedInputs})
}
