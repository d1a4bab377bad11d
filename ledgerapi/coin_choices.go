package ledgerapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/traffic"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/ping"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/damlid"
)

// The coin's own choices, as the wallet SDK builds them (its amulet
// service, ledger and token-standard controllers): the faucet, the
// featured app right and member traffic on AmuletRules, renewing and
// cancelling a TransferPreapproval, creating a
// TransferPreapprovalProposal, and merge delegations (the proposal, its
// acceptance, the operator's BatchMergeUtility and its merges). Each
// decodes the Daml-JSON argument strictly, checks the choice's
// controller is among actAs, and leaves the rule to the ledger.

// coinChoice is a choice on one of the coin's templates this API runs.
type coinChoice struct {
	template, choice string
	// consuming says whether the choice archives its contract.
	consuming bool
	run       func(s *Server, r *http.Request, sb *submission) (int64, error)
}

// coinChoices are the coin's choices served.
var coinChoices = []coinChoice{
	{ledger.TemplateAmuletRules, "AmuletRules_DevNet_Tap", false, (*Server).devnetTap},
	{ledger.TemplateAmuletRules, "AmuletRules_DevNet_FeatureApp", false, (*Server).devnetFeatureApp},
	{ledger.TemplateAmuletRules, "AmuletRules_BuyMemberTraffic", false, (*Server).buyMemberTraffic},
	{ledger.TemplateTransferPreapproval, "TransferPreapproval_Renew", true, (*Server).renewPreapproval},
	{ledger.TemplateTransferPreapproval, "TransferPreapproval_Cancel", true, (*Server).cancelPreapproval},
	{delegations.TemplateMergeDelegationProposal, "MergeDelegationProposal_Accept", true, (*Server).acceptMergeProposal},
	{delegations.TemplateBatchMergeUtility, "BatchMergeUtility_BatchMerge", false, (*Server).batchMerge},
	{delegations.TemplateMergeDelegation, "MergeDelegation_Merge", false, (*Server).delegatedMerge},
	{ledger.TemplateDelegateProxy, "DelegateProxy_TransferFactory_Transfer", false, (*Server).proxyChoice},
	{ledger.TemplateDelegateProxy, "DelegateProxy_TransferInstruction_Accept", false, (*Server).proxyChoice},
	{ledger.TemplateDelegateProxy, "DelegateProxy_TransferInstruction_Reject", false, (*Server).proxyChoice},
	{ledger.TemplateDelegateProxy, "DelegateProxy_TransferInstruction_Withdraw", false, (*Server).proxyChoice},
}

// coinCreates are the coin's templates a CreateCommand may create.
var coinCreates = map[string]func(s *Server, r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error){
	provider.TemplateTransferPreapprovalProposal: (*Server).createPreapprovalProposal,
	ping.TemplatePing:                           createPing(ping.TemplatePing),
	ping.TemplatePingBuiltin:                    createPing(ping.TemplatePingBuiltin),
	delegations.TemplateMergeDelegationProposal: (*Server).createMergeProposal,
	delegations.TemplateBatchMergeUtility:       (*Server).createBatchMergeUtility,
	ledger.TemplateDelegateProxy:                (*Server).createDelegateProxy,
}

// coinChoiceOf is the served choice on template, or nil.
func coinChoiceOf(template, choice string) *coinChoice {
	for i := range coinChoices {
		if c := &coinChoices[i]; c.template == template && c.choice == choice {
			return c
		}
	}
	return nil
}

// coinNonconsuming reports whether choice on template is a served choice
// that leaves its contract active.
func coinNonconsuming(template, choice string) bool {
	c := coinChoiceOf(template, choice)
	return c != nil && !c.consuming
}

// supportedCoinCommands lists the coin's commands, for supportedCommands.
func supportedCoinCommands() string {
	by := map[string][]string{}
	var order []string
	for _, c := range coinChoices {
		if by[c.template] == nil {
			order = append(order, c.template)
		}
		by[c.template] = append(by[c.template], c.choice)
	}
	var parts []string
	for _, t := range order {
		parts = append(parts, strings.Join(by[t], ", ")+" on "+t)
	}
	creates := make([]string, 0, len(coinCreates))
	for t := range coinCreates {
		creates = append(creates, t)
	}
	slices.Sort(creates)
	return strings.Join(parts, "; ") + "; or a CreateCommand of " + strings.Join(creates, ", ")
}

