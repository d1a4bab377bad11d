package ui

import (
	"context"
	"net/url"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/pending"
	"github.com/ccwallet/ccwallet/views"
)

// offerPages fills the offers page's two offer lists, a page of
// pending.OfferPageSize each, newest first: the incoming list after the
// query's "in" token, the outgoing after its "out" token. Any party can
// send offers, so the page never lists them all at once (issue 38).
func (h *Handler) offerPages(ctx context.Context, m *views.Transfers, party coin.PartyID, q url.Values) error {
	for _, side := range []struct {
		incoming bool
		key      string
		rows     *[]views.OfferRow
		pager    *views.OfferPager
	}{{true, "in", &m.IncomingOffers, &m.IncomingPager}, {false, "out", &m.OutgoingOffers, &m.OutgoingPager}} {
		token := q.Get(side.key)
		p, err := h.w.Pending.OffersPage(ctx, party, side.incoming, token, pending.OfferPageSize)
		if fault.IsValidation(err) {
			// A stale or mangled link: show the newest page.
			token = ""
			p, err = h.w.Pending.OffersPage(ctx, party, side.incoming, "", pending.OfferPageSize)
		}
		if err != nil {
			return err
		}
		for _, o := range p.Offers {
			*side.rows = append(*side.rows, offerRow(o, party))
		}
		*side.pager = views.OfferPager{Shown: len(p.Offers), Total: p.Total}
		if token != "" {
			side.pager.First = "/offers"
		}
		if p.Next != "" {
			side.pager.Next = "/offers?" + url.Values{side.key: {p.Next}}.Encode()
		}
	}
	if err := h.instructionPages(ctx, m, party, q); err != nil {
		return err
	}
	if len(q) > 0 {
		keep := url.Values{}
		for _, k := range []string{"in", "out", "ti-in", "ti-out"} {
			if v := q.Get(k); v != "" {
				keep.Set(k, v)
			}
		}
		if len(keep) > 0 {
			m.Query = "?" + keep.Encode()
		}
	}
	return nil
}

// instructionPages fills m's instruction lists, a page each, as
// offerPages fills the offers' (query keys ti-in and ti-out).
func (h *Handler) instructionPages(ctx context.Context, m *views.Transfers, party coin.PartyID, q url.Values) error {
	for _, side := range []struct {
		dir   pending.Direction
		key   string
		rows  *[]views.OfferRow
		pager *views.OfferPager
	}{{pending.In, "ti-in", &m.IncomingInstructions, &m.IncomingInstructionPager}, {pending.Out, "ti-out", &m.OutgoingInstructions, &m.OutgoingInstructionPager}} {
		token := q.Get(side.key)
		p, err := h.w.Pending.InstructionsPage(ctx, party, side.dir, token, pending.OfferPageSize)
		if fault.IsValidation(err) {
			token = "" // a stale or mangled link: the newest page
			p, err = h.w.Pending.InstructionsPage(ctx, party, side.dir, "", pending.OfferPageSize)
		}
		if err != nil {
			return err
		}
		for _, ti := range p.Instructions {
			*side.rows = append(*side.rows, instructionRow(ti, party))
		}
		*side.pager = views.OfferPager{Shown: len(p.Instructions), Total: p.Total}
		if token != "" {
			side.pager.First = "/offers"
		}
		if p.Next != "" {
			side.pager.Next = "/offers?" + url.Values{side.key: {p.Next}}.Encode()
		}
	}
	return nil
}
