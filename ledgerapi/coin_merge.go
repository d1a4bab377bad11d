package ledgerapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// Merge delegations as the wallet SDK drives them: the owner's
// MergeDelegationProposal, the operator's acceptance and
// BatchMergeUtility, and its merges (coinChoices lists them).

// createMergeProposal is the CreateCommand of a MergeDelegationProposal,
// signed by the delegation's owner.
func (s *Server) createMergeProposal(r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	var arg struct {
		Delegation *struct {
			Operator string          `json:"operator"`
			Owner    string          `json:"owner"`
			Meta     json.RawMessage `json:"meta"`
		} `json:"delegation"`
	}
	if err := decodeArg(raw, &arg); err != nil {
		return 0, err
	}
	if arg.Delegation == nil {
		return 0, canton.Err(canton.CodeMissingField, "createArguments.delegation: the delegation is required")
	}
	owner, err := canton.ParseParty("createArguments.delegation.owner", arg.Delegation.Owner)
	if err != nil {
		return 0, err
	}
	operator, err := canton.ParseParty("createArguments.delegation.operator", arg.Delegation.Operator)
	if err != nil {
		return 0, err
	}
	if err := requireController("the owner", owner, actAs); err != nil {
		return 0, err
	}
	d, err := s.w.Delegations.ProposeMergeDelegationTo(r.Context(), owner, operator, cmd)
	if err != nil {
		return 0, err
	}
	return s.offsetOf(r, d.Contract.ContractID)
}

// createBatchMergeUtility is the CreateCommand of the operator's
// BatchMergeUtility.
func (s *Server) createBatchMergeUtility(r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	var arg struct {
		Operator string `json:"operator"`
	}
	if err := decodeArg(raw, &arg); err != nil {
		return 0, err
	}
	operator, err := canton.ParseParty("createArguments.operator", arg.Operator)
	if err != nil {
		return 0, err
	}
	if err := requireController("the operator", operator, actAs); err != nil {
		return 0, err
	}
	cid, err := s.w.Delegations.CreateBatchMergeUtility(r.Context(), operator, cmd)
	if err != nil {
		return 0, err
	}
	return s.offsetOf(r, cid)
}

// acceptMergeProposal is MergeDelegationProposal_Accept by the operator
// (the first actAs party).
func (s *Server) acceptMergeProposal(r *http.Request, sb *submission) (int64, error) {
	if err := decodeArg(sb.ex.ChoiceArgument, &struct{}{}); err != nil {
		return 0, err
	}
	d, err := s.w.Delegations.AcceptMergeDelegationAs(r.Context(), sb.actAs[0], sb.cid, sb.cmd)
	switch {
	case errors.Is(err, fault.ErrForbidden):
		return 0, canton.Err(canton.CodeAuthorization, "%v", err)
	case errors.Is(err, fault.ErrNotFound) && !errors.Is(err, fault.ErrDuplicate), errors.Is(err, fault.ErrConflict) && !errors.Is(err, fault.ErrRequirement):
		return 0, canton.Err(canton.CodeContractNotFound, "merge delegation proposal %s not found or not active", sb.cid)
	case err != nil:
		return 0, err
	}
	return s.offsetOf(r, d.Contract.ContractID)
}

// mergeArg is MergeDelegation_Merge's argument: the self-transfer through
// the transfer factory whose inputs are merged.
type mergeArg struct {
	OptMergeTransfer *struct {
		FactoryCid string          `json:"factoryCid"`
		ChoiceArg  json.RawMessage `json:"choiceArg"`
	} `json:"optMergeTransfer"`
}

