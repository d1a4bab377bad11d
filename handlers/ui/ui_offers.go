package ui

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// uiOffers serves GET /offers: pending transfer offers and instructions,
// incoming and outgoing.
func (h *Handler) uiOffers(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.transfersModel(r.Context(), s, uiParty(r), r.URL.Query())
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	if isFragment(r) {
		return render(w, r, http.StatusOK, views.TransfersList(m))
	}
	return render(w, r, http.StatusOK, views.OffersPage(views.Offers{Page: h.offersPage(s), Transfers: m}))
}

// uiOffersLive serves GET /offers/live, the lists live updates reload.
func (h *Handler) uiOffersLive(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.transfersModel(r.Context(), s, uiParty(r), r.URL.Query())
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.TransfersLive(m))
}

// offersPage is the offers page's layout, with live updates.
func (h *Handler) offersPage(s *web.Session) views.Page {
	p := h.page(s, "Offers", "offers")
	p.Events = "/events"
	return p
}

func (h *Handler) transfersModel(ctx context.Context, s *web.Session, party coin.PartyID, q url.Values) (views.Transfers, error) {
	b, err := h.l.Balance(ctx, party)
	if err != nil {
		return views.Transfers{}, err
	}
	m := views.Transfers{CSRF: s.CSRF, Balance: b.EffectiveUnlocked.String()}
	if err := h.offerPages(ctx, &m, party, q); err != nil {
		return views.Transfers{}, err
	}
	return m, nil
}

// offerRow is offer o as party sees it.
func offerRow(o ledger.Offer, party coin.PartyID) views.OfferRow {
	return transferRow(o.ContractID, o.Sender, o.Receiver, o.Amount, o.Description, o.ExpiresAt, party)
}

// instructionRow is transfer instruction ti as party sees it.
func instructionRow(ti ledger.TransferInstruction, party coin.PartyID) views.OfferRow {
	return transferRow(ti.ContractID, ti.Sender, ti.Receiver, ti.Amount, ti.Description, ti.ExecuteBefore, party)
}

// transferRow is an offer or instruction as party sees it: the
// counterparty is the other side.
func transferRow(cid coin.ContractID, sender, receiver coin.PartyID, amount coin.Amount, desc string, expires time.Time, party coin.PartyID) views.OfferRow {
	row := views.OfferRow{ContractID: string(cid), Amount: amount.String(), Description: desc,
		ExpiresAt: expires, Incoming: receiver == party, Counterparty: views.P(receiver)}
	if row.Incoming {
		row.Counterparty = views.P(sender)
	}
	return row
}

// transferActions are the buttons of the offers page (and of the home
// page's incoming cards): the ledger call of each;
// doneMessages["<base>-<action>"] says what it did.
var transferActions = map[string]map[string]func(h *Handler, ctx context.Context, actor coin.PartyID, cid coin.ContractID) error{
	"offers": {
		"accept": func(h *Handler, ctx context.Context, a coin.PartyID, cid coin.ContractID) error {
			_, err := h.l.Offers().Accept(ctx, a, cid)
			return err
		},
		"reject": func(h *Handler, ctx context.Context, a coin.PartyID, cid coin.ContractID) error {
			return h.l.Offers().Reject(ctx, a, cid)
		},
		"withdraw": func(h *Handler, ctx context.Context, a coin.PartyID, cid coin.ContractID) error {
			return h.l.Offers().Withdraw(ctx, a, cid)
		},
	},
	"instructions": {
		"accept": func(h *Handler, ctx context.Context, a coin.PartyID, cid coin.ContractID) error {
			_, err := h.l.Instructions().Accept(ctx, a, cid)
			return err
		},
		"reject": func(h *Handler, ctx context.Context, a coin.PartyID, cid coin.ContractID) error {
			_, err := h.l.Instructions().Reject(ctx, a, cid)
			return err
		},
		"withdraw": func(h *Handler, ctx context.Context, a coin.PartyID, cid coin.ContractID) error {
			_, err := h.l.Instructions().Withdraw(ctx, a, cid)
			return err
		},
	},
}

// uiTransferAction serves POST /offers/{cid}/{action} and POST
// /instructions/{cid}/{action}: with htmx it answers the updated list (422
// with the error inline), without it 303 back to /offers.
func (h *Handler) uiTransferAction(base string) uiFunc {
	return func(w http.ResponseWriter, r *http.Request, s *web.Session) error {
		act, ok := transferActions[base][r.PathValue("action")]
		if !ok {
			return notFound("no such action")
		}
		party := uiParty(r)
		var perr error
		cid, err := coin.ParseContractID(r.PathValue("cid"))
		if err != nil {
			perr = notFound("there is no such offer or instruction; reload the list")
		} else {
			perr = act(h, r.Context(), party, cid)
		}
		status := http.StatusOK
		var msg string
		if perr != nil {
			m, ok := inline(perr)
			if !ok {
				return perr
			}
			msg, status = m, http.StatusUnprocessableEntity
		}
		code := base + "-" + r.PathValue("action")
		if r.PostFormValue("from") == "home" {
			return h.homeAnswered(w, r, s, code, perr == nil, msg, status)
		}
		if !isFragment(r) {
			if perr == nil {
				done(w, r, "/offers", code)
				return nil
			}
		}
		m, err := h.transfersModel(r.Context(), s, party, nil)
		if err != nil {
			return err
		}
		h.named(r.Context(), &m)
		if perr != nil {
			m.Error = msg
		} else {
			w.Header().Set("HX-Trigger", "wallet-changed")
			return render(w, r, status, withFlash(views.TransfersList(m), code))
		}
		if isFragment(r) {
			return render(w, r, status, views.TransfersList(m))
		}
		return render(w, r, status, views.OffersPage(views.Offers{Page: h.offersPage(s), Transfers: m}))
	}
}