// requireController refuses unless party, the choice's controller, is
// among actAs.
func requireController(field string, party coin.PartyID, actAs []coin.PartyID) error {
	if !slices.Contains(actAs, party) {
		return canton.Err(canton.CodeAuthorization, "%s %s controls the choice and must be among actAs %v", field, party, actAs)
	}
	return nil
}

// devnetOnly renders the ledger's refusal outside a development network
// as the choice's failed requirement.
func devnetOnly(err error) error {
	if errors.Is(err, fault.ErrDisabled) {
		return canton.Err(canton.CodeInterpretation, "Interpretation error: require \"isDevNet flag is true\" failed: %v", err)
	}
	return err
}

// requireRules refuses a contract other than the ledger's AmuletRules.
func (s *Server) requireRules(cid coin.ContractID) error {
	if cid != s.l.RulesContractID() {
		return canton.Err(canton.CodeContractNotFound, "AmuletRules %s not found or not active; use the one Scan's amulet-rules returns (%s)", cid, s.l.RulesContractID())
	}
	return nil
}

// requireOpenRound refuses a contract that is not an active
// OpenMiningRound.
func (s *Server) requireOpenRound(r *http.Request, field, id string) error {
	cid, err := coin.ParseContractID(id)
	if err != nil {
		return canton.InvalidArgument("%s: %v", field, err)
	}
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), cid)
	if errors.Is(err, fault.ErrNotFound) || err == nil && (ct.TemplateID != ledger.TemplateOpenMiningRound || ct.ArchivedOffset != 0) {
		return canton.Err(canton.CodeContractNotFound, "%s: OpenMiningRound %s not found or not active; use Scan's open-and-issuing-mining-rounds", field, cid)
	}
	return err
}

// devnetTap is AmuletRules_DevNet_Tap: receiver taps amount coin.
func (s *Server) devnetTap(r *http.Request, sb *submission) (int64, error) {
	if err := s.requireRules(sb.cid); err != nil {
		return 0, err
	}
	var arg struct {
		Receiver  string      `json:"receiver"`
		Amount    coin.Amount `json:"amount"`
		OpenRound string      `json:"openRound"`
	}
	if err := decodeArg(sb.ex.ChoiceArgument, &arg); err != nil {
		return 0, err
	}
	receiver, err := canton.ParseParty("choiceArgument.receiver", arg.Receiver)
	if err != nil {
		return 0, err
	}
	if err := requireController("the receiver", receiver, sb.actAs); err != nil {
		return 0, err
	}
	if err := s.requireOpenRound(r, "choiceArgument.openRound", arg.OpenRound); err != nil {
		return 0, err
	}
	res, err := devnet.TapCoin(r.Context(), s.l, receiver, arg.Amount, sb.cmd)
	if err != nil {
		return 0, devnetOnly(err)
	}
	return s.offsetOf(r, res.ContractID)
}

// devnetFeatureApp is AmuletRules_DevNet_FeatureApp: provider grants
// itself a featured app right.
func (s *Server) devnetFeatureApp(r *http.Request, sb *submission) (int64, error) {
	if err := s.requireRules(sb.cid); err != nil {
		return 0, err
	}
	var arg struct {
		Provider string `json:"provider"`
	}
	if err := decodeArg(sb.ex.ChoiceArgument, &arg); err != nil {
		return 0, err
	}
	provider, err := canton.ParseParty("choiceArgument.provider", arg.Provider)
	if err != nil {
		return 0, err
	}
	if err := requireController("the provider", provider, sb.actAs); err != nil {
		return 0, err
	}
	cid, err := s.w.Featured.SelfGrantOnce(r.Context(), provider, sb.cmd)
	if err != nil {
		return 0, devnetOnly(err)
	}
	return s.offsetOf(r, cid)
}

// damlInt is a Daml Int64, which the JSON API takes as a string or a
// number.
type damlInt int64

func (n *damlInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return errors.New("want an integer, not " + string(b))
	}
	*n = damlInt(v)
	return nil
}

