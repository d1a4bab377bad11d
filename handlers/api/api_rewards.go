package api

import (
	"net/http"

	"github.com/ccwallet/ccwallet/web"
)

// rewardList answers a reward-coupon list endpoint: the caller's
// uncollected coupons of kind under the spec's response field name.
func (h *Handler) rewardList(kind, field string) apiFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := h.callerParty(r)
		if err != nil {
			return err
		}
		cs, err := h.w.Rewards.Coupons(r.Context(), p, kind)
		if err != nil {
			return err
		}
		// The spec caps these lists at 1000 elements.
		if len(cs) > 1000 {
			cs = cs[:1000]
		}
		return web.WriteJSON(w, http.StatusOK, map[string][]ContractDTO{field: contractDTOs(cs)})
	}
}

// featureSupport answers GET /v0/feature-support.
func (h *Handler) featureSupport(w http.ResponseWriter, r *http.Request) error {
	return web.WriteJSON(w, http.StatusOK, walletFeatureSupportResponse{TokenStandard: true, TransferPreapprovalDescription: true})
}
