package ui

import (
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// uiViewAs handles POST /admin/view-as (party=P): on a development network
// an admin views and uses the wallet as P (devnet.Service.Impersonate is the rule;
// onboarded checks it again on every page). Every page then shows a
// banner, and each change is recorded with the admin in acted_by.
func (h adminPages) uiViewAs(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	party := coin.PartyID(trimmed(r.PostFormValue("party")))
	if err := h.w.Devnet.Impersonate(r.Context(), s.User, party); err != nil {
		status, msg := statusOf(err)
		if status >= 500 {
			return err
		}
		m, merr := h.adminModel(r.Context(), s)
		if merr != nil {
			return merr
		}
		m.ViewAs = views.ViewAsForm{Party: string(party), Error: sentence(msg)}
		h.named(r.Context(), &m)
		return render(w, r, http.StatusUnprocessableEntity, views.AdminPage(m))
	}
	if err := h.ui.Sessions.SetActAs(w, r, s, string(party)); err != nil {
		return err
	}
	done(w, r, "/", "viewing-as")
	return nil
}

// uiStopViewAs handles POST /view-as/stop: back to one's own wallet. Any
// session may ask (it only ever drops a privilege).
func (h adminPages) uiStopViewAs(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	if err := h.ui.Sessions.SetActAs(w, r, s, ""); err != nil {
		return err
	}
	done(w, r, "/", "view-as-stopped")
	return nil
}
