package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/history"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/web"
)

// subtypeChoices names, per history subtype, the template and choice the
// real wallet's transaction log reports for it (TxLogEntry.scala). Other
// subtypes are reported against AmuletRules with the subtype as choice.
var subtypeChoices = map[string][2]string{
	"P2PPaymentCompleted":          {ledger.TemplateAcceptedTransferOffer, "AcceptedTransferOffer_Complete"},
	"TransferPreapprovalSend":      {ledger.TemplateTransferPreapproval, "TransferPreapproval_Send"},
	"TransferPreapprovalCreation":  {ledger.TemplateAmuletRules, "AmuletRules_CreateTransferPreapproval"},
	"TransferPreapprovalRenewal":   {ledger.TemplateTransferPreapproval, "TransferPreapproval_Renew"},
	"TransferPreapprovalCancelled": {ledger.TemplateTransferPreapproval, "TransferPreapproval_Cancel"},
	"TransferOfferRejected":        {ledger.TemplateTransferOffer, "TransferOffer_Reject"},
	"TransferOfferWithdrawn":       {ledger.TemplateTransferOffer, "TransferOffer_Withdraw"},
	"Tap":                          {ledger.TemplateAmuletRules, "AmuletRules_DevNet_Tap"},
	"Mint":                         {ledger.TemplateAmuletRules, "AmuletRules_Mint"},
	"Transfer":                     {ledger.TemplateAmuletRules, "AmuletRules_Transfer"},
	"Onboarded":                    {ledger.TemplateWalletAppInstall, "WalletAppInstall_Onboarded"},
	"FeaturedAppRightSelfGranted":  {ledger.TemplateWalletAppInstall, "WalletAppInstall_FeaturedAppRights_SelfGrant"},
	"FeaturedAppRightCancelled":    {ledger.TemplateFeaturedAppRight, "FeaturedAppRight_Cancel"},
	// The subscription steps are reported against their templates, the
	// choice being the history subtype.
	"SubscriptionRequest":                      {payments.TemplateSubscriptionRequest, "SubscriptionRequest"},
	"SubscriptionRequest_AcceptAndMakePayment": {payments.TemplateSubscriptionRequest, "SubscriptionRequest_AcceptAndMakePayment"},
	"SubscriptionRequest_Reject":               {payments.TemplateSubscriptionRequest, "SubscriptionRequest_Reject"},
	"SubscriptionRequest_Withdraw":             {payments.TemplateSubscriptionRequest, "SubscriptionRequest_Withdraw"},
	"SubscriptionInitialPayment_Collect":       {payments.TemplateSubscriptionInitialPayment, "SubscriptionInitialPayment_Collect"},
	"SubscriptionInitialPayment_Reject":        {payments.TemplateSubscriptionInitialPayment, "SubscriptionInitialPayment_Reject"},
	"SubscriptionInitialPayment_Expire":        {payments.TemplateSubscriptionInitialPayment, "SubscriptionInitialPayment_Expire"},
	"SubscriptionIdleState_MakePayment":        {payments.TemplateSubscriptionIdleState, "SubscriptionIdleState_MakePayment"},
	"SubscriptionIdleState_CancelSubscription": {payments.TemplateSubscriptionIdleState, "SubscriptionIdleState_CancelSubscription"},
	"SubscriptionIdleState_ExpireSubscription": {payments.TemplateSubscriptionIdleState, "SubscriptionIdleState_ExpireSubscription"},
	"SubscriptionPayment_Collect":              {payments.TemplateSubscriptionPayment, "SubscriptionPayment_Collect"},
	"SubscriptionPayment_Reject":               {payments.TemplateSubscriptionPayment, "SubscriptionPayment_Reject"},
	"SubscriptionPayment_Expire":               {payments.TemplateSubscriptionPayment, "SubscriptionPayment_Expire"},
}

