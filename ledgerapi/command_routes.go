package ledgerapi

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/payments"
)

// The Ledger API's command table: what a submission may exercise or
// create, and how each runs. Submit's dispatch (Server.run), the checks
// of submit and of the interactive submission (servedChoice) and the list
// the refusals quote (supportedCommands) all read it; the coin's own
// choices and creates are coinChoices and coinCreates (coin_choices.go).

// commandRoute is the choices a submission may exercise on target (an
// interface or template id) and how they run.
type commandRoute struct {
	target  string
	choices []string
	// note follows the target in supportedCommands.
	note string
	// anyChoice: run refuses the choices it does not serve itself, after
	// the submission was accepted for running, so the refusal is a
	// completion (the trading app's and app payments' dispatch).
	anyChoice bool
	// notPrepared: the interactive submission does not prepare it.
	notPrepared bool
	run         func(s *Server, r *http.Request, sb *submission) (int64, error)
}

// createRoute is a template a CreateCommand may create besides the
// coin's own (coinCreates).
type createRoute = func(s *Server, r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error)

var (
	// commandRoutes are the exercised choices, besides the coin's own.
	commandRoutes []commandRoute
	// createRoutes are the templates a CreateCommand may create, besides
	// the coin's own.
	createRoutes map[string]createRoute
	// supportedCommands says what a submission may be, from the tables.
	supportedCommands string
)

// The tables are filled in init: their runs quote supportedCommands,
// which is made from them.
func init() {
	trade := func(s *Server, r *http.Request, sb *submission) (int64, error) {
		return s.tradeChoice(r, sb.actAs, sb.iface, sb.cid, sb.ex.Choice, sb.ex.ChoiceArgument, sb.cmd)
	}
	appPayment := func(s *Server, r *http.Request, sb *submission) (int64, error) {
		return s.appPaymentChoice(r, sb.actAs, sb.iface, sb.cid, sb.ex.Choice, sb.ex.ChoiceArgument, sb.cmd)
	}
	commandRoutes = []commandRoute{
		{target: apiread.InterfaceTransferFactory, choices: []string{"TransferFactory_Transfer"}, note: " (the registry's transfer factory)",
			run: (*Server).transferFactoryTransfer},
		{target: apiread.InterfaceTransferInstruction, choices: slices.Sorted(maps.Keys(instructionChoices)),
			run: func(s *Server, r *http.Request, sb *submission) (int64, error) {
				return s.instructionMove(r, sb.actAs, sb.cid, instructionChoices[sb.ex.Choice], sb.cmd)
			}},
		{target: ledger.TemplateTransferPreapproval, choices: []string{"TransferPreapproval_Send"},
			run: func(s *Server, r *http.Request, sb *submission) (int64, error) {
				return s.preapprovalSend(r, sb.actAs, sb.cid, sb.ex.ChoiceArgument, sb.cmd)
			}},
		{target: allocationdata.InterfaceAllocationFactory, choices: []string{"AllocationFactory_Allocate"},
			run: func(s *Server, r *http.Request, sb *submission) (int64, error) {
				return s.allocate(r, sb.actAs, sb.cid, sb.ex.ChoiceArgument, sb.cmd)
			}},
		{target: allocationdata.InterfaceAllocation, choices: slices.Sorted(maps.Keys(allocationChoices)),
			run: func(s *Server, r *http.Request, sb *submission) (int64, error) {
				return s.allocationMove(r, sb.actAs, sb.cid, allocationChoices[sb.ex.Choice], sb.ex.ChoiceArgument, sb.cmd)
			}},
		// Served, though no allocation instruction is ever pending here:
		// each names a contract that is not one (allocinstr.go).
		{target: apiread.InterfaceAllocationInstruction, choices: []string{"AllocationInstruction_Withdraw", "AllocationInstruction_Update"},
			note: " (none is ever pending)",
			run: func(_ *Server, _ *http.Request, sb *submission) (int64, error) {
				return 0, allocationInstructionNotFound(sb.cid)
			}},
		{target: allocationdata.TemplateOTCTradeProposal, anyChoice: true, run: trade,
			choices: []string{"OTCTradeProposal_Accept", "OTCTradeProposal_Reject", "OTCTradeProposal_InitiateSettlement"}},
		{target: allocationdata.TemplateOTCTrade, anyChoice: true, run: trade, choices: []string{"OTCTrade_Settle", "OTCTrade_Cancel"}},
		{target: allocationdata.InterfaceAllocationRequest, anyChoice: true, run: trade,
			choices: []string{"AllocationRequest_Reject", "AllocationRequest_Withdraw"}},
		{target: payments.TemplateAppPaymentRequest, anyChoice: true, notPrepared: true, run: appPayment,
			choices: []string{"AppPaymentRequest_Accept", "AppPaymentRequest_Reject", "AppPaymentRequest_Withdraw"}},
		{target: payments.TemplateAcceptedAppPayment, anyChoice: true, notPrepared: true, run: appPayment,
			choices: slices.Sorted(maps.Keys(acceptedAppPaymentChoices))},
	}
	createRoutes = map[string]createRoute{
		allocationdata.TemplateOTCTradeProposal: (*Server).createTradeProposal,
		payments.TemplateAppPaymentRequest:      (*Server).createAppPaymentRequest,
	}
	supportedCommands = commandList()
}

// routeOf is the route of choice on target, or nil: an exact choice, else
// a target whose run refuses the rest itself.
func routeOf(target, choice string) *commandRoute {
	var fallback *commandRoute
	for i := range commandRoutes {
		rt := &commandRoutes[i]
		if rt.target != target {
			continue
		}
		if slices.Contains(rt.choices, choice) {
			return rt
		}
		if rt.anyChoice && fallback == nil {
			fallback = rt
		}
	}
	return fallback
}

// servedChoice reports whether the interactive submission prepares
// choice on target (an interface or template id), as submit runs it.
func servedChoice(target, choice string) bool {
	if coinChoiceOf(target, choice) != nil {
		return true
	}
	rt := routeOf(target, choice)
	return rt != nil && !rt.notPrepared
}

// preparedCreate reports whether the interactive submission prepares a
// CreateCommand of tmpl: the trading app's proposal and the coin's own.
func preparedCreate(tmpl string) bool {
	return tmpl == allocationdata.TemplateOTCTradeProposal || coinCreates[tmpl] != nil
}

// commandList is supportedCommands: "one ExerciseCommand of
// TransferFactory_Transfer on ..., TransferInstruction_Accept, _Reject
// or _Withdraw on ...; or one CreateCommand of ...; the coin's own: ...".
func commandList() string {
	parts := make([]string, 0, len(commandRoutes))
	for _, rt := range commandRoutes {
		parts = append(parts, choiceWords(rt.choices)+" on "+rt.target+rt.note)
	}
	return "one ExerciseCommand of " + strings.Join(parts, ", ") +
		"; or one CreateCommand of " + strings.Join(slices.Sorted(maps.Keys(createRoutes)), " or ") +
		"; the coin's own: " + supportedCoinCommands()
}

// choiceWords lists choices of one template, the later ones without the
// template's prefix: "Allocation_ExecuteTransfer, _Withdraw or _Cancel".
func choiceWords(choices []string) string {
	if len(choices) == 0 {
		return ""
	}
	prefix, _, _ := strings.Cut(choices[0], "_")
	words := []string{choices[0]}
	for _, c := range choices[1:] {
		words = append(words, strings.TrimPrefix(c, prefix))
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
