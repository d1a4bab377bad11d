package ui

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// historyPageSize is the history page's length.
const historyPageSize = 25

// historyKinds are the kinds the history filter offers (ledger.HistoryKinds).
func historyKinds() []string {
	var out []string
	for _, k := range ledger.HistoryKinds() {
		out = append(out, string(k))
	}
	return out
}

// historyFilter reads kind, counterparty and before from the query.
func historyFilter(r *http.Request) (history.Query, error) {
	q := r.URL.Query()
	hq := history.Query{Kind: ledger.HistoryKind(strings.TrimSpace(q.Get("kind")))}
	if hq.Kind != "" && !slices.Contains(ledger.HistoryKinds(), hq.Kind) {
		return hq, badRequest("kind: unknown kind " + strconv.Quote(string(hq.Kind)) + "; choose one from the list")
	}
	if cp := strings.TrimSpace(q.Get("counterparty")); cp != "" {
		p, err := coin.ParsePartyID(cp)
		if err != nil {
			return hq, err
		}
		hq.Counterparty = p
	}
	if b := q.Get("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n <= 0 {
			return hq, badRequest("before: must be a positive entry id")
		}
		hq.BeforeID = n
	}
	return hq, nil
}

func historyHref(path string, hq history.Query, before int64) string {
	v := url.Values{}
	if hq.Kind != "" {
		v.Set("kind", string(hq.Kind))
	}
	if hq.Counterparty != "" {
		v.Set("counterparty", string(hq.Counterparty))
	}
	if before > 0 {
		v.Set("before", strconv.FormatInt(before, 10))
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// uiHistory serves GET /history: newest first, paged by entry id.
func (h *Handler) uiHistory(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m := views.History{Page: h.page(s, "History", "history"), Kinds: historyKinds()}
	m.Kind, m.Counterparty = r.URL.Query().Get("kind"), r.URL.Query().Get("counterparty")
	hq, err := historyFilter(r)
	status := http.StatusOK
	if err != nil {
		msg, _ := inline(err)
		m.Error, status = msg, http.StatusUnprocessableEntity
		hq = history.Query{}
	}
	if hq.BeforeID != 0 { // on the newest page already: no link to it
		m.FirstHref = historyHref("/history", history.Query{Kind: hq.Kind, Counterparty: hq.Counterparty}, 0)
	}
	m.CSVHref = historyHref("/history.csv", history.Query{Kind: hq.Kind, Counterparty: hq.Counterparty}, 0)
	if err == nil {
		hq.PageSize = historyPageSize
		page, err := h.w.History.Page(r.Context(), uiParty(r), hq)
		if err != nil {
			return err
		}
		if page.NextBefore != 0 {
			m.NextBefore = page.NextBefore
			m.NextHref = historyHref("/history", hq, m.NextBefore)
		}
		for _, it := range page.Items {
			m.Rows = append(m.Rows, historyRow(it))
		}
		m.RewardsPartial = page.RewardsPartial
	}
	if isFragment(r) {
		h.named(r.Context(), &m)
		return render(w, r, status, views.HistoryList(m))
	}
	h.named(r.Context(), &m)
	return render(w, r, status, views.HistoryPage(m))
}

func historyRow(it history.Item) views.HistoryRow {
	row := views.HistoryRow{
		ID: it.ID, Label: historyLabel(it.Subtype), At: it.Time, Kind: string(it.Kind), Subtype: it.Subtype,
		Counterparty: views.P(it.Counterparty), Amount: it.Amount.String(), Fees: it.Fees.String(),
		Description: it.Description, Round: int64(it.Round), UpdateID: it.UpdateID,
	}
	if e := it.Reward; e != nil {
		// A reward earned changes no balance until it is collected: its
		// amount is in the description, the row's Amount stays zero.
		row.Label = "Reward earned"
		row.Description = fmt.Sprintf("%s for round %d: %s CC from %s, minted into your balance when it is collected after the round closes.",
			views.RewardKind(e.Kind), e.Round, views.HumanAmount(e.Amount.String()), plural(e.Coupons, "coupon"))
	}
	return row
}

// plural writes "1 coupon", "2 coupons".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// uiHistoryCSV serves GET /history.csv: the whole filtered history.
func (h *Handler) uiHistoryCSV(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	hq, err := historyFilter(r)
	if err != nil {
		return err
	}
	hq.BeforeID = 0
	hq.PageSize = history.MaxPage
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="ccwallet-history.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "time", "round", "kind", "subtype", "amount_cc", "fees_cc", "counterparty", "description"})
	for {
		items, err := h.w.History.List(r.Context(), uiParty(r), hq)
		if err != nil {
			return err
		}
		for _, it := range items {
			// The page's row: the same amounts, from the same function.
			row := historyRow(it)
			_ = cw.Write([]string{
				strconv.FormatInt(it.ID, 10), it.Time.UTC().Format(time.RFC3339), strconv.FormatInt(int64(it.Round), 10),
				string(it.Kind), it.Subtype, row.Amount, row.Fees, row.Counterparty.ID, csvText(it.Description),
			})
		}
		if len(items) < hq.PageSize {
			break
		}
		hq.BeforeID = items[len(items)-1].ID
	}
	cw.Flush()
	return cw.Error()
}

// csvText defuses formula injection: a spreadsheet would run a cell that
// starts with = + - @ as a formula.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// historyLabels name the history's subtypes in words; others show as they
// are.
var historyLabels = map[string]string{
	"P2PPaymentCompleted":                    "Transfer offer paid",
	"TransferOfferRejected":                  "Transfer offer rejected",
	"TransferOfferWithdrawn":                 "Transfer offer withdrawn",
	"TransferPreapprovalSend":                "Direct transfer (preapproved)",
	"TransferPreapprovalCreation":            "Preapproval created",
	"TransferPreapprovalCancelled":           "Preapproval cancelled",
	"CreateTokenStandardTransferInstruction": "Transfer instruction sent",
	"ExtraTrafficPurchase":                   "Traffic bought",
	"TransferInstruction_Accept":             "Transfer instruction accepted",
	"TransferInstruction_Reject":             "Transfer instruction rejected",
	"TransferInstruction_Withdraw":           "Transfer instruction withdrawn",
	"TransferInstruction_Expire":             "Transfer instruction expired",
	"MergeDelegationAccepted":                "Merge delegation active",
	"CollectRewards":                         "Rewards collected",
	// Seen on a devnet with rounds advancing, shown as they were.
	"Onboarded":                            "Wallet created",
	"Mint":                                 "Minted",
	"AmuletExpired":                        "Holding expired as dust",
	"LockedAmuletExpired":                  "Locked holding expired as dust",
	"TransferPreapprovalRenewal":           "Preapproval renewed",
	"ExternalPartyTransfer":                "Transfer (external party)",
	delegations.WalletMergeHistorySubtype:  "Holdings merged",
	ledger.MergeHistorySubtype:             "Holdings merged (merge delegation)",
	delegations.MintingMergeHistorySubtype: "Holdings merged (minting delegation)",
	featured.RightGranted:                  "Featured app right granted",
	featured.RightCancelled:                "Featured app right cancelled",
	"AppPaymentRequest_Accept":             "App payment accepted (coin locked)",
	"AppPaymentRequest_Reject":             "App payment request rejected",
	"AppPaymentRequest_Withdraw":           "App payment request withdrawn by the app",
	"AppPaymentRequest_Expire":             "App payment request expired",
	"AcceptedAppPayment_Collect":           "App payment collected",
	"AcceptedAppPayment_Reject":            "App payment refunded",
	"AcceptedAppPayment_Expire":            "App payment not collected; coin returned",
}

func historyLabel(subtype string) string {
	if l, ok := historyLabels[subtype]; ok {
		return l
	}
	return subtype
}
