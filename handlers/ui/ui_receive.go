package ui

import (
	"errors"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// uiReceive serves GET /receive: the user's name and party ID to copy or
// scan, and the direct-transfer preapproval with its switch.
func (h *Handler) uiReceive(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	party := uiParty(r)
	m := views.Receive{Page: h.page(s, "Receive", "receive"), Party: string(party)}
	names, err := h.w.Names.NamesOf(r.Context(), []coin.PartyID{party})
	if err != nil {
		return err
	}
	m.Name = names[party]
	if m.QR, err = views.NewQRCode(m.Party); err != nil {
		return err
	}
	switch p, err := h.w.Provider.Preapproval(r.Context(), party); {
	case err == nil:
		m.Preapproved, m.PreapprovalExpires = true, p.ExpiresAt
	case !errors.Is(err, fault.ErrNotFound):
		return err
	}
	return render(w, r, http.StatusOK, views.ReceivePage(m))
}

// approvalsOrBack is where a preapproval switch returns to: the Receive
// page when its form says so (back=receive), else Approvals.
func approvalsOrBack(r *http.Request) string {
	if r.PostFormValue("back") == "receive" {
		return "/receive"
	}
	return "/approvals"
}
