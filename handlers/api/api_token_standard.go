package api

import (
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/web"
)

// wallet-internal.yaml: token-standard transfers (transfer instructions).

type createTokenStandardTransferRequest struct {
	ReceiverPartyID *string `json:"receiver_party_id"`
	Amount          *string `json:"amount"`
	Description     *string `json:"description"`
	ExpiresAt       *int64  `json:"expires_at"`
	TrackingID      *string `json:"tracking_id"`
}

// transferInstructionResultResponse is TransferInstructionResultResponse;
// Output is one of the Pending, Completed or Failed shapes.
type transferInstructionResultResponse struct {
	Output           any               `json:"output"`
	SenderChangeCIDs []string          `json:"sender_change_cids"`
	Meta             map[string]string `json:"meta"`
}

type transferInstructionPending struct {
	TransferInstructionCID string `json:"transfer_instruction_cid"`
}

type transferInstructionCompleted struct {
	ReceiverHoldingCIDs []string `json:"receiver_holding_cids"`
}

type transferInstructionFailed struct{}

type listTokenStandardTransfersResponse struct {
	Transfers []ContractDTO `json:"transfers"`
}

func cidStrings(ids []coin.ContractID) []string {
	out := make([]string, len(ids))
	for i, c := range ids {
		out[i] = string(c)
	}
	return out
}

func instructionResultDTO(r *ledger.InstructionResult) transferInstructionResultResponse {
	resp := transferInstructionResultResponse{SenderChangeCIDs: cidStrings(r.SenderChangeCIDs), Meta: r.Meta}
	if resp.Meta == nil {
		resp.Meta = map[string]string{}
	}
	switch r.Status {
	case ledger.InstructionPending:
		resp.Output = transferInstructionPending{TransferInstructionCID: string(r.InstructionCID)}
	case ledger.InstructionCompleted:
		resp.Output = transferInstructionCompleted{ReceiverHoldingCIDs: cidStrings(r.ReceiverHoldingCIDs)}
	default:
		resp.Output = transferInstructionFailed{}
	}
	return resp
}

// microsTime converts the wallet API's unix-microsecond timestamps.
func microsTime(us int64) time.Time { return time.UnixMicro(us).UTC() }

// createTokenStandardTransfer answers POST /v0/wallet/token-standard/transfers:
// the caller's coin is locked in a new transfer instruction.
func (h *Handler) createTokenStandardTransfer(w http.ResponseWriter, r *http.Request) error {
	var req createTokenStandardTransferRequest
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
	case req.TrackingID == nil || trimmed(*req.TrackingID) == "":
		return badRequest("tracking_id: is required")
	}
	receiver, err := coin.ParsePartyID(*req.ReceiverPartyID)
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
	res, err := h.l.Instructions().Create(r.Context(), ledger.TransferInstructionRequest{
		Sender: sender, Receiver: receiver, Amount: amount, Description: *req.Description,
		ExecuteBefore: microsTime(*req.ExpiresAt), TrackingID: *req.TrackingID,
	})
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, instructionResultDTO(res))
}

// listTokenStandardTransfers answers GET /v0/wallet/token-standard/transfers:
// the pending instructions the caller sends or receives, newest first, in
// the spec's shape but a page at a time (anyone may instruct anyone):
// pending.DefaultInstructionListPage of them, or ?page_size= (1 to
// ledger.MaxOfferPageSize); ?page_token= from the X-Next-Page-Token
// header of the page before.
func (h *Handler) listTokenStandardTransfers(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	size, err := pageSize(q, pending.DefaultInstructionListPage)
	if err != nil {
		return err
	}
	page, err := h.w.Pending.InstructionsPage(r.Context(), p, pending.Both, trimmed(q.Get("page_token")), size)
	if err != nil {
		return err
	}
	if page.Next != "" {
		w.Header().Set(nextPageHeader, page.Next)
	}
	resp := listTokenStandardTransfersResponse{Transfers: make([]ContractDTO, 0, len(page.Instructions))}
	for _, ti := range page.Instructions {
		resp.Transfers = append(resp.Transfers, contractDTO(ti.Contract))
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// moveTokenStandardTransfer answers POST
// /v0/wallet/token-standard/transfers/{contract_id}/{accept,reject,withdraw}.
func (h *Handler) moveTokenStandardTransfer(move ledger.InstructionMove) apiFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		cid, err := coin.ParseContractID(r.PathValue("contract_id"))
		if err != nil {
			return notFound("transfer instruction " + r.PathValue("contract_id") + " not found")
		}
		p, err := h.callerParty(r)
		if err != nil {
			return err
		}
		res, err := h.l.Instructions().Move(r.Context(), p, cid, move)
		if err != nil {
			return err
		}
		return web.WriteJSON(w, http.StatusOK, instructionResultDTO(res))
	}
}
