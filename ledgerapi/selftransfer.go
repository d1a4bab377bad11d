package ledgerapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/selftransfer"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// Self-transfers: TransferFactory_Transfer whose receiver is its sender
// (transfer kind self), how the wallet SDK merges holdings. ledger/selftransfer
// runs it; prepare checks it first (its Check), so a refusal comes before
// the party signs.

// selfTransferRequest is the ledger's request for the transfer in arg,
// sent by owner as command cmd (its key the tracking id; none at
// prepare).
func selfTransferRequest(arg *transferArg, owner coin.PartyID, cmd commands.Command) (selftransfer.Request, error) {
	tr := arg.Transfer
	before, err := time.Parse(time.RFC3339Nano, tr.ExecuteBefore)
	if err != nil {
		return selftransfer.Request{}, canton.InvalidArgument("transfer.executeBefore: want an ISO 8601 timestamp, not %q", tr.ExecuteBefore)
	}
	req := selftransfer.Request{Owner: owner, Amount: tr.Amount, ExecuteBefore: before, TrackingID: cmd.Key, Completion: cmd.Completion,
		Description: tr.Meta.Values[ledger.MetaReason]}
	for i, s := range tr.InputHoldingCids {
		cid, err := coin.ParseContractID(s)
		if err != nil {
			return req, canton.InvalidArgument("transfer.inputHoldingCids[%d]: %v", i, err)
		}
		req.Inputs = append(req.Inputs, cid)
	}
	return req, nil
}

// runSelfTransfer runs the self-transfer and returns its update's offset.
func (s *Server) runSelfTransfer(r *http.Request, sb *submission, arg *transferArg, owner coin.PartyID) (int64, error) {
	req, err := selfTransferRequest(arg, owner, sb.cmd)
	if err != nil {
		return 0, err
	}
	res, err := s.w.SelfTransfer.Run(r.Context(), req)
	if err != nil {
		return 0, err
	}
	made := coin.ContractID("")
	if len(res.ReceiverHoldingCIDs) > 0 {
		made = res.ReceiverHoldingCIDs[0]
	} else if len(res.SenderChangeCIDs) > 0 {
		made = res.SenderChangeCIDs[0]
	}
	return s.offsetOf(r, made)
}

// precheck refuses at prepare what execute would refuse about the
// command's argument: its strict decoding and, for a self-transfer, the
// ledger's rule.
func (s *Server) precheck(r *http.Request, party coin.PartyID, cmd map[string]json.RawMessage) error {
	raw, ok := cmd["ExerciseCommand"]
	if !ok {
		return nil
	}
	var ex canton.ExerciseCommand
	if err := jsonv1.Unmarshal(raw, &ex); err != nil || ex.Choice != "TransferFactory_Transfer" {
		return nil
	}
	var arg transferArg
	if err := decodeArg(ex.ChoiceArgument, &arg); err != nil {
		return err
	}
	if arg.Transfer == nil || arg.Transfer.Sender != arg.Transfer.Receiver || arg.Transfer.Sender != string(party) {
		return nil
	}
	req, err := selfTransferRequest(&arg, party, commands.Command{})
	if err != nil {
		return err
	}
	return s.w.SelfTransfer.Check(r.Context(), req)
}
