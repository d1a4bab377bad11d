package ui

import (
	"context"
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// delegateActivityShown is how many of a delegate's latest actions the
// delegations page shows per beneficiary.
const delegateActivityShown = 5

// mintingActions are the buttons of the delegations page: the ledger call
// of each; doneMessages["delegations-<action>"] says what it did.
var mintingActions = map[string]func(dg *delegations.Service, ctx context.Context, delegate coin.PartyID, cid coin.ContractID) error{
	"accept": func(dg *delegations.Service, ctx context.Context, d coin.PartyID, cid coin.ContractID) error {
		_, err := dg.AcceptMintingDelegationProposal(ctx, d, cid)
		return err
	},
	"reject":   (*delegations.Service).RejectMintingDelegationProposal,
	"withdraw": (*delegations.Service).WithdrawMintingDelegation,
}

// uiMintingDelegations serves GET /delegations.
func (h adminPages) uiMintingDelegations(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.mintingDelegationsModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.MintingDelegationsPage(m))
}

// uiMintingDelegationAction serves POST /delegations/{cid}/{action}: on
// success 303 back to the page with its flash; a proposal or delegation
// that is gone, expired or not the user's is shown inline with 422.
func (h adminPages) uiMintingDelegationAction(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	action := r.PathValue("action")
	act, ok := mintingActions[action]
	if !ok {
		return notFound("no such action")
	}
	party := uiParty(r)
	cid, err := coin.ParseContractID(r.PathValue("cid"))
	if err != nil {
		err = notFound("there is no such proposal or delegation; reload the page")
	} else {
		err = act(h.w.Delegations, r.Context(), party, cid)
	}
	if err == nil {
		done(w, r, "/delegations", "delegations-"+action)
		return nil
	}
	msg, ok := inline(err)
	if !ok {
		return err
	}
	m, merr := h.mintingDelegationsModel(r.Context(), s, party)
	if merr != nil {
		return merr
	}
	m.Error = msg
	h.named(r.Context(), &m)
	return render(w, r, http.StatusUnprocessableEntity, views.MintingDelegationsPage(m))
}

func (h adminPages) mintingDelegationsModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.MintingDelegations, error) {
	m := views.MintingDelegations{Page: h.page(s, "Delegations", "delegations")}
	active, err := h.w.Delegations.MintingDelegations(ctx, party)
	if err != nil {
		return m, err
	}
	now := h.l.Now()
	current := map[coin.PartyID]delegations.MintingDelegation{}
	for _, d := range active {
		current[d.Beneficiary] = d
		row := mintingRow(d, now)
		b, err := h.l.Balance(ctx, d.Beneficiary)
		if err != nil {
			return m, err
		}
		row.Holdings = b.Count
		acts, err := h.w.Delegations.DelegateActivity(ctx, d.Beneficiary, delegateActivityShown)
		if err != nil {
			return m, err
		}
		for _, a := range acts {
			row.Activity = append(row.Activity, delegateActivityRow(a))
		}
		m.Active = append(m.Active, row)
	}
	ps, err := h.w.Delegations.MintingDelegationProposals(ctx, party)
	if err != nil {
		return m, err
	}
	for _, p := range ps {
		row := mintingRow(p, now)
		if old, ok := current[p.Beneficiary]; ok {
			replaced := mintingRow(old, now)
			row.Replaces = &replaced
		}
		m.Proposals = append(m.Proposals, row)
	}
	return m, nil
}

func mintingRow(d delegations.MintingDelegation, now time.Time) views.MintingDelegationRow {
	return views.MintingDelegationRow{ContractID: string(d.Contract.ContractID), Beneficiary: views.P(d.Beneficiary),
		Expires: d.ExpiresAt, Expired: !d.ExpiresAt.After(now), MergeLimit: d.MergeLimit}
}

// delegateActivityRow is one history row of a delegate's work: its
// description says what was done ("minted 3 reward coupons", "merged 4
// holdings"); minting also shows the amount it added (a merge adds none).
func delegateActivityRow(it history.Item) views.DelegateActivityRow {
	row := views.DelegateActivityRow{Time: it.Time, What: it.Description}
	if it.Amount.IsPositive() {
		row.Amount = it.Amount.String()
	}
	return row
}
