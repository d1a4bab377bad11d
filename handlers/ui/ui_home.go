package ui

import (
	"cmp"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/pending"
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
	m, err := h.homePageModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.HomePage(m))
}

// uiHomeIncoming serves GET /home/incoming, the home page's incoming
// cards that live updates reload.
func (h *Handler) uiHomeIncoming(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.incomingModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.HomeIncomingCards(m))
}

func (h *Handler) incomingModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.Incoming, error) {
	// The allocation requests are read beside the offers and
	// instructions: each is two short reads, on Home's critical path.
	awaiting := goRead(func() ([]allocations.AllocationRequest, error) { return h.w.Allocations.Awaiting(ctx, party) })
	in, err := h.w.Pending.Incoming(ctx, party)
	requests, rerr := awaiting()
	if err = cmp.Or(err, rerr); err != nil {
		return views.Incoming{}, err
	}
	m := views.Incoming{CSRF: s.CSRF}
	for _, o := range in.Offers[:min(len(in.Offers), homeIncoming)] {
		m.Offers = append(m.Offers, offerRow(o, party))
	}
	for _, ti := range in.Instructions[:min(len(in.Instructions), homeIncoming-len(m.Offers))] {
		m.Instructions = append(m.Instructions, instructionRow(ti, party))
	}
	for _, r := range requests[:min(len(requests), homeIncoming-len(m.Offers)-len(m.Instructions))] {
		m.Allocations = append(m.Allocations, allocationRequestRow(r, party))
	}
	if n := in.OfferCount + len(in.Instructions) + len(requests); n > homeIncoming || n > len(m.Offers)+len(m.Instructions)+len(m.Allocations) {
		m.Total = n
	}
	return m, nil
}

// homeIncoming is how many incoming cards the home page shows at most,
// the newest offers first; the offers page lists them all.
const homeIncoming = 20

// homeAnswered ends an accept or reject from the home page's incoming
// cards (uiTransferAction with from=home): with htmx the cards come back
// with the message (422 with the error), without it a success redirects
// home (saying what happened) and an error shows the home page with it.
func (h *Handler) homeAnswered(w http.ResponseWriter, r *http.Request, s *web.Session, code string, ok bool, errMsg string, status int) error {
	if ok && !isFragment(r) {
		done(w, r, "/", code)
		return nil
	}
	party := uiParty(r)
	in, err := h.incomingModel(r.Context(), s, party)
	if err != nil {
		return err
	}
	if ok {
		in.Message = doneMessage(code)
		// The balance above the cards reloads now, not at the next event.
		w.Header().Set("HX-Trigger", "wallet-changed")
	} else {
		in.Error = errMsg
	}
	if isFragment(r) {
		h.named(r.Context(), &in)
		return render(w, r, status, views.HomeIncoming(in))
	}
	m, err := h.homePageModel(r.Context(), s, party)
	if err != nil {
		return err
	}
	m.Incoming = in
	h.named(r.Context(), &m)
	return render(w, r, status, views.HomePage(m))
}

// uiHomeLive serves GET /home/live, the part of the home page that live
// updates reload.
func (h *Handler) uiHomeLive(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.homeModel(r.Context(), s, uiParty(r))
	if err != nil {
		return err
	}
	// A page with the first-coin card: once there is coin, the card goes
	// and the faucet comes further down, as on a reload.
	if r.URL.Query().Get("first") != "" && !m.FirstRun {
		m.FirstCoinGone = true
		if h.l.DevNet() {
			m.Tap = &views.TapForm{CSRF: s.CSRF}
		}
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.HomeLive(m))
}

// homePageModel is homeModel with what only the whole page shows: the
// incoming cards and, on a development network, the faucet.
func (h *Handler) homePageModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.Home, error) {
	// The parts read side by side: each is a few short reads, and one
	// after another they waited on the database in turn.
	incoming := goRead(func() (views.Incoming, error) { return h.incomingModel(ctx, s, party) })
	outgoing := goRead(func() (views.Outgoing, error) { return h.outgoingModel(ctx, party) })
	m, err := h.homeModel(ctx, s, party)
	in, inErr := incoming()
	out, outErr := outgoing()
	if err = cmp.Or(err, inErr, outErr); err != nil {
		return views.Home{}, err
	}
	m.Incoming, m.Outgoing = in, out
	if h.l.DevNet() {
		m.Tap = &views.TapForm{CSRF: s.CSRF}
		if m.FirstRun {
			m.Tap.Amount = firstTapUSD
		}
	}
	return m, nil
}

