package ui

import (
	"context"
	"errors"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// uiDelegations serves GET /approvals: the user's transfer preapproval and
// merge delegation, each with its undo.
func (h delegationPages) uiDelegations(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.delegationsModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	return render(w, r, http.StatusOK, views.DelegationsPage(m))
}

func (h delegationPages) delegationsModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.Delegations, error) {
	m := views.Delegations{Page: h.page(s, "Approvals", "approvals")}
	p, err := h.w.Provider.Preapproval(ctx, party)
	switch {
	case err == nil:
		m.PreapprovalExpires, m.PreapprovalCID = p.ExpiresAt, string(p.ContractID)
	case !errors.Is(err, fault.ErrNotFound):
		return m, err
	}
	m.FeaturedGrantable = h.l.DevNet()
	right, err := h.w.Featured.Right(ctx, party)
	switch {
	case err == nil:
		m.FeaturedCID = string(right.ContractID)
	case !errors.Is(err, fault.ErrNotFound):
		return m, err
	}
	ds, err := h.w.Delegations.MergeDelegations(ctx, party)
	if err != nil {
		return m, err
	}
	for _, d := range ds {
		// An active delegation outranks an open proposal.
		if d.Status == delegations.MergeActive || m.MergeStatus == "" {
			m.MergeStatus, m.MergeCID = d.Status, string(d.Contract.ContractID)
		}
	}
	return m, nil
}

// uiCreatePreapproval serves POST /preapproval: the user's preapproval,
// provided (and paid) by the validator operator.
func (h delegationPages) uiCreatePreapproval(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	_, exists, err := h.l.Preapprovals().Create(r.Context(), uiParty(r))
	if err != nil {
		return h.delegationsError(w, r, s, err)
	}
	if exists {
		done(w, r, approvalsOrBack(r), "already-preapproved")
		return nil
	}
	done(w, r, approvalsOrBack(r), "preapproved")
	return nil
}

// uiRevokePreapproval serves POST /preapproval/revoke: the undo of
// uiCreatePreapproval; senders must make offers again.
func (h delegationPages) uiRevokePreapproval(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	if err := h.l.Preapprovals().Cancel(r.Context(), uiParty(r)); err != nil {
		return h.delegationsError(w, r, s, err)
	}
	done(w, r, approvalsOrBack(r), "preapproval-revoked")
	return nil
}

// uiProposeMerge serves POST /merge-delegation: propose the merge
// delegation when there is none.
func (h delegationPages) uiProposeMerge(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	if _, err := h.w.Delegations.ProposeMergeDelegation(r.Context(), uiParty(r)); err != nil {
		return h.delegationsError(w, r, s, err)
	}
	done(w, r, "/approvals", "merge-proposed")
	return nil
}

// uiWithdrawMerge serves POST /merge-delegation/withdraw (form field cid):
// the undo of uiProposeMerge, for the proposal or the active delegation.
func (h delegationPages) uiWithdrawMerge(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	cid, err := coin.ParseContractID(r.PostFormValue("cid"))
	if err == nil {
		err = h.w.Delegations.WithdrawMergeDelegation(r.Context(), uiParty(r), cid)
	}
	if err != nil {
		return h.delegationsError(w, r, s, err)
	}
	done(w, r, "/approvals", "merge-withdrawn")
	return nil
}

// uiFeaturedAppRight serves POST /featured-app-right: action "grant"
// self-grants the user's party a featured app right, "cancel" cancels it.
func (h delegationPages) uiFeaturedAppRight(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	var err error
	switch action := r.PostFormValue("action"); action {
	case "grant":
		_, err = h.w.Featured.SelfGrant(r.Context(), uiParty(r))
	case "cancel":
		_, err = h.w.Featured.Cancel(r.Context(), uiParty(r))
	default:
		err = badRequest("unknown action: choose grant or cancel")
	}
	if err != nil {
		return h.delegationsError(w, r, s, err)
	}
	done(w, r, "/approvals", "featured-"+r.PostFormValue("action"))
	return nil
}

func (h delegationPages) delegationsError(w http.ResponseWriter, r *http.Request, s *web.Session, err error) error {
	msg, ok := inline(err)
	if !ok {
		return err
	}
	m, merr := h.delegationsModel(r.Context(), s, uiParty(r))
	if merr != nil {
		return merr
	}
	m.Error = msg
	return render(w, r, http.StatusUnprocessableEntity, views.DelegationsPage(m))
}
