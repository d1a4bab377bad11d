package ledgerapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/damlid"
)

// Commands of the token standard's DvP: AllocationFactory_Allocate on the
// registry's allocation factory, the Allocation choices, and the example
// trading app's templates (create of OTCTradeProposal, its choices and
// OTCTrade_Settle). Each decodes the Daml-JSON argument strictly and
// leaves the choice's rule to the ledger.

// extraArgs is the token standard's ExtraArgs: the registry's choice
// context and metadata; the ledger reads what it needs itself.
type extraArgs struct {
	Context json.RawMessage `json:"context"`
	Meta    json.RawMessage `json:"meta"`
}

// allocate is AllocationFactory_Allocate: the leg's sender (an actAs
// party) locks the leg's amount for the settlement.
func (s *Server) allocate(r *http.Request, actAs []coin.PartyID, factory coin.ContractID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), factory)
	if errors.Is(err, fault.ErrNotFound) || err == nil && (ct.ArchivedOffset != 0 || !apiread.Implements(ct.TemplateID, allocationdata.InterfaceAllocationFactory)) {
		return 0, canton.Err(canton.CodeContractNotFound, "allocation factory %s not found or not active; get the current one from the registry's allocation-factory endpoint", factory)
	} else if err != nil {
		return 0, err
	}
	var arg struct {
		ExpectedAdmin    string                                  `json:"expectedAdmin"`
		Allocation       *allocationdata.AllocationSpecification `json:"allocation"`
		RequestedAt      string                                  `json:"requestedAt"`
		InputHoldingCids []string                                `json:"inputHoldingCids"`
		ExtraArgs        extraArgs                               `json:"extraArgs"`
	}
	if err := decodeArg(raw, &arg); err != nil {
		return 0, err
	}
	if arg.Allocation == nil {
		return 0, canton.Err(canton.CodeMissingField, "choiceArgument.allocation: the allocation is required")
	}
	if dso := string(s.l.DSO()); arg.ExpectedAdmin != dso {
		return 0, canton.Err(canton.CodeInterpretation, "expectedAdmin %q is not the registry's admin %s", arg.ExpectedAdmin, dso)
	}
	if sender := arg.Allocation.TransferLeg.Sender; !slices.Contains(actAs, sender) {
		return 0, canton.Err(canton.CodeAuthorization, "the leg's sender %s must be among actAs %v", sender, actAs)
	}
	inputs, err := parseInputHoldings(arg.InputHoldingCids)
	if err != nil {
		return 0, err
	}
	if err := s.l.CheckInputHoldings(r.Context(), arg.Allocation.TransferLeg.Sender, inputs); err != nil {
		return 0, err
	}
	res, err := s.w.Allocations.Allocate(r.Context(), *arg.Allocation, cmd)
	if err != nil {
		return 0, err
	}
	return res.Offset, nil
}

// allocationMove is Allocation_ExecuteTransfer or _Cancel (by the
// settlement's executor) or _Withdraw (by the sender), made by the first
// actAs party.
func (s *Server) allocationMove(r *http.Request, actAs []coin.PartyID, cid coin.ContractID, move allocationdata.AllocationMove, raw json.RawMessage, cmd commands.Command) (int64, error) {
	var arg struct {
		ExtraArgs extraArgs `json:"extraArgs"`
	}
	if err := decodeArg(raw, &arg); err != nil {
		return 0, err
	}
	res, err := s.w.Allocations.MoveAllocation(r.Context(), actAs[0], cid, move, cmd)
	if errors.Is(err, fault.ErrNotFound) && !errors.Is(err, fault.ErrDuplicate) {
		return 0, canton.Err(canton.CodeContractNotFound, "allocation %s not found, not visible to %s, or no longer pending", cid, actAs[0])
	} else if err != nil {
		return 0, err
	}
	return res.Offset, nil
}

// createCommand is a CreateCommand: only the templates of the command
// table (createRoutes: the trading app's OTCTradeProposal and an app's
// AppPaymentRequest) and the coin's own (coinCreates) may be created.
func (s *Server) createCommand(r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	var cc struct {
		TemplateID      string          `json:"templateId"`
		CreateArguments json.RawMessage `json:"createArguments"`
	}
	if err := jsonv1.Unmarshal(raw, &cc); err != nil {
		return 0, &canton.DecodeError{Status: http.StatusBadRequest, Msg: "commands[0].CreateCommand: " + err.Error()}
	}
	tmpl, err := damlid.Resolve("commands[0].CreateCommand.templateId", cc.TemplateID, damlid.Template)
	if err != nil {
		return 0, err
	}
	if create := createRoutes[tmpl]; create != nil {
		return create(s, r, actAs, cc.CreateArguments, cmd)
	}
	if create := coinCreates[tmpl]; create != nil {
		return create(s, r, actAs, cc.CreateArguments, cmd)
	}
	return 0, canton.Err(canton.CodeUnsupported, "create of %s: this participant runs %s", tmpl, supportedCommands)
}

