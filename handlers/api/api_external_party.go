package api

import (
	"net/http"
	"strings"
	"time"

	ledgerexternal "github.com/ccwallet/ccwallet/ledger/external"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/web"
)

// generateExternalPartyTopology answers POST
// /v0/admin/external-party/topology/generate.
func (h external) generateExternalPartyTopology(w http.ResponseWriter, r *http.Request) error {
	var req generateExternalPartyTopologyRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	party, txs, err := h.w.External.GenerateExternalTopology(req.PartyHint, req.PublicKey)
	if err != nil {
		return err
	}
	resp := generateExternalPartyTopologyResponse{PartyID: string(party), TopologyTxs: make([]topologyTxDTO, len(txs))}
	for i, tx := range txs {
		resp.TopologyTxs[i] = topologyTxDTO{TopologyTx: tx.Tx, Hash: tx.Hash}
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// submitExternalPartyTopology answers POST
// /v0/admin/external-party/topology/submit.
func (h external) submitExternalPartyTopology(w http.ResponseWriter, r *http.Request) error {
	var req submitExternalPartyTopologyRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	signed := make([]ledgerexternal.SignedTopologyTx, len(req.SignedTopologyTxs))
	for i, s := range req.SignedTopologyTxs {
		signed[i] = ledgerexternal.SignedTopologyTx{Tx: s.TopologyTx, SignedHash: s.SignedHash}
	}
	party, err := h.w.External.SubmitExternalTopology(r.Context(), req.PublicKey, signed)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, submitExternalPartyTopologyResponse{PartyID: string(party)})
}

// getExternalPartyBalance answers GET /v0/admin/external-party/balance.
func (h external) getExternalPartyBalance(w http.ResponseWriter, r *http.Request) error {
	q := trimmed(r.URL.Query().Get("party_id"))
	if q == "" {
		return badRequest("party_id: query parameter is required")
	}
	party, err := coin.ParsePartyID(q)
	if err != nil {
		return err
	}
	b, err := h.w.External.ExternalPartyBalance(r.Context(), party)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, externalPartyBalanceResponse{
		PartyID: string(party), TotalUnlockedCoin: b.Unlocked.String(), TotalLockedCoin: b.Locked.String(),
		TotalCoinHoldings: b.Total().String(), AccumulatedHoldingFeesUnlocked: b.FeesUnlocked.String(),
		AccumulatedHoldingFeesLocked: b.FeesLocked.String(), AccumulatedHoldingFeesTotal: b.Fees().String(),
		TotalAvailableCoin: b.Available().String(), ComputedAsOfRound: int64(b.Round),
	})
}

// requiredAmount parses a required amount given as a JSON string.
func requiredAmount(field string, s *string) (coin.Amount, error) {
	if s == nil {
		return coin.Zero, badRequest(field + ": is required")
	}
	return coin.ParseCanonical(*s)
}

func parseParty(field, s string) (coin.PartyID, error) {
	s = trimmed(s)
	if s == "" {
		return "", badRequest(field + ": is required")
	}
	return coin.ParsePartyID(s)
}

func writePrepared(w http.ResponseWriter, p ledgerexternal.Prepared) error {
	return web.WriteJSON(w, http.StatusOK, prepareExternalResponse{Transaction: p.Transaction, TxHash: p.TxHash, ExpiresAt: ledger.FormatTime(p.ExpiresAt)})
}

// prepareExternalTransfer answers POST
// /v0/admin/external-party/transfer/prepare: a one-step transfer from an
// external party, for it to sign and send to /v0/admin/external-party/submit.
func (h external) prepareExternalTransfer(w http.ResponseWriter, r *http.Request) error {
	var req prepareExternalTransferRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	sender, err := parseParty("sender_party_id", req.SenderPartyID)
	if err != nil {
		return err
	}
	receiver, err := parseParty("receiver_party_id", req.ReceiverPartyID)
	if err != nil {
		return err
	}
	amount, err := requiredAmount("amount", req.Amount)
	if err != nil {
		return err
	}
	p, err := h.w.External.PrepareExternalTransfer(r.Context(), sender, receiver, amount, req.Description)
	if err != nil {
		return err
	}
	return writePrepared(w, p)
}

// prepareMintingDelegationProposal answers POST
// /v0/admin/external-party/minting-delegation-proposal/prepare: the
// external party proposes that this validator mint its rewards.
func (h external) prepareMintingDelegationProposal(w http.ResponseWriter, r *http.Request) error {
	var req prepareMintingDelegationProposalRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	party, err := parseParty("beneficiary_party_id", req.BeneficiaryPartyID)
	if err != nil {
		return err
	}
	exp, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(req.ExpiresAt))
	if err != nil {
		return badRequest("expires_at: must be an RFC 3339 date-time")
	}
	if req.MergeLimit == nil {
		return badRequest("merge_limit: is required")
	}
	p, err := h.w.Delegations.PrepareMintingDelegationProposal(r.Context(), party, exp, *req.MergeLimit)
	if err != nil {
		return err
	}
	return writePrepared(w, p)
}

func submission(s *externalPartySubmissionDTO) (ledgerexternal.Submission, error) {
	if s == nil {
		return ledgerexternal.Submission{}, badRequest("submission: is required")
	}
	return ledgerexternal.Submission{Party: coin.PartyID(s.PartyID), Transaction: s.Transaction, SignedTxHash: s.SignedTxHash, PublicKey: s.PublicKey}, nil
}

// submitExternal answers POST /v0/admin/external-party/submit: it executes
// any transaction prepared by our own prepare endpoints, once. A replay of
// an executed submission answers 200 with the first result and changes
// nothing; an expired preparation is 409.
func (h external) submitExternal(w http.ResponseWriter, r *http.Request) error {
	var req submitExternalRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	s, err := submission(req.Submission)
	if err != nil {
		return err
	}
	res, err := h.w.External.Submit(r.Context(), s)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, submitExternalResponse{Kind: res.Kind, UpdateID: res.UpdateID, ContractID: string(res.ContractID)})
}
