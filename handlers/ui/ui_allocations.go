package ui

import (
	"context"
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// finishedAllocations is how many finished allocations the Allocations
// page lists (the History page has them all).
const finishedAllocations = 10

// uiAllocations serves GET /allocations: the allocation requests of apps
// the user trades in, and its allocations.
func (h *Handler) uiAllocations(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.allocationsModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.AllocationsPage(views.Allocations{Page: h.allocationsPage(s), AllocationsList: m}))
}

// uiAllocationsLive serves GET /allocations/live, the lists live updates
// reload.
func (h *Handler) uiAllocationsLive(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.allocationsModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.AllocationsLive(m))
}

// allocationsPage is the page's layout, with live updates.
func (h *Handler) allocationsPage(s *web.Session) views.Page {
	p := h.page(s, "Allocations", "allocations")
	p.Events = "/events"
	return p
}

func (h *Handler) allocationsModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.AllocationsList, error) {
	b, err := h.l.Balance(ctx, party)
	if err != nil {
		return views.AllocationsList{}, err
	}
	m := views.AllocationsList{CSRF: s.CSRF, Balance: b.EffectiveUnlocked.String()}
	rs, err := h.w.Allocations.AllocationRequestsFor(ctx, party)
	if err != nil {
		return views.AllocationsList{}, err
	}
	for _, r := range rs {
		m.Requests = append(m.Requests, allocationRequestRow(r, party))
	}
	now := h.l.Now()
	pending, err := h.w.Allocations.PendingAllocations(ctx, party)
	if err != nil {
		return views.AllocationsList{}, err
	}
	for _, a := range pending {
		row := allocationRow(a.Spec, a.Contract.ContractID, party)
		settle, err := time.Parse(time.RFC3339Nano, a.Spec.Settlement.SettleBefore)
		if err != nil {
			return views.AllocationsList{}, err
		}
		// Past the deadline the expiry automation may end it.
		row.SettleBefore, row.Overdue = settle, allocations.CheckAllocationMove(a.Spec, allocationdata.AllocationExpire, "", now) == nil
		m.Pending = append(m.Pending, row)
	}
	finished, err := h.w.Allocations.FinishedAllocations(ctx, party, finishedAllocations)
	if err != nil {
		return views.AllocationsList{}, err
	}
	for _, f := range finished {
		row := allocationRow(f.Spec, f.Contract.ContractID, party)
		row.State, row.At = string(f.State), f.At
		m.Finished = append(m.Finished, row)
	}
	return m, nil
}

// allocationRequestRow is request r as party sees it.
func allocationRequestRow(r allocations.AllocationRequest, party coin.PartyID) views.AllocationRequestRow {
	row := views.AllocationRequestRow{
		ContractID: string(r.ContractID), Executor: views.P(r.Executor), RequestedAt: r.RequestedAt,
		AllocateBefore: r.AllocateBefore, SettleBefore: r.SettleBefore, Closed: r.Closed,
	}
	send, receive := coin.Zero, coin.Zero
	for _, leg := range r.Legs {
		mine := leg.Sender == party
		row.Legs = append(row.Legs, views.AllocationLegRow{ID: leg.ID, Sender: views.P(leg.Sender), Receiver: views.P(leg.Receiver),
			Amount: leg.Amount.String(), Mine: mine, Allocated: leg.Allocation != "", ToMe: leg.Receiver == party})
		row.Sends = row.Sends || mine
		if mine && leg.Allocation == "" {
			send = send.Add(leg.Amount)
		}
		if leg.Receiver == party {
			receive = receive.Add(leg.Amount)
		}
	}
	row.Send = send.String()
	if receive.IsPositive() {
		row.Receive = receive.String()
	}
	return row
}

// allocationRow is an allocation of spec as party (its sender or
// receiver) sees it.
func allocationRow(spec allocationdata.AllocationSpecification, cid coin.ContractID, party coin.PartyID) views.AllocationRow {
	leg := spec.TransferLeg
	row := views.AllocationRow{ContractID: string(cid), Incoming: leg.Receiver == party && leg.Sender != party, Counterparty: views.P(leg.Receiver),
		Amount: leg.Amount.String(), Executor: views.P(spec.Settlement.Executor), LegID: spec.TransferLegID}
	if row.Incoming {
		row.Counterparty = views.P(leg.Sender)
	}
	return row
}

// allocationActions are the Allocations page's buttons (POST
// /allocations/{cid}/{action}: cid is the request's for allocate and
// reject, the allocation's for withdraw); doneMessages["allocations-<action>"]
// says what each did. The rules are the ledger's.
var allocationActions = map[string]func(h *Handler, r *http.Request, party coin.PartyID, cid coin.ContractID) error{
	"allocate": func(h *Handler, r *http.Request, p coin.PartyID, cid coin.ContractID) error {
		_, err := h.w.Allocations.AllocateLeg(r.Context(), p, cid, r.PostFormValue("leg"), "")
		return err
	},
	"reject": func(h *Handler, r *http.Request, p coin.PartyID, cid coin.ContractID) error {
		return h.w.Allocations.RejectAllocationRequestAs(r.Context(), p, cid)
	},
	"withdraw": func(h *Handler, r *http.Request, p coin.PartyID, cid coin.ContractID) error {
		_, err := h.w.Allocations.WithdrawAllocationAs(r.Context(), p, cid)
		return err
	},
}

// uiAllocationAction serves POST /allocations/{cid}/{action}: with htmx it
// answers the updated lists (422 with the error inline), without it 303
// back to /allocations (an error: the page with it, 422).
func (h *Handler) uiAllocationAction(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	act, ok := allocationActions[r.PathValue("action")]
	if !ok {
		return notFound("no such action")
	}
	party := uiParty(r)
	var perr error
	if cid, err := coin.ParseContractID(r.PathValue("cid")); err != nil {
		perr = notFound("there is no such allocation or request; reload the page")
	} else {
		perr = act(h, r, party, cid)
	}
	code := "allocations-" + r.PathValue("action")
	status := http.StatusOK
	var msg string
	if perr != nil {
		m, ok := inline(perr)
		if !ok {
			return perr
		}
		msg, status = m, http.StatusUnprocessableEntity
	} else if !isFragment(r) {
		done(w, r, "/allocations", code)
		return nil
	}
	m, err := h.allocationsModel(r.Context(), s, party)
	if err != nil {
		return err
	}
	m.Error = msg
	h.named(r.Context(), &m)
	if isFragment(r) {
		if perr == nil {
			w.Header().Set("HX-Trigger", "wallet-changed")
			return render(w, r, status, withFlash(views.AllocationsListView(m), code))
		}
		return render(w, r, status, views.AllocationsListView(m))
	}
	return render(w, r, status, views.AllocationsPage(views.Allocations{Page: h.allocationsPage(s), AllocationsList: m}))
}
