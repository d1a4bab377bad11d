package handlers

import (
	"net/http"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/web"
)

type advanceRoundsRequest struct {
	Rounds int `json:"rounds"`
}

type advanceRoundsResponse struct {
	From      int64   `json:"from_round"`
	To        int64   `json:"to_round"`
	Closed    []int64 `json:"closed_rounds"`
	Expired   int     `json:"expired_holdings"`
	Collected int     `json:"collected_coupons"`
}

// advanceRounds answers POST /v0/admin/devnet/advance-rounds {"rounds": N}:
// the development network's time control. 501 outside devnet, 400 unless
// 1 <= N <= 1000.
func (h *Handler) advanceRounds(w http.ResponseWriter, r *http.Request) error {
	if !h.l.DevNet() {
		return ledger.ErrDisabled
	}
	var req advanceRoundsRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	rep, err := h.l.AdvanceRounds(r.Context(), req.Rounds)
	if err != nil {
		return err
	}
	resp := advanceRoundsResponse{From: int64(rep.From), To: int64(rep.To), Closed: []int64{}, Expired: rep.Expired, Collected: rep.Collected}
	for _, c := range rep.Closed {
		resp.Closed = append(resp.Closed, int64(c))
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}