// transactionItem renders a history item in the shape its
// transaction_type requires (wallet-internal.yaml
// ListTransactionsResponseItem).
func transactionItem(party coin.PartyID, operator coin.PartyID, it history.Item) map[string]any {
	sub := map[string]any{"template_id": ledger.TemplateAmuletRules, "choice": it.Subtype}
	if tc, ok := subtypeChoices[it.Subtype]; ok {
		sub["template_id"], sub["choice"] = tc[0], tc[1]
	}
	m := map[string]any{
		"transaction_type": it.Kind, "transaction_subtype": sub,
		"event_id": strconv.FormatInt(it.ID, 10), "date": ledger.FormatTime(it.Time),
	}
	d := it.Details
	// Sender and receivers add up, for party, to the amount the history
	// page and the CSV show (history.Item).
	receivers := make([]map[string]string, 0, len(it.Receivers))
	for _, r := range it.Receivers {
		receivers = append(receivers, map[string]string{"party": string(r.Party), "amount": r.Amount.String()})
	}
	switch it.Kind {
	case ledger.HistoryTransfer:
		provider := d.Provider
		if provider == "" {
			provider = operator
		}
		sender := map[string]string{"party": string(party), "amount": it.Amount.String()}
		if it.Sender != nil {
			sender = map[string]string{"party": string(it.Sender.Party), "amount": it.Sender.Amount.String()}
		}
		zero := coin.Zero.String()
		m["provider"], m["sender"], m["receivers"] = string(provider), sender, receivers
		m["holding_fees"], m["amulet_price"] = d.HoldingFees.String(), d.Price.String()
		m["app_rewards_used"], m["validator_rewards_used"], m["sv_rewards_used"] = zero, zero, zero
		if it.Description != "" {
			m["description"] = it.Description
		}
		if it.Subtype == "CreateTokenStandardTransferInstruction" {
			// The lock the sender's amount includes: its amount is what
			// left, less the fees (ledger.Instructions().Create).
			m["transfer_instruction_receiver"] = string(it.Counterparty)
			m["transfer_instruction_amount"] = it.Amount.Neg().Sub(it.Fees).String()
			if it.Details.Instructed != nil {
				// The lock held the amount and its fee reserve.
				m["transfer_instruction_amount"] = it.Details.Instructed.String()
			}
		}
		if strings.Contains(it.Subtype, "TransferInstruction") {
			m["transfer_instruction_cid"] = string(d.ContractID)
		}
	case ledger.HistoryBalanceChange:
		m["receivers"], m["amulet_price"] = receivers, d.Price.String()
		if strings.HasPrefix(it.Subtype, "TransferInstruction_") {
			m["transfer_instruction_cid"] = string(d.ContractID)
		}
	case ledger.HistoryNotification:
		m["details"] = d.Notification
	default:
		m["transaction_type"] = "unknown"
	}
	return m
}

// listTransactions answers POST /v0/wallet/transactions: the caller's
// history, newest first. begin_after_id is the event_id of the last item
// of the previous page.
func (h *Handler) listTransactions(w http.ResponseWriter, r *http.Request) error {
	var req listTransactionsRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.PageSize == nil {
		return badRequest("page_size: is required")
	}
	if *req.PageSize <= 0 {
		return badRequest("page_size: must be positive")
	}
	q := history.Query{PageSize: int(min(*req.PageSize, history.MaxPage))}
	if req.BeginAfterID != nil && *req.BeginAfterID != "" {
		id, err := strconv.ParseInt(*req.BeginAfterID, 10, 64)
		if err != nil || id <= 0 {
			return badRequest("begin_after_id: " + strconv.Quote(*req.BeginAfterID) + " is not an event_id of this wallet")
		}
		q.BeforeID = id
	}
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	items, err := h.w.History.List(r.Context(), p, q)
	if err != nil {
		return err
	}
	resp := listTransactionsResponse{Items: make([]map[string]any, 0, len(items))}
	for _, it := range items {
		resp.Items = append(resp.Items, transactionItem(p, h.l.Operator(), it))
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}
