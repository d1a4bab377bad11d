package ledgerapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/payments"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// Commands of app payments (splice-wallet-payments' Payment.daml): an
// app's provider creates an AppPaymentRequest, and collects or refunds
// the AcceptedAppPayment its sender's wallet made; the sender may also
// accept or reject through here. Each decodes the Daml-JSON argument
// strictly and leaves the choice's rule to the ledger.

// acceptedAppPaymentChoices are the AcceptedAppPayment choices served,
// and the ledger's move of each.
var acceptedAppPaymentChoices = map[string]apppayments.AcceptedAppPaymentMove{
	"AcceptedAppPayment_Collect": apppayments.AppPaymentCollect,
	"AcceptedAppPayment_Reject":  apppayments.AppPaymentRefund,
	"AcceptedAppPayment_Expire":  apppayments.AppPaymentExpire,
}

// createAppPaymentRequest is the CreateCommand of an AppPaymentRequest.
func (s *Server) createAppPaymentRequest(r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	var p apppayments.AppPaymentRequest
	if err := decodeCreateArgs(raw, &p); err != nil {
		return 0, err
	}
	res, err := s.w.AppPayments.RequestAppPayment(r.Context(), actAs, p, cmd)
	if err != nil {
		return 0, err
	}
	return res.Offset, nil
}

// appPaymentChoice exercises a choice of AppPaymentRequest or
// AcceptedAppPayment, made by the first actAs party where one party acts.
func (s *Server) appPaymentChoice(r *http.Request, actAs []coin.PartyID, tmpl string, cid coin.ContractID, choice string, raw json.RawMessage, cmd commands.Command) (int64, error) {
	ctx := r.Context()
	var res *apppayments.AppPaymentResult
	var err error
	// The transfer contexts the real choices take are the ledger's own
	// here: the arguments are read for their shape only.
	var arg struct {
		Inputs         json.RawMessage `json:"inputs"`
		Context        json.RawMessage `json:"context"`
		WalletProvider json.RawMessage `json:"walletProvider"`
	}
	if err := decodeArg(raw, &arg); err != nil {
		return 0, err
	}
	switch {
	case tmpl == payments.TemplateAppPaymentRequest && choice == "AppPaymentRequest_Accept":
		res, err = s.w.AppPayments.AcceptAppPayment(ctx, actAs[0], cid, cmd)
	case tmpl == payments.TemplateAppPaymentRequest && choice == "AppPaymentRequest_Reject":
		res, err = s.w.AppPayments.RejectAppPayment(ctx, actAs[0], cid, cmd)
	case tmpl == payments.TemplateAppPaymentRequest && choice == "AppPaymentRequest_Withdraw":
		res, err = s.w.AppPayments.WithdrawAppPayment(ctx, actAs, cid, cmd)
	case tmpl == payments.TemplateAcceptedAppPayment && acceptedAppPaymentChoices[choice] != "":
		res, err = s.w.AppPayments.MoveAcceptedAppPayment(ctx, actAs, cid, acceptedAppPaymentChoices[choice], cmd)
	default:
		return 0, canton.Err(canton.CodeUnsupported, "choice %s on %s: this participant runs %s", choice, tmpl, supportedCommands)
	}
	if errors.Is(err, fault.ErrNotFound) && !errors.Is(err, fault.ErrDuplicate) {
		return 0, canton.Err(canton.CodeContractNotFound, "%s %s not found, not visible to %v, or no longer active", tmpl, cid, actAs)
	} else if err != nil {
		return 0, err
	}
	return res.Offset, nil
}
