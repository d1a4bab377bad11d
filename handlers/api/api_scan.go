package api

import (
	"net/http"

	"github.com/ccwallet/ccwallet/web"
)

// Scan's own endpoints the wallet SDK and the token-standard CLI call
// (scan.yaml), at the root and under /api/scan, scan's base path, without
// a token as scan serves them. The rules live in the ledger.

// scanRoutes lists scan's routes, relative to its base path.
func (h registry) scanRoutes() map[string]apiFunc {
	return map[string]apiFunc{
		"GET /v0/domains/{domain_id}/members/{member_id}/traffic-status": h.getMemberTrafficStatus,
	}
}

type memberTrafficStatusResponse struct {
	TrafficStatus struct {
		Actual struct {
			TotalConsumed int64 `json:"total_consumed"`
			TotalLimit    int64 `json:"total_limit"`
		} `json:"actual"`
		Target struct {
			TotalPurchased int64 `json:"total_purchased"`
		} `json:"target"`
	} `json:"traffic_status"`
}

// getMemberTrafficStatus answers GET
// /v0/domains/{domain_id}/members/{member_id}/traffic-status: the extra
// traffic the member consumed, its limit and what it bought (purchases
// take effect at once, so the limit is what was bought).
func (h registry) getMemberTrafficStatus(w http.ResponseWriter, r *http.Request) error {
	s, err := h.w.Traffic.MemberTrafficStatus(r.Context(), r.PathValue("domain_id"), r.PathValue("member_id"))
	if err != nil {
		return err
	}
	var out memberTrafficStatusResponse
	out.TrafficStatus.Actual.TotalConsumed = s.ExtraConsumed
	out.TrafficStatus.Actual.TotalLimit = s.Purchased
	out.TrafficStatus.Target.TotalPurchased = s.Purchased
	return web.WriteJSON(w, http.StatusOK, out)
}