// createTradeProposal is the CreateCommand of an OTCTradeProposal.
func (s *Server) createTradeProposal(r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	var p allocationdata.OTCTradeProposal
	if err := decodeCreateArgs(raw, &p); err != nil {
		return 0, err
	}
	res, err := s.w.Allocations.ProposeTrade(r.Context(), actAs, p, cmd)
	if err != nil {
		return 0, err
	}
	return res.Offset, nil
}

// tradeChoice exercises a choice of the trading app's templates.
func (s *Server) tradeChoice(r *http.Request, actAs []coin.PartyID, tmpl string, cid coin.ContractID, choice string, raw json.RawMessage, cmd commands.Command) (int64, error) {
	ctx := r.Context()
	var res *allocations.TradeResult
	var err error
	switch {
	case tmpl == allocationdata.TemplateOTCTradeProposal && choice == "OTCTradeProposal_Accept":
		var arg struct {
			Approver coin.PartyID `json:"approver"`
		}
		if err := decodeArg(raw, &arg); err != nil {
			return 0, err
		}
		res, err = s.w.Allocations.AcceptTradeProposal(ctx, actAs, cid, arg.Approver, cmd)
	case tmpl == allocationdata.TemplateOTCTradeProposal && choice == "OTCTradeProposal_Reject":
		var arg struct {
			Trader coin.PartyID `json:"trader"`
		}
		if err := decodeArg(raw, &arg); err != nil {
			return 0, err
		}
		res, err = s.w.Allocations.RejectTradeProposal(ctx, actAs, cid, arg.Trader, cmd)
	case tmpl == allocationdata.TemplateOTCTradeProposal && choice == "OTCTradeProposal_InitiateSettlement":
		var arg struct {
			PrepareUntil string `json:"prepareUntil"`
			SettleBefore string `json:"settleBefore"`
		}
		if err := decodeArg(raw, &arg); err != nil {
			return 0, err
		}
		res, err = s.w.Allocations.InitiateTradeSettlement(ctx, actAs, cid, arg.PrepareUntil, arg.SettleBefore, cmd)
	case tmpl == allocationdata.TemplateOTCTrade && (choice == "OTCTrade_Settle" || choice == "OTCTrade_Cancel"):
		// TextMap (ContractId Allocation, ExtraArgs): a Daml tuple is the
		// record DA.Types:Tuple2 with fields _1 and _2.
		var arg struct {
			AllocationsWithContext map[string]struct {
				Allocation coin.ContractID `json:"_1"`
				ExtraArgs  extraArgs       `json:"_2"`
			} `json:"allocationsWithContext"`
		}
		if err := decodeArg(raw, &arg); err != nil {
			return 0, err
		}
		if len(arg.AllocationsWithContext) > allocationdata.MaxTradeLegs {
			return 0, canton.InvalidArgument("allocationsWithContext: at most %d legs", allocationdata.MaxTradeLegs)
		}
		allocs := map[string]coin.ContractID{}
		for id, a := range arg.AllocationsWithContext {
			allocs[id] = a.Allocation
		}
		if choice == "OTCTrade_Settle" {
			res, err = s.w.Allocations.SettleTrade(ctx, actAs, cid, allocs, cmd)
		} else {
			res, err = s.w.Allocations.CancelTrade(ctx, actAs, cid, allocs, cmd)
		}
	case tmpl == allocationdata.InterfaceAllocationRequest && choice == "AllocationRequest_Reject":
		var arg struct {
			Actor     coin.PartyID `json:"actor"`
			ExtraArgs extraArgs    `json:"extraArgs"`
		}
		if err := decodeArg(raw, &arg); err != nil {
			return 0, err
		}
		res, err = s.w.Allocations.RejectAllocationRequest(ctx, actAs, cid, arg.Actor, cmd)
	case tmpl == allocationdata.InterfaceAllocationRequest && choice == "AllocationRequest_Withdraw":
		var arg struct {
			ExtraArgs extraArgs `json:"extraArgs"`
		}
		if err := decodeArg(raw, &arg); err != nil {
			return 0, err
		}
		res, err = s.w.Allocations.WithdrawAllocationRequest(ctx, actAs, cid, cmd)
	default:
		return 0, canton.Err(canton.CodeUnsupported, "choice %s on %s: this participant runs %s", choice, tmpl, supportedCommands)
	}
	if errors.Is(err, fault.ErrNotFound) && !errors.Is(err, fault.ErrDuplicate) {
		return 0, canton.Err(canton.CodeContractNotFound, "%s %s not found or not active: %v", tmpl, cid, err)
	} else if err != nil {
		return 0, err
	}
	return res.Offset, nil
}
