package ui

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/traffic"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
	"github.com/google/uuid"
)

// trafficRequestLifetime is how long a purchase request from the page
// stays valid; it completes at once, so this only has to be in the future.
const trafficRequestLifetime = time.Hour

// uiTraffic serves GET /traffic: the form, and with ?tracking= the status
// of that purchase.
func (h *Handler) uiTraffic(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.trafficModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	m.Form = views.TrafficForm{CSRF: s.CSRF, Member: string(h.l.Operator()), Unit: "bytes", Amount: strconv.FormatInt(m.MinBytes, 10)}
	if id := r.URL.Query().Get("tracking"); id != "" {
		st, err := h.w.Traffic.BuyTrafficStatusOf(r.Context(), uiParty(r), id)
		switch {
		case err == nil:
			m.Request = &views.TrafficRequest{TrackingID: id, Status: st.Status, TransactionID: st.TransactionID}
		case errors.Is(err, fault.ErrNotFound):
			m.Request = &views.TrafficRequest{TrackingID: id, Status: "unknown"}
		default:
			return err
		}
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.TrafficPage(m))
}

func (h *Handler) trafficModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.Traffic, error) {
	rules := h.l.Rules()
	m := views.Traffic{Page: h.page(s, "Traffic", "traffic"), MinBytes: rules.MinTopupAmountBytes, PricePerMB: rules.ExtraTrafficPriceUSDPerMB.Short()}
	b, err := h.l.Balance(ctx, party)
	if err != nil {
		return m, err
	}
	m.Balance = b.EffectiveUnlocked.String()
	ts, err := h.w.Traffic.TrafficStatus(ctx, party)
	if err != nil {
		return m, err
	}
	m.Purchased, m.Remaining = ts.Purchased, ts.Remaining
	return m, nil
}

// uiBuyTraffic serves POST /traffic. step=quote shows the price to
// confirm; step=confirm buys and redirects to the request's status.
func (h *Handler) uiBuyTraffic(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	payer := uiParty(r)
	f := views.TrafficForm{CSRF: s.CSRF, Member: strings.TrimSpace(r.PostFormValue("member")),
		Amount: strings.TrimSpace(r.PostFormValue("amount")), Unit: r.PostFormValue("unit"),
		TrackingID: strings.TrimSpace(r.PostFormValue("tracking_id"))}
	m, err := h.trafficModel(r.Context(), s, payer)
	if err != nil {
		return err
	}
	m.Form = f
	member, bytes, q, perr := h.trafficQuote(r.Context(), f)
	if perr == nil && r.PostFormValue("step") == "confirm" {
		if f.TrackingID == "" {
			perr = badRequest("tracking_id: the form is incomplete; start again")
		} else {
			perr = settled(r.Context(), func() error {
				_, err := h.w.Traffic.BuyTraffic(r.Context(), traffic.BuyTrafficRequest{Payer: payer, Member: member,
					SynchronizerID: h.l.SynchronizerID(), Bytes: bytes, ExpiresAt: time.Now().Add(trafficRequestLifetime), TrackingID: f.TrackingID})
				return err
			})
			if errors.Is(perr, fault.ErrDuplicate) {
				perr = nil // a double submit of the confirm step: bought once
			}
			if perr == nil {
				w.Header().Set("HX-Trigger", "wallet-changed")
				done(w, r, "/traffic?tracking="+url.QueryEscape(f.TrackingID), "traffic-bought")
				return nil
			}
		}
	}
	if perr != nil {
		msg, ok := inline(perr)
		if !ok {
			return perr
		}
		m.Form.Error = msg
		h.named(r.Context(), &m)
		return render(w, r, http.StatusUnprocessableEntity, views.TrafficPage(m))
	}
	m.Form.TrackingID = uuid.NewString()
	q.Member = views.P(f.Member)
	m.Quote = &q
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.TrafficPage(m))
}

// trafficQuote checks the form and prices it: an amount in CC becomes the
// most bytes it buys.
func (h *Handler) trafficQuote(ctx context.Context, f views.TrafficForm) (coin.PartyID, int64, views.TrafficQuote, error) {
	var q views.TrafficQuote
	if f.Member == "" {
		return "", 0, q, badRequest("member: enter a party ID hosted by the validator")
	}
	member, err := coin.ParsePartyID(f.Member)
	if err != nil {
		return "", 0, q, badRequest("member: " + err.Error())
	}
	if err := h.l.KnownParty(ctx, member); errors.Is(err, fault.ErrNotFound) {
		return "", 0, q, badRequest("member: no party " + string(member) + " is known on this network; check the ID with the validator")
	} else if err != nil {
		return "", 0, q, err
	}
	var lq traffic.TrafficQuote
	switch f.Unit {
	case "cc":
		cc, err := coin.ParseAmount(f.Amount)
		if err != nil {
			return "", 0, q, badRequest("amount: " + err.Error())
		}
		if !cc.IsPositive() {
			return "", 0, q, badRequest("amount: enter an amount of CC greater than 0")
		}
		lq, err = h.w.Traffic.QuoteTrafficForCoin(ctx, cc)
		if err != nil {
			return "", 0, q, err
		}
	default:
		n, err := strconv.ParseInt(f.Amount, 10, 64)
		if err != nil || n <= 0 {
			return "", 0, q, badRequest("amount: enter a whole number of bytes, such as 200000 (no thousands separators), or choose CC as the unit")
		}
		if lq, err = h.w.Traffic.QuoteTraffic(ctx, n); err != nil {
			return "", 0, q, err
		}
	}
	q = views.TrafficQuote{Bytes: lq.Bytes, CostCC: lq.Cost.String(), CostUS: lq.CostUSD.String(), Price: lq.Price.String()}
	return member, lq.Bytes, q, nil
}
