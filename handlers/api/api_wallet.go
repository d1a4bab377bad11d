package api

import (
	"net/http"

	ledgerdevnet "github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/web"
)

// userStatus answers GET /v0/wallet/user-status. A caller who has not
// onboarded gets party_id "" and false flags, not an error.
func (h *Handler) userStatus(w http.ResponseWriter, r *http.Request) error {
	u, err := users.Of(h.l).Get(r.Context(), subject(r.Context()))
	if err != nil {
		return err
	}
	resp := userStatusResponse{UserOnboarded: u.Onboarded, UserWalletInstalled: u.WalletInstalled}
	if u.Onboarded {
		resp.PartyID = string(u.Party)
		// Read, not cached with the user: a self-grant shows at once.
		if resp.HasFeaturedAppRight, err = h.w.Featured.IsFeatured(r.Context(), u.Party); err != nil {
			return err
		}
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// getBalance answers GET /v0/wallet/balance.
func (h *Handler) getBalance(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	b, err := h.l.Balance(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, getBalanceResponse{
		Round: int64(b.Round), EffectiveUnlockedQty: b.EffectiveUnlocked.String(),
		EffectiveLockedQty: b.EffectiveLocked.String(), TotalHoldingFees: b.HoldingFees.String(),
	})
}

// listHoldings answers GET /v0/wallet/amulets and its alias /v0/wallet/coins.
func (h *Handler) listHoldings(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	hs, round, err := h.w.Holdings.List(r.Context(), p)
	if err != nil {
		return err
	}
	resp := listResponse{Amulets: []amuletPosition{}, LockedAmulets: []amuletPosition{}}
	for _, hv := range hs {
		pos := amuletPosition{
			Contract: contractWithState(hv.Contract), Round: int64(round),
			AccruedHoldingFee: hv.AccruedFee.String(), EffectiveAmount: hv.Effective.String(),
		}
		if hv.Locked {
			resp.LockedAmulets = append(resp.LockedAmulets, pos)
		} else {
			resp.Amulets = append(resp.Amulets, pos)
		}
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// tap answers POST /v0/wallet/tap (development network only). As on the
// real wallet, amount is in USD.
func (h *Handler) tap(w http.ResponseWriter, r *http.Request) error {
	var req tapRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	amount, err := requiredAmount("amount", req.Amount)
	if err != nil {
		return err
	}
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	res, err := ledgerdevnet.Tap(r.Context(), h.l, p, amount, req.CommandID)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, tapResponse{ContractID: string(res.ContractID)})
}
