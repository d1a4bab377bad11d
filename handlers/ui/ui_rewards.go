package ui

import (
	"net/http"
	"strconv"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// rewardRoundsPage is how many rounds a page of /rewards lists.
const rewardRoundsPage = 20

// uiRewards serves GET /rewards?before=R: the user's rewards by round,
// newest first, rewardRoundsPage rounds a page, pending and collected.
func (h *Handler) uiRewards(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	var before coin.Round
	if v := r.URL.Query().Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return badRequest("before: must be a round number from 1")
		}
		before = coin.Round(n)
	}
	page, err := h.w.Rewards.Page(r.Context(), uiParty(r), before, rewardRoundsPage)
	if err != nil {
		return err
	}
	m := views.Rewards{Page: h.page(s, "Rewards", "rewards"), Partial: page.Partial}
	if before > 0 {
		m.NewestHref = "/rewards"
	}
	if page.Older > 0 {
		m.OlderHref = "/rewards?before=" + strconv.FormatInt(int64(page.Older), 10)
	}
	for _, row := range page.Rows {
		v := views.RewardRow{
			Round: int64(row.Round), Kind: row.Kind, Coupons: row.Coupons, Amount: row.Amount.String(),
			Collected: row.Collected, UpdateID: row.CollectedBy,
		}
		v.CollectedAt = row.CollectedAt
		m.Rows = append(m.Rows, v)
	}
	return render(w, r, http.StatusOK, views.RewardsPage(m))
}
