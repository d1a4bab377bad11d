package api

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/web"
)

// nextPageHeader carries the token of a paged list's next page; it is
// absent on the last page. The spec's answer shape has no place for it.
const nextPageHeader = "X-Next-Page-Token"

// listOfferPage answers GET /v0/wallet/transfer-offers?page_size=N
// [&page_token=T]: up to N (1 to pending.MaxOfferPageSize) open offers,
// oldest first, in the spec's ListTransferOffersResponse; the next page's
// token in X-Next-Page-Token.
func (h *Handler) listOfferPage(w http.ResponseWriter, r *http.Request, p coin.PartyID) error {
	q := r.URL.Query()
	size, err := pageSize(q, pending.MaxOfferPageSize)
	if err != nil {
		return err
	}
	cs, next, err := h.w.Pending.OffersContractsPage(r.Context(), p, trimmed(q.Get("page_token")), size)
	if err != nil {
		return err
	}
	if next != "" {
		w.Header().Set(nextPageHeader, next)
	}
	return web.WriteJSON(w, http.StatusOK, listTransferOffersResponse{Offers: contractDTOs(cs)})
}

// pageSize reads ?page_size= (1 to ledger.MaxOfferPageSize), def when
// it is absent.
func pageSize(q url.Values, def int) (int, error) {
	if !q.Has("page_size") {
		return def, nil
	}
	raw := trimmed(q.Get("page_size"))
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return 0, badRequest("page_size: " + strconv.Quote(raw) + " is not a whole number")
	}
	if err := pending.CheckOfferPageSize(n); err != nil {
		return 0, err
	}
	return int(n), nil
}