// firstTapUSD is what a new wallet's faucet is filled in with (USD).
const firstTapUSD = "100"

// homeOutgoing is how many of the user's own pending sends Home lists.
const homeOutgoing = 5

// outgoingModel is the user's own pending sends, newest first: the
// offers, then the instructions (the Offers page lists them all). Both
// are read a page of what Home shows at a time, with counts, never whole:
// a party may have thousands pending.
func (h *Handler) outgoingModel(ctx context.Context, party coin.PartyID) (views.Outgoing, error) {
	p, err := h.w.Pending.OffersPage(ctx, party, false, "", homeOutgoing)
	if err != nil {
		return views.Outgoing{}, err
	}
	m := views.Outgoing{Total: p.Total}
	for _, o := range p.Offers {
		m.Rows = append(m.Rows, views.OutgoingRow{OfferRow: offerRow(o, party), Kind: "offers"})
	}
	// A page of at least one, for its count, when the offers fill Home.
	ip, err := h.w.Pending.InstructionsPage(ctx, party, pending.Out, "", max(homeOutgoing-len(m.Rows), 1))
	if err != nil {
		return views.Outgoing{}, err
	}
	m.Total += ip.Total
	for _, ti := range ip.Instructions {
		if len(m.Rows) < homeOutgoing {
			m.Rows = append(m.Rows, views.OutgoingRow{OfferRow: instructionRow(ti, party), Kind: "instructions"})
		}
	}
	return m, nil
}

// uiHomeOutgoing serves GET /home/outgoing, the user's pending sends on
// Home, which live updates reload.
func (h *Handler) uiHomeOutgoing(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.outgoingModel(r.Context(), uiParty(r))
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.HomeOutgoing(m))
}

func (h *Handler) homeModel(ctx context.Context, s *web.Session, party coin.PartyID) (views.Home, error) {
	rules := h.l.Rules()
	overview := goRead(func() (holdingsview.Overview, error) {
		return h.w.Holdings.Overview(ctx, party, riskRounds(rules.TickDuration), homeHoldings)
	})
	// One read of the last changes serves the balance chart and the recent
	// activity (its first few), beside the holdings' read.
	changes, changesErr := h.w.History.List(ctx, party, history.Query{PageSize: max(balancePoints, views.HomeRecent)})
	o, err := overview()
	b := o.Balance
	if err = cmp.Or(err, changesErr); err != nil {
		return views.Home{}, err
	}
	recent := changes[:min(len(changes), views.HomeRecent)]
	p := h.page(s, "Home", "home")
	p.Events = "/events"
	m := views.Home{
		Page: p, Party: views.P(party),
		Balance: views.Balance{
			CC: b.EffectiveUnlocked.String(), USD: ledger.CoinToUSD(b.EffectiveUnlocked, b.Price).String(),
			Total: b.EffectiveUnlocked.Add(b.EffectiveLocked).String(), Fees: b.HoldingFees.String(),
			Price: b.Price.String(), Round: int64(b.Round),
		},
	}
	if b.EffectiveLocked.IsPositive() {
		m.Balance.Locked = b.EffectiveLocked.String()
	}
	m.BalanceChart = balanceChart(b, changes)
	roundsPerDay := int64(24 * time.Hour / rules.TickDuration)
	m.Health.Count = b.Count + b.LockedCount
	m.Health.DustRisk = o.AtRisk
	moved := false
	for _, it := range recent {
		m.Recent = append(m.Recent, historyRow(it))
		moved = moved || !it.Amount.IsZero()
	}
	m.FirstRun = m.Health.Count == 0 && !moved
	m.Health.Fragmented = m.Health.Count > fragmentedAbove
	m.Health.FeePerDay = o.FeePerRound.MulInt(roundsPerDay).String()

	// The table lists at most homeHoldings: every one at risk of expiry
	// (small, so last by size, and the ones the user must see), then the
	// largest to fill up, all in the usual largest-first order. The
	// holdings page lists them all.
	risk := atRisk(b.Round, rules.TickDuration)
	riskSlots := min(m.Health.DustRisk, homeHoldings)
	otherSlots := homeHoldings - riskSlots
	m.Holdings = make([]views.HoldingRow, 0, min(len(o.Top), homeHoldings))
	for _, hv := range o.Top {
		if len(m.Holdings) == homeHoldings {
			break
		}
		r := risk(hv)
		switch {
		case r && riskSlots > 0:
			riskSlots--
		case !r && otherSlots > 0:
			otherSlots--
		default:
			continue
		}
		m.Holdings = append(m.Holdings, holdingRow(hv, r))
	}
	return m, nil
}

