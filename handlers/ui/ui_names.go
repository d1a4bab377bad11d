package ui

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// uiNames serves GET /names: the user's names and the request form.
func (h paymentPages) uiNames(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.namesModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	return render(w, r, http.StatusOK, views.NamesPage(m))
}

func (h paymentPages) namesModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.Names, error) {
	c := h.l.AnsConfig()
	m := views.Names{
		Page: h.livePage(s, "Names", "names"), FeeUSD: c.EntryFeeUSD.Short(), Suffix: names.Suffix(c),
		Lifetime: fmt.Sprintf("%d days", int(c.EntryLifetime.Hours()/24)), Form: views.NameForm{CSRF: s.CSRF},
	}
	ns, err := h.w.Names.AnsNamesOf(ctx, party)
	if err != nil {
		return m, err
	}
	for _, n := range ns {
		row := views.NameRow{Name: n.Name, URL: n.URL, Description: n.Description, State: "requested", SubscriptionRequest: string(n.SubscriptionRequestCID)}
		if n.Collecting {
			row.State = "collecting"
		}
		if n.EntryCID != "" {
			row.State, row.Expires = "active", n.ExpiresAt
			if n.Expired {
				row.State = "expired"
			}
		}
		m.Rows = append(m.Rows, row)
	}
	return m, nil
}

// uiRequestName serves POST /names: the request creates the name's
// subscription request, which the page then links for the user to
// accept. A name typed without the suffix gets it.
func (h paymentPages) uiRequestName(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	party := uiParty(r)
	f := views.NameForm{CSRF: s.CSRF, Name: strings.TrimSpace(r.PostFormValue("name")),
		URL: strings.TrimSpace(r.PostFormValue("url")), Description: strings.TrimSpace(r.PostFormValue("description"))}
	name := f.Name
	if suffix := names.Suffix(h.l.AnsConfig()); name != "" && !strings.Contains(name, ".") {
		name += suffix
	}
	_, err := h.w.Names.RequestAnsEntry(r.Context(), names.AnsRequest{User: party, Name: name, URL: f.URL, Description: f.Description})
	if err == nil {
		done(w, r, "/names", "name-requested")
		return nil
	}
	msg, ok := inline(err)
	if !ok {
		return err
	}
	m, merr := h.namesModel(r.Context(), s, party)
	if merr != nil {
		return merr
	}
	f.Error = msg
	m.Form = f
	return render(w, r, http.StatusUnprocessableEntity, views.NamesPage(m))
}