// buyMemberTraffic is AmuletRules_BuyMemberTraffic: provider buys
// trafficAmount bytes for the member, this participant.
func (s *Server) buyMemberTraffic(r *http.Request, sb *submission) (int64, error) {
	if err := s.requireRules(sb.cid); err != nil {
		return 0, err
	}
	var arg struct {
		Inputs         json.RawMessage `json:"inputs"`
		Context        json.RawMessage `json:"context"`
		Provider       string          `json:"provider"`
		MemberID       string          `json:"memberId"`
		SynchronizerID string          `json:"synchronizerId"`
		MigrationID    damlInt         `json:"migrationId"`
		TrafficAmount  damlInt         `json:"trafficAmount"`
		ExpectedDSO    *string         `json:"expectedDso"`
	}
	if err := decodeArg(sb.ex.ChoiceArgument, &arg); err != nil {
		return 0, err
	}
	provider, err := canton.ParseParty("choiceArgument.provider", arg.Provider)
	if err != nil {
		return 0, err
	}
	if err := requireController("the provider", provider, sb.actAs); err != nil {
		return 0, err
	}
	if arg.ExpectedDSO != nil && *arg.ExpectedDSO != string(s.l.DSO()) {
		return 0, canton.Err(canton.CodeInterpretation, "expectedDso %s is not the DSO %s of AmuletRules", *arg.ExpectedDSO, s.l.DSO())
	}
	participant := s.l.ParticipantID()
	if m := strings.TrimPrefix(arg.MemberID, "PAR::"); m != participant {
		return 0, canton.InvalidArgument("choiceArgument.memberId: %q is not a member of this synchronizer; this participant is PAR::%s", arg.MemberID, participant)
	}
	if arg.MigrationID != 0 {
		return 0, canton.InvalidArgument("choiceArgument.migrationId: this synchronizer's migration id is 0, not %d", arg.MigrationID)
	}
	res, err := s.w.Traffic.BuyTraffic(r.Context(), traffic.BuyTrafficRequest{
		Payer: provider, Member: provider, SynchronizerID: arg.SynchronizerID, Bytes: int64(arg.TrafficAmount),
		ExpiresAt: s.l.Now().Add(time.Hour), TrackingID: sb.cmd.Key, Completion: sb.cmd.Completion,
	})
	if err != nil {
		return 0, err
	}
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), res.RequestCID)
	if err != nil {
		return 0, err
	}
	return ct.CreatedOffset, nil
}

// preapprovalOf loads the active TransferPreapproval a choice names.
func (s *Server) preapprovalOf(r *http.Request, cid coin.ContractID) error {
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), cid)
	if errors.Is(err, fault.ErrNotFound) || err == nil && (ct.ArchivedOffset != 0 || ct.TemplateID != ledger.TemplateTransferPreapproval) {
		return canton.Err(canton.CodeContractNotFound, "transfer preapproval %s not found or not active; look the receiver's current one up", cid)
	}
	return err
}

// renewPreapproval is TransferPreapproval_Renew by the provider (the
// first actAs party): the preapproval is extended to newExpiresAt.
func (s *Server) renewPreapproval(r *http.Request, sb *submission) (int64, error) {
	if err := s.preapprovalOf(r, sb.cid); err != nil {
		return 0, err
	}
	var arg struct {
		Context      json.RawMessage `json:"context"`
		Inputs       json.RawMessage `json:"inputs"`
		NewExpiresAt string          `json:"newExpiresAt"`
	}
	if err := decodeArg(sb.ex.ChoiceArgument, &arg); err != nil {
		return 0, err
	}
	until, err := time.Parse(time.RFC3339Nano, arg.NewExpiresAt)
	if err != nil {
		return 0, canton.InvalidArgument("choiceArgument.newExpiresAt: want an ISO 8601 timestamp, not %q", arg.NewExpiresAt)
	}
	cid, err := s.l.Preapprovals().RenewAs(r.Context(), sb.actAs[0], sb.cid, until, sb.cmd)
	if errors.Is(err, fault.ErrForbidden) {
		return 0, canton.Err(canton.CodeAuthorization, "%v", err)
	} else if err != nil {
		return 0, err
	}
	return s.offsetOf(r, cid)
}