// homeHoldings is how many holdings the home page lists at most, in its
// details below the balance and activity: a glance (the largest and those
// at risk), with the holdings page a link away. A wallet with thousands
// of small holdings would otherwise send a table of thousands of rows on
// every visit; at 100 rows the table was 29 of the page's 122 KiB
// uncompressed (bench/NOTES.md).
const homeHoldings = 10

// holdingsPageSize is how many holdings a page of /holdings lists.
const holdingsPageSize = 100

// atRisk reports whether a holding, valued at round, becomes dust within
// dustRiskWithin.
func atRisk(round coin.Round, tick time.Duration) func(ledger.HoldingView) bool {
	within := riskRounds(tick)
	return func(hv ledger.HoldingView) bool {
		return hv.ExpiresAtRound > 0 && hv.ExpiresAtRound-round <= within
	}
}

// riskRounds is dustRiskWithin in rounds of tick.
func riskRounds(tick time.Duration) coin.Round { return coin.Round(dustRiskWithin / tick) }

func holdingRow(hv ledger.HoldingView, risk bool) views.HoldingRow {
	return views.HoldingRow{
		ContractID: string(hv.Contract.ContractID), Amount: hv.Effective.String(), Initial: hv.Initial.String(),
		CreatedRound: int64(hv.CreatedRound), AccruedFee: hv.AccruedFee.String(), ExpiresRound: int64(hv.ExpiresAtRound),
		Locked: hv.Locked, DustRisk: risk,
	}
}

// uiHoldings serves GET /holdings?page=N: all of the user's holdings,
// largest first, holdingsPageSize a page (the home page lists only the
// largest). A page past the end shows the last one.
func (h *Handler) uiHoldings(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	page := 1
	if v := r.URL.Query().Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return badRequest("page: must be a whole number from 1")
		}
		page = n
	}
	b, hs, err := h.w.Holdings.BalanceAndHoldings(r.Context(), uiParty(r))
	if err != nil {
		return err
	}
	risk := atRisk(b.Round, h.l.Rules().TickDuration)
	m := views.Holdings{Page: h.page(s, "Holdings", "holdings"), Total: len(hs)}
	for _, hv := range hs {
		if risk(hv) {
			m.DustRisk++
		}
	}
	last := max(1, (len(hs)+holdingsPageSize-1)/holdingsPageSize)
	page = min(page, last)
	from, to := (page-1)*holdingsPageSize, min(page*holdingsPageSize, len(hs))
	for _, hv := range hs[from:to] {
		m.Rows = append(m.Rows, holdingRow(hv, risk(hv)))
	}
	m.From, m.To = from+1, to
	m.SizeChart = sizeChart(hs)
	if page > 1 {
		m.PrevHref = "/holdings?page=" + strconv.Itoa(page-1)
	}
	if page < last {
		m.NextHref = "/holdings?page=" + strconv.Itoa(page+1)
	}
	return render(w, r, http.StatusOK, views.HoldingsPage(m))
}

// uiTap serves POST /tap (development network): amount in USD, as the
// JSON API's tap. Errors show next to the form with 422.
func (h *Handler) uiTap(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	f := views.TapForm{CSRF: s.CSRF, Amount: strings.TrimSpace(r.PostFormValue("amount"))}
	_, err := h.tapAmount(r.Context(), uiParty(r), f.Amount)
	if err != nil {
		msg, ok := inline(err)
		if !ok {
			return err
		}
		f.Error = msg
		if isFragment(r) {
			return render(w, r, http.StatusUnprocessableEntity, views.TapFormView(f))
		}
		m, merr := h.homePageModel(r.Context(), s, uiParty(r))
		if merr != nil {
			return merr
		}
		m.Tap = &f
		h.named(r.Context(), &m)
		return render(w, r, http.StatusUnprocessableEntity, views.HomePage(m))
	}
	if isFragment(r) {
		// Tell the live part of the page to reload now, not at the next event.
		w.Header().Set("HX-Trigger", "wallet-changed")
		return render(w, r, http.StatusOK, withFlash(views.TapFormView(views.TapForm{CSRF: s.CSRF}), "tapped"))
	}
	done(w, r, "/", "tapped")
	return nil
}

func (h *Handler) tapAmount(ctx context.Context, party coin.PartyID, amount string) (devnet.TapResult, error) {
	if amount == "" {
		return devnet.TapResult{}, badRequest("amount: enter an amount in USD")
	}
	a, err := coin.ParseAmount(amount)
	if err != nil {
		return devnet.TapResult{}, err
	}
	return devnet.Tap(ctx, h.l, party, a, "")
}
