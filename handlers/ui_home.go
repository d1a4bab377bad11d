package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// fragmentedAbove is the holding count above which the wallet suggests
// merging: the merge automation's threshold (mission 1.5).
const fragmentedAbove = 10

// dustRiskWithin is how close to expiry a holding is marked at risk.
const dustRiskWithin = 24 * time.Hour

// uiHome serves the home page (GET / for an onboarded user).
func (h *Handler) uiHome(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.homeModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	if h.l.DevNet() {
		m.Tap = &views.TapForm{CSRF: s.CSRF}
	}
	return render(w, r, http.StatusOK, views.HomePage(m))
}

// uiHomeLive serves GET /home/live, the part of the home page that live
// updates reload.
func (h *Handler) uiHomeLive(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.homeModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	return render(w, r, http.StatusOK, views.HomeLive(m))
}

func (h *Handler) homeModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.Home, error) {
	b, hs, err := h.l.BalanceAndHoldings(ctx, party)
	if err != nil {
		return views.Home{}, err
	}
	round := b.Round
	p := h.page(s, "Wallet", "home")
	p.Events = "/events"
	m := views.Home{
		Page: p, Party: string(party),
		Balance: views.Balance{
			CC: b.EffectiveUnlocked.String(), USD: ledger.CoinToUSD(b.EffectiveUnlocked, b.Price).String(),
			Price: b.Price.String(), Round: int64(b.Round),
		},
	}
	if b.EffectiveLocked.IsPositive() {
		m.Balance.Locked = b.EffectiveLocked.String()
	}
	rules := h.l.Rules()
	roundsPerDay := int64(24 * time.Hour / rules.TickDuration)
	riskRounds := coin.Round(dustRiskWithin / rules.TickDuration)
	feePerRound := coin.Zero
	for _, hv := range hs {
		row := views.HoldingRow{
			ContractID: string(hv.Contract.ContractID), Amount: hv.Effective.String(), Initial: hv.Initial.String(),
			CreatedRound: int64(hv.CreatedRound), AccruedFee: hv.AccruedFee.String(), ExpiresRound: int64(hv.ExpiresAtRound),
			Locked: hv.Locked,
		}
		if hv.ExpiresAtRound > 0 && hv.ExpiresAtRound-round <= riskRounds {
			row.DustRisk = true
			m.Health.DustRisk++
		}
		if hv.Effective.IsPositive() {
			feePerRound = feePerRound.Add(hv.RatePerRound)
		}
		m.Holdings = append(m.Holdings, row)
	}
	m.Health.Count = len(hs)
	m.Health.Fragmented = len(hs) > fragmentedAbove
	m.Health.FeePerDay = feePerRound.MulInt(roundsPerDay).String()
	return m, nil
}

// uiTap serves POST /tap (development network): amount in USD, as the
// JSON API's tap. Errors show next to the form with 422.
func (h *Handler) uiTap(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	f := views.TapForm{CSRF: s.CSRF, Amount: strings.TrimSpace(r.PostFormValue("amount"))}
	res, err := h.tapAmount(r.Context(), uiParty(r), f.Amount)
	if err != nil {
		msg, ok := inline(err)
		if !ok {
			return err
		}
		f.Error = msg
		if isFragment(r) {
			return render(w, r, http.StatusUnprocessableEntity, views.TapFormView(f))
		}
		m, merr := h.homeModel(r.Context(), s, uiParty(r))
		if merr != nil {
			return merr
		}
		m.Tap = &f
		return render(w, r, http.StatusUnprocessableEntity, views.HomePage(m))
	}
	if isFragment(r) {
		// Tell the live part of the page to reload now, not at the next event.
		w.Header().Set("HX-Trigger", "wallet-changed")
		return render(w, r, http.StatusOK, views.TapFormView(views.TapForm{CSRF: s.CSRF, Message: "Received " + res.Amount.String() + " CC."}))
	}
	redirect(w, r, "/")
	return nil
}

func (h *Handler) tapAmount(ctx context.Context, party coin.PartyID, amount string) (ledger.TapResult, error) {
	if amount == "" {
		return ledger.TapResult{}, badRequest("amount: enter an amount in USD")
	}
	a, err := coin.ParseAmount(amount)
	if err != nil {
		return ledger.TapResult{}, err
	}
	return h.l.Tap(ctx, party, a, "")
}
