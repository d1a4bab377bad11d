package api

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	ledgerdevnet "github.com/ccwallet/ccwallet/ledger/devnet"
	extparty "github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/web"
)

// createExternalPartySetupProposal answers POST
// /v0/admin/external-party/setup-proposal.
func (h external) createExternalPartySetupProposal(w http.ResponseWriter, r *http.Request) error {
	var req createExternalPartySetupProposalRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	user, err := parseParty("user_party_id", req.UserPartyID)
	if err != nil {
		return err
	}
	cid, err := h.w.External.CreateSetupProposal(r.Context(), user)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, createExternalPartySetupProposalResponse{ContractID: string(cid)})
}

// listExternalPartySetupProposals answers GET
// /v0/admin/external-party/setup-proposal.
func (h external) listExternalPartySetupProposals(w http.ResponseWriter, r *http.Request) error {
	cs, err := h.w.External.SetupProposals(r.Context())
	if err != nil {
		return err
	}
	resp := listExternalPartySetupProposalsResponse{Contracts: make([]ContractWithStateDTO, len(cs))}
	for i, c := range cs {
		resp.Contracts[i] = contractWithState(c)
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// hashingDetails is the verbose_hashing answer: the prepared transaction's
// decoded text, which is exactly what the hash covers (see
// extparty.PreparedTxHash).
func hashingDetails(verbose bool, p extparty.Prepared) string {
	if !verbose {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(p.Transaction)
	if err != nil {
		return ""
	}
	return "tx_hash = hex(sha256(big-endian int32 hash purpose || hash version byte || transaction bytes)); transaction = " + string(raw)
}

// prepareAcceptExternalPartySetupProposal answers POST
// /v0/admin/external-party/setup-proposal/prepare-accept.
func (h external) prepareAcceptExternalPartySetupProposal(w http.ResponseWriter, r *http.Request) error {
	var req prepareAcceptExternalPartySetupProposalRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	user, err := parseParty("user_party_id", req.UserPartyID)
	if err != nil {
		return err
	}
	cid, err := coin.ParseContractID(trimmed(req.ContractID))
	if err != nil {
		return err
	}
	p, err := h.w.External.PrepareAcceptSetupProposal(r.Context(), cid, user)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, prepareAcceptExternalPartySetupProposalResponse{
		Transaction: p.Transaction, TxHash: p.TxHash, HashingDetails: hashingDetails(req.VerboseHashing, p),
	})
}

// submitAcceptExternalPartySetupProposal answers POST
// /v0/admin/external-party/setup-proposal/submit-accept.
func (h external) submitAcceptExternalPartySetupProposal(w http.ResponseWriter, r *http.Request) error {
	var req submitAcceptExternalPartySetupProposalRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	s, err := submission(req.Submission)
	if err != nil {
		return err
	}
	s.Kind = extparty.KindSetupProposalAccept
	res, err := h.w.External.Submit(r.Context(), s)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, submitAcceptExternalPartySetupProposalResponse{
		TransferPreapprovalContractID: string(res.ContractID), UpdateID: res.UpdateID,
	})
}

// parseJSONAmount parses a spec amount given as a JSON number (or, leniently,
// a string) from its exact text: never through a float.
func parseJSONAmount(field string, raw json.RawMessage) (coin.Amount, error) {
	text := strings.TrimSpace(string(raw))
	if text == "" || text == "null" {
		return coin.Zero, badRequest(field + ": is required")
	}
	if strings.HasPrefix(text, `"`) {
		if err := json.Unmarshal(raw, &text); err != nil {
			return coin.Zero, badRequest(field + ": must be a number")
		}
	}
	return coin.ParseCanonical(text)
}

// prepareTransferPreapprovalSend answers POST
// /v0/admin/external-party/transfer-preapproval/prepare-send.
func (h external) prepareTransferPreapprovalSend(w http.ResponseWriter, r *http.Request) error {
	var req prepareTransferPreapprovalSendRequest
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
	amount, err := parseJSONAmount("amount", req.Amount)
	if err != nil {
		return err
	}
	exp, err := time.Parse(time.RFC3339Nano, trimmed(req.ExpiresAt))
	if err != nil {
		return badRequest("expires_at: must be an RFC 3339 date-time")
	}
	if req.Nonce == nil {
		return badRequest("nonce: is required (the sender's next nonce, from GET /v0/transfer-command-counter/{party}; 0 when it has none)")
	}
	p, err := h.w.External.PrepareTransferPreapprovalSend(r.Context(), extparty.PreapprovalSendRequest{
		Sender: sender, Receiver: receiver, Amount: amount, ExpiresAt: exp, Nonce: *req.Nonce, Description: req.Description,
	})
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, prepareTransferPreapprovalSendResponse{
		Transaction: p.Transaction, TxHash: p.TxHash,
		// The TransferCommand's id is fixed by the preparation; the
		// transfer executes on submission and the command is then "sent"
		// in /v0/scan-proxy/transfer-command/status.
		TransferCommandContractIDPrefix: p.TransferCommandIDPrefix,
		HashingDetails:                  hashingDetails(req.VerboseHashing, p),
	})
}

// submitTransferPreapprovalSend answers POST
// /v0/admin/external-party/transfer-preapproval/submit-send. Unlike the
// real validator, which only creates a TransferCommand for the SVs'
// automation, the transfer is done when it answers.
func (h external) submitTransferPreapprovalSend(w http.ResponseWriter, r *http.Request) error {
	var req submitTransferPreapprovalSendRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	s, err := submission(req.Submission)
	if err != nil {
		return err
	}
	s.Kind = extparty.KindTransferPreapprovalSend
	res, err := h.w.External.Submit(r.Context(), s)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, submitTransferPreapprovalSendResponse{UpdateID: res.UpdateID})
}

// lookupTransferCommandCounter answers GET
// /v0/transfer-command-counter/{party} (scan's path, also under
// /v0/scan-proxy and /v0/admin/external-party). 404 means the party's
// next nonce is 0.
func (h external) lookupTransferCommandCounter(w http.ResponseWriter, r *http.Request) error {
	return h.writeTransferCommandCounter(w, r, true)
}

// writeTransferCommandCounter answers a counter lookup, with our
// next_nonce or, as the scan proxy, exactly as the spec has it.
func (h *Handler) writeTransferCommandCounter(w http.ResponseWriter, r *http.Request, withNextNonce bool) error {
	party, err := parseParty("party", r.PathValue("party"))
	if err != nil {
		return err
	}
	c, err := h.w.External.TransferCommandCounter(r.Context(), party)
	if err != nil {
		return err
	}
	resp := lookupTransferCommandCounterResponse{TransferCommandCounter: contractWithState(c.Contract)}
	if withNextNonce {
		resp.NextNonce = &c.NextNonce
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// devnetTap answers POST /v0/admin/devnet/tap (ours, development networks
// only): the faucet for any known party, external ones included, whose
// owners cannot call the user-scoped /v0/wallet/tap. As there, amount is
// in USD.
func (h external) devnetTap(w http.ResponseWriter, r *http.Request) error {
	var req devnetTapRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	party, err := parseParty("party_id", req.PartyID)
	if err != nil {
		return err
	}
	amount, err := requiredAmount("amount", req.Amount)
	if err != nil {
		return err
	}
	if err := h.l.KnownParty(r.Context(), party); err != nil {
		return err
	}
	res, err := ledgerdevnet.Tap(r.Context(), h.l, party, amount, req.CommandID)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, devnetTapResponse{ContractID: string(res.ContractID), Amount: res.Amount.String()})
}