// delegatedMergeOf checks one merge's argument: a self-transfer of the
// instrument by the holdings' owner, through the registry's factory.
func (s *Server) delegatedMergeOf(r *http.Request, field string, delegation coin.ContractID, raw json.RawMessage) (delegations.DelegatedMerge, error) {
	var arg mergeArg
	if err := decodeArg(raw, &arg); err != nil {
		return delegations.DelegatedMerge{}, err
	}
	if arg.OptMergeTransfer == nil {
		return delegations.DelegatedMerge{}, canton.Err(canton.CodeMissingField, "%s.optMergeTransfer: this participant merges by a self-transfer; give it", field)
	}
	factory, err := coin.ParseContractID(arg.OptMergeTransfer.FactoryCid)
	if err != nil {
		return delegations.DelegatedMerge{}, canton.InvalidArgument("%s.optMergeTransfer.factoryCid: %v", field, err)
	}
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), factory)
	if errors.Is(err, fault.ErrNotFound) || err == nil && (ct.ArchivedOffset != 0 || !apiread.Implements(ct.TemplateID, apiread.InterfaceTransferFactory)) {
		return delegations.DelegatedMerge{}, canton.Err(canton.CodeContractNotFound, "%s: transfer factory %s not found or not active", field, factory)
	} else if err != nil {
		return delegations.DelegatedMerge{}, err
	}
	// The transfer's argument is the token standard's, optional fields
	// (lock) included: only what the merge needs is read.
	var tr transferArg
	if err := jsonv1.Unmarshal(arg.OptMergeTransfer.ChoiceArg, &tr); err != nil || tr.Transfer == nil {
		return delegations.DelegatedMerge{}, canton.InvalidArgument("%s.optMergeTransfer.choiceArg: want TransferFactory_Transfer's argument", field)
	}
	dso := string(s.l.DSO())
	if tr.ExpectedAdmin != dso || tr.Transfer.InstrumentID.Admin != dso || tr.Transfer.InstrumentID.ID != ledger.InstrumentID {
		return delegations.DelegatedMerge{}, canton.Err(canton.CodeInterpretation, "%s: the transfer is not of this registry's instrument %s/%s", field, dso, ledger.InstrumentID)
	}
	if tr.Transfer.Sender != tr.Transfer.Receiver {
		return delegations.DelegatedMerge{}, canton.Err(canton.CodeInterpretation, "%s: a merge is a self-transfer; the sender %s is not the receiver %s", field, tr.Transfer.Sender, tr.Transfer.Receiver)
	}
	m := delegations.DelegatedMerge{Delegation: delegation}
	for i, h := range tr.Transfer.InputHoldingCids {
		cid, err := coin.ParseContractID(h)
		if err != nil {
			return delegations.DelegatedMerge{}, canton.InvalidArgument("%s.optMergeTransfer.choiceArg.transfer.inputHoldingCids[%d]: %v", field, i, err)
		}
		m.Inputs = append(m.Inputs, cid)
	}
	return m, nil
}

// merged runs delegated merges by the operator (the first actAs party).
func (s *Server) merged(r *http.Request, sb *submission, utility coin.ContractID, calls []delegations.DelegatedMerge) (int64, error) {
	off, err := s.w.Delegations.MergeByDelegation(r.Context(), sb.actAs[0], utility, calls, sb.cmd)
	if errors.Is(err, fault.ErrForbidden) {
		return 0, canton.Err(canton.CodeAuthorization, "%v", err)
	}
	return off, err
}

// delegatedMerge is MergeDelegation_Merge by the operator.
func (s *Server) delegatedMerge(r *http.Request, sb *submission) (int64, error) {
	m, err := s.delegatedMergeOf(r, "choiceArgument", sb.cid, sb.ex.ChoiceArgument)
	if err != nil {
		return 0, err
	}
	return s.merged(r, sb, "", []delegations.DelegatedMerge{m})
}

// batchMerge is BatchMergeUtility_BatchMerge by the operator: each merge
// call is a MergeDelegation_Merge, all in one transaction.
func (s *Server) batchMerge(r *http.Request, sb *submission) (int64, error) {
	var arg struct {
		MergeCalls []struct {
			DelegationCid string          `json:"delegationCid"`
			ChoiceArg     json.RawMessage `json:"choiceArg"`
		} `json:"mergeCalls"`
	}
	if err := decodeArg(sb.ex.ChoiceArgument, &arg); err != nil {
		return 0, err
	}
	calls := make([]delegations.DelegatedMerge, 0, len(arg.MergeCalls))
	for i, c := range arg.MergeCalls {
		field := "choiceArgument.mergeCalls[" + strconv.Itoa(i) + "]"
		d, err := coin.ParseContractID(c.DelegationCid)
		if err != nil {
			return 0, canton.InvalidArgument("%s.delegationCid: %v", field, err)
		}
		m, err := s.delegatedMergeOf(r, field+".choiceArg", d, c.ChoiceArg)
		if err != nil {
			return 0, err
		}
		calls = append(calls, m)
	}
	return s.merged(r, sb, sb.cid, calls)
}