// cancelPreapproval is TransferPreapproval_Cancel by p, its receiver or
// provider.
func (s *Server) cancelPreapproval(r *http.Request, sb *submission) (int64, error) {
	if err := s.preapprovalOf(r, sb.cid); err != nil {
		return 0, err
	}
	var arg struct {
		P string `json:"p"`
	}
	if err := decodeArg(sb.ex.ChoiceArgument, &arg); err != nil {
		return 0, err
	}
	p, err := canton.ParseParty("choiceArgument.p", arg.P)
	if err != nil {
		return 0, err
	}
	if err := requireController("p", p, sb.actAs); err != nil {
		return 0, err
	}
	if err := s.l.Preapprovals().CancelAs(r.Context(), p, sb.cid, sb.cmd); errors.Is(err, fault.ErrForbidden) {
		return 0, canton.Err(canton.CodeAuthorization, "%v", err)
	} else if err != nil {
		return 0, err
	}
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), sb.cid)
	if err != nil {
		return 0, err
	}
	return ct.ArchivedOffset, nil
}

// createPreapprovalProposal is the CreateCommand of a
// TransferPreapprovalProposal, signed by its receiver.
func (s *Server) createPreapprovalProposal(r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	var arg struct {
		Receiver    string  `json:"receiver"`
		Provider    string  `json:"provider"`
		ExpectedDSO *string `json:"expectedDso"`
	}
	if err := decodeArg(raw, &arg); err != nil {
		return 0, err
	}
	p := provider.Proposal{}
	var err error
	if p.Receiver, err = canton.ParseParty("createArguments.receiver", arg.Receiver); err != nil {
		return 0, err
	}
	if p.Provider, err = canton.ParseParty("createArguments.provider", arg.Provider); err != nil {
		return 0, err
	}
	if arg.ExpectedDSO != nil {
		dso, err := canton.ParseParty("createArguments.expectedDso", *arg.ExpectedDSO)
		if err != nil {
			return 0, err
		}
		p.ExpectedDSO = &dso
	}
	if err := requireController("the receiver", p.Receiver, actAs); err != nil {
		return 0, err
	}
	cid, err := s.w.Provider.Propose(r.Context(), p, cmd)
	if err != nil {
		return 0, err
	}
	return s.offsetOf(r, cid)
}

// createPing is the CreateCommand of Canton's Ping as template, signed by
// its initiator.
func createPing(template string) func(s *Server, r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	return func(s *Server, r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error) {
		var arg struct {
			ID        string `json:"id"`
			Initiator string `json:"initiator"`
			Responder string `json:"responder"`
		}
		if err := decodeArg(raw, &arg); err != nil {
			return 0, err
		}
		p := ping.Ping{ID: arg.ID}
		var err error
		if p.Initiator, err = canton.ParseParty("createArguments.initiator", arg.Initiator); err != nil {
			return 0, err
		}
		if p.Responder, err = canton.ParseParty("createArguments.responder", arg.Responder); err != nil {
			return 0, err
		}
		if err := requireController("the initiator", p.Initiator, actAs); err != nil {
			return 0, err
		}
		cid, err := s.w.Ping.Create(r.Context(), template, p, cmd)
		if err != nil {
			return 0, err
		}
		return s.offsetOf(r, cid)
	}
}

// runsBeforeAnswer reports whether an executed sb runs before execute
// answers: a command whose route follows its change (which writes the
// completion) with another, which a client waiting for the completion
// would otherwise not find done: the operator's automation accepting a
// TransferPreapprovalProposal at once (the wallet SDK reads the
// preapproval as soon as the proposal's completion comes), and a
// DelegateProxy choice's activity marker turned into reward coupons.
func runsBeforeAnswer(sb *submission) bool {
	if sb.create == nil {
		return sb.iface == ledger.TemplateDelegateProxy
	}
	var cc struct {
		TemplateID string `json:"templateId"`
	}
	if jsonv1.Unmarshal(sb.create, &cc) != nil {
		return true // its refusal, at once
	}
	tmpl, err := damlid.Resolve("commands[0].CreateCommand.templateId", cc.TemplateID, damlid.Template)
	return err != nil || tmpl == provider.TemplateTransferPreapprovalProposal
}
