package ledgerapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledgerapi/interactive"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/damlid"
	"github.com/ccwallet/ccwallet/web"
)

// Commands: submit-and-wait (and -for-transaction) for the token
// standard's transfer: TransferFactory_Transfer on the coin's transfer
// factory and TransferInstruction_Accept on its instructions, exercised
// through the interfaces with the choice context and disclosed contracts
// the registry hands out. Each command is deduplicated by its change id
// (user, actAs, commandId).

// instructionChoices are the TransferInstruction choices served, and the
// ledger's move of each.
var instructionChoices = map[string]ledger.InstructionMove{
	"TransferInstruction_Accept":   ledger.MoveAccept,
	"TransferInstruction_Reject":   ledger.MoveReject,
	"TransferInstruction_Withdraw": ledger.MoveWithdraw,
}

// allocationChoices are the Allocation choices served, and the ledger's
// move of each.
var allocationChoices = map[string]allocationdata.AllocationMove{
	"Allocation_ExecuteTransfer": allocationdata.AllocationExecute,
	"Allocation_Withdraw":        allocationdata.AllocationWithdraw,
	"Allocation_Cancel":          allocationdata.AllocationCancel,
}

// maxCommandIDLength bounds commandId and submissionId: the ledger's one
// id limit, Canton's LedgerString (255).
const maxCommandIDLength = bounds.MaxIDLength

// jsCommands is JsCommands.
type jsCommands struct {
	Commands           []map[string]json.RawMessage `json:"commands"`
	CommandID          string                       `json:"commandId"`
	ActAs              []string                     `json:"actAs"`
	UserID             string                       `json:"userId"`
	ReadAs             []string                     `json:"readAs"`
	WorkflowID         string                       `json:"workflowId"`
	SubmissionID       string                       `json:"submissionId"`
	SynchronizerID     string                       `json:"synchronizerId"`
	DisclosedContracts []canton.DisclosedContract   `json:"disclosedContracts"`
}

// damlMeta is the token standard's Metadata.
type damlMeta struct {
	Values map[string]string `json:"values"`
}

// transferArg is TransferFactory_Transfer's argument.
type transferArg struct {
	ExpectedAdmin string `json:"expectedAdmin"`
	Transfer      *struct {
		Sender       string      `json:"sender"`
		Receiver     string      `json:"receiver"`
		Amount       coin.Amount `json:"amount"`
		InstrumentID struct {
			Admin string `json:"admin"`
			ID    string `json:"id"`
		} `json:"instrumentId"`
		RequestedAt      string   `json:"requestedAt"`
		ExecuteBefore    string   `json:"executeBefore"`
		InputHoldingCids []string `json:"inputHoldingCids"`
		Meta             damlMeta `json:"meta"`
	} `json:"transfer"`
	ExtraArgs json.RawMessage `json:"extraArgs"`
}

// submitted is a command's outcome: its update's offset.
type submitted struct {
	offset int64
	actAs  []coin.PartyID
	// updateID is the update's id when the run knew it ("": look it up).
	updateID string
}

// submission is a checked submission, ready to run: the checks a
// submission fails at once (the caller's rights, ids, the command's
// shape) passed; what it runs into on the ledger is its completion.
type submission struct {
	actAs []coin.PartyID
	// cmd is the command the ledger records: its change id (changeID,
	// the deduplication key) and, once execute runs it, its completion.
	// A route passes it whole to the ledger entry point it runs, so the
	// completion is written with the command's effects; the submission
	// keeps no key apart from it.
	cmd       commands.Command
	commandID string
	// user is the submitting user's name; completion.UserID its stored
	// key (validator_users.go). completion is what a rejection records;
	// a success's rides cmd.
	user       string
	completion commands.Completion
	// create is a CreateCommand; otherwise ex is an ExerciseCommand of
	// choice on cid of iface (or the coin's template).
	create json.RawMessage
	ex     canton.ExerciseCommand
	iface  string
	cid    coin.ContractID
	// updateID is set by a run that knows its update's id.
	updateID string
}

// submit checks and runs a submission (submit-and-wait).
func (s *Server) submit(r *http.Request, c *canton.Caller, cmds *jsCommands) (submitted, error) {
	sb, err := s.checked(r, c, cmds)
	if err != nil {
		return submitted{}, err
	}
	off, err := s.execute(r, sb)
	return submitted{offset: off, actAs: sb.actAs, updateID: sb.updateID}, err
}

// checked is cmds checked for c, as every submission is before it runs.
func (s *Server) checked(r *http.Request, c *canton.Caller, cmds *jsCommands) (*submission, error) {
	if err := s.refuseUnsigned(r, c, cmds.ActAs); err != nil {
		return nil, err
	}
	return s.check(c, cmds)
}

// submitExecuted runs the command of an interactive execute
// (interactive.Commands.Submit). As Canton's execute, it answers once
// the submission is checked and its change claimed (another submission
// of it still running is SUBMISSION_ALREADY_IN_FLIGHT at once, which the
// wallet SDK reads from execute), and the command runs on its own, its
// outcome going to the completions, where the SDK waits for it. With
// durable asynchronous submissions the command runs before the answer
// instead: nothing answered is lost in a crash. So it does while every
// asynchronous slot is taken (a wait, not a refusal), and for a command
// whose completion is not all of its outcome (runsBeforeAnswer).
func (s *Server) submitExecuted(r *http.Request, c *canton.Caller, sub interactive.Submission) error {
	cmds := jsCommands{
		Commands: []map[string]json.RawMessage{sub.Command}, CommandID: sub.CommandID, ActAs: sub.ActAs,
		UserID: sub.UserID, SubmissionID: sub.SubmissionID, SynchronizerID: sub.SynchronizerID,
	}
	sb, err := s.checked(r, c, &cmds)
	if err != nil {
		return err
	}
	if s.dur != nil || runsBeforeAnswer(sb) {
		_, err := s.execute(r, sb)
		return err
	}
	release, err := s.claim(r, sb)
	if err != nil {
		return err
	}
	started, err := s.detach(r, nil, func(run *http.Request) {
		defer release()
		if _, err := s.runRecorded(run, sb); err != nil && canton.Of(err).Code == canton.CodeInternal {
			s.log.ErrorContext(run.Context(), "ledger api: executed submission failed", "command_id", sb.commandID, "err", err)
		}
	})
	if err != nil {
		release()
		return err
	}
	if started {
		return nil
	}
	defer release()
	_, err = s.runRecorded(r, sb)
	return err
}

// refuseUnsigned refuses a submission acting as an external party unless
// the party signed it (execute): this node hosts an external party to
// confirm, not to submit for it, as Canton does.
// Parties the caller may not act as are left to submit's own checks.
func (s *Server) refuseUnsigned(r *http.Request, c *canton.Caller, actAs []string) error {
	// A development network's admin acting as the party (impersonation,
	// checked by devnet.Service.Impersonate) needs no key: that is its point.
	if c.Signed || c.Actor != "" {
		return nil
	}
	for _, a := range actAs {
		p := coin.PartyID(a)
		if !slices.Contains(c.ActAs, p) {
			continue
		}
		if _, err := s.w.External.ExternalPartyKey(r.Context(), p); err == nil {
			return canton.Err(canton.CodeCannotActViaParticipant, "%s is an external party: this participant cannot submit for it; prepare the command with /v2/interactive-submission/prepare, have the party sign it and execute it", p)
		} else if !fault.IsValidation(err) && !errors.Is(err, fault.ErrNotFound) {
			return err
		}
	}
	return nil
}

// check checks a submission: what a submission fails at once.
func (s *Server) check(c *canton.Caller, cmds *jsCommands) (*submission, error) {
	if cmds.CommandID == "" {
		return nil, canton.Err(canton.CodeMissingField, "commandId: every command needs an id, unique per change")
	}
	if len(cmds.CommandID) > maxCommandIDLength {
		return nil, canton.InvalidArgument("commandId: at most %d bytes", maxCommandIDLength)
	}
	if len(cmds.SubmissionID) > maxCommandIDLength {
		return nil, canton.InvalidArgument("submissionId: at most %d bytes", maxCommandIDLength)
	}
	if cmds.UserID != "" && cmds.UserID != c.User.Name {
		return nil, canton.PermissionDenied("userId %q is not the token's user %q", cmds.UserID, c.User.Name)
	}
	if len(cmds.ActAs) == 0 {
		return nil, canton.Err(canton.CodeMissingField, "actAs: give the party to act as")
	}
	if len(cmds.ActAs) > commands.MaxCompletionActAs {
		return nil, canton.InvalidArgument("actAs: at most %d parties", commands.MaxCompletionActAs)
	}
	sb := &submission{commandID: cmds.CommandID}
	for _, a := range cmds.ActAs {
		p, err := canton.ParseParty("actAs", a)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(c.ActAs, p) {
			return nil, canton.PermissionDenied("user %q has no right to act as party %s", c.User.Name, p)
		}
		sb.actAs = append(sb.actAs, p)
	}
	for _, a := range cmds.ReadAs {
		p, err := canton.ParseParty("readAs", a)
		if err != nil {
			return nil, err
		}
		if err := c.RequireRead(p); err != nil {
			return nil, err
		}
	}
	if cmds.SynchronizerID != "" && cmds.SynchronizerID != s.l.SynchronizerID() {
		return nil, canton.InvalidArgument("synchronizerId: this participant is connected to %s only", s.l.SynchronizerID())
	}
	for i, d := range cmds.DisclosedContracts {
		cid, _, err := s.l.VerifyBlob(d.CreatedEventBlob)
		if err != nil || string(cid) != d.ContractID {
			return nil, canton.InvalidArgument("disclosedContracts[%d]: the created event blob of %s was not issued by this ledger; disclose what the registry handed out", i, d.ContractID)
		}
	}
	if len(cmds.Commands) != 1 {
		return nil, canton.Err(canton.CodeUnsupported, "commands: %d commands; this participant runs %s", len(cmds.Commands), supportedCommands)
	}
	sb.user = c.User.Name
	sb.cmd = commands.Command{Key: changeID(s.userKey(c.User.Name), sb.actAs, cmds.CommandID)}
	sb.completion = commands.Completion{UserID: s.userKey(c.User.Name), CommandID: cmds.CommandID, SubmissionID: cmds.SubmissionID, ActAs: sb.actAs}
	if create, isCreate := cmds.Commands[0]["CreateCommand"]; isCreate && len(cmds.Commands[0]) == 1 {
		sb.create = create
		return sb, nil
	}
	raw, ok := cmds.Commands[0]["ExerciseCommand"]
	if !ok || len(cmds.Commands[0]) != 1 {
		return nil, canton.Err(canton.CodeUnsupported, "commands[0]: this participant runs %s", supportedCommands)
	}
	if err := jsonv1.Unmarshal(raw, &sb.ex); err != nil {
		return nil, &canton.DecodeError{Status: http.StatusBadRequest, Msg: "commands[0].ExerciseCommand: " + err.Error()}
	}
	var err error
	sb.iface, err = damlid.Resolve("commands[0].ExerciseCommand.templateId", sb.ex.TemplateID, damlid.Interface)
	if err != nil {
		// The coin's own choice is exercised on its template.
		if sb.iface, err = damlid.Resolve("commands[0].ExerciseCommand.templateId", sb.ex.TemplateID, damlid.Template); err != nil {
			return nil, canton.Err(canton.CodeUnsupported, "commands[0].ExerciseCommand.templateId %q: this participant runs %s", sb.ex.TemplateID, supportedCommands)
		}
	}
	if sb.cid, err = coin.ParseContractID(sb.ex.ContractID); err != nil {
		return nil, canton.InvalidArgument("commands[0].ExerciseCommand.contractId: %v", err)
	}
	iface, choice := sb.iface, sb.ex.Choice
	if coinChoiceOf(iface, choice) != nil || routeOf(iface, choice) != nil {
		return sb, nil
	}
	return nil, canton.Err(canton.CodeUnsupported, "choice %s on %s: this participant runs %s", choice, iface, supportedCommands)
}

// execute runs a checked submission on the ledger: its success's
// completion rides its command (sb.cmd, commands.Completing) to the entry
// point its route runs, which writes it with its effects; a rejection's
// is written in a change of its own, so completions report every
// submission that got this far, as Canton's.
func (s *Server) execute(r *http.Request, sb *submission) (int64, error) {
	release, err := s.claim(r, sb)
	if err != nil {
		return 0, err
	}
	defer release()
	return s.runRecorded(r, sb)
}

// claim readies sb's completion and claims its change as running
// (inflight.go); release ends the claim. Another submission of the
// change still running is its rejection, recorded.
func (s *Server) claim(r *http.Request, sb *submission) (release func(), err error) {
	sb.completion.Exercise = exerciseOf(sb) // stored with its success
	cmd, err := commands.Completing(sb.cmd.Key, sb.completion)
	if err != nil {
		return nil, err
	}
	sb.cmd = cmd
	if existing, ok := s.inflight.claim(sb.cmd.Key, s.userKey(sb.user), sb.completion.SubmissionID); !ok {
		if err := s.stillInFlight(r, sb, existing); err != nil {
			s.recordRejection(r, sb, err) // an asynchronous submission learns it here
			return nil, err
		}
		// The running one has completed: the ledger answers this one
		// as any later submission (a duplicate of a committed command).
		return func() {}, nil
	}
	return func() { s.inflight.release(sb.cmd.Key) }, nil
}

// runRecorded runs claimed submission sb, recording its rejection.
func (s *Server) runRecorded(r *http.Request, sb *submission) (int64, error) {
	if fn := s.beforeRun.Load(); fn != nil {
		(*fn)()
	}
	off, err := s.run(r, sb)
	if err != nil {
		err = dedupError(err, sb.commandID, sb.user, sb.actAs)
		s.recordRejection(r, sb, err)
	}
	return off, err
}

// recordRejection stores the failed completion of sb, rejected with err.
func (s *Server) recordRejection(r *http.Request, sb *submission, err error) {
	ce := canton.Of(err)
	corr := sb.completion.SubmissionID
	if corr == "" {
		corr = web.RequestIDFrom(r.Context())
	}
	c := sb.completion
	c.Code = ce.Code.GRPC()
	c.Message = fmt.Sprintf("%s(%d,%s): %s", ce.Code.ID, ce.Code.Cat, corr, ce.Cause)
	// Recorded even when the request is gone: the client reads it later.
	if _, rerr := s.l.RecordCompletion(context.WithoutCancel(r.Context()), c); rerr != nil {
		s.log.ErrorContext(r.Context(), "ledger api: recording a rejected command's completion failed", "command_id", c.CommandID, "err", rerr)
	}
}

// run runs a checked submission, returning its update's offset: its
// route in the command table (command_routes.go).
func (s *Server) run(r *http.Request, sb *submission) (int64, error) {
	if sb.create != nil {
		return s.createCommand(r, sb.actAs, sb.create, sb.cmd)
	}
	if c := coinChoiceOf(sb.iface, sb.ex.Choice); c != nil {
		return c.run(s, r, sb)
	}
	if rt := routeOf(sb.iface, sb.ex.Choice); rt != nil {
		return rt.run(s, r, sb)
	}
	return 0, canton.Err(canton.CodeUnsupported, "choice %s on %s: this participant runs %s", sb.ex.Choice, sb.iface, supportedCommands)
}

// dedupError is err, as DUPLICATE_COMMAND when the ledger saw the
// command's change id before.
func dedupError(err error, commandID, user string, actAs []coin.PartyID) error {
	if errors.Is(err, fault.ErrDuplicate) {
		return canton.Err(canton.CodeDuplicateCommand, "command %q of user %q acting as %v was already executed; a new change needs a new commandId",
			commandID, user, actAs)
	}
	return err
}

// changeID is the deduplication key of a command: its user, the set of
// parties it acts as and its id.
func changeID(user string, actAs []coin.PartyID, commandID string) string {
	sum := sha256.Sum256([]byte(user + "\x00" + strings.Join(canton.SortedParties(actAs), "\x00") + "\x00" + commandID))
	return hex.EncodeToString(sum[:])
}

// decodeArg decodes a choice argument strictly: an unknown field is an
// error, as Canton refuses it; a null one is left out (withoutNulls).
func decodeArg(raw json.RawMessage, dst any) error {
	if err := jsonv1.DecodeStrict(withoutNulls(raw), dst); err != nil {
		return canton.InvalidArgument("commands[0].ExerciseCommand.choiceArgument: %v", err)
	}
	return nil
}

// transferFactoryTransfer is TransferFactory_Transfer: the sender (an
// actAs party) transfers through the ledger's transfer factory.
func (s *Server) transferFactoryTransfer(r *http.Request, sb *submission) (int64, error) {
	actAs, factory, raw, cmd := sb.actAs, sb.cid, sb.ex.ChoiceArgument, sb.cmd
	if !s.w.Registry.IsFactory(factory) {
		ct, err := s.w.APIRead.LedgerContractByID(r.Context(), factory)
		if errors.Is(err, fault.ErrNotFound) || err == nil && (ct.ArchivedOffset != 0 || !apiread.Implements(ct.TemplateID, apiread.InterfaceTransferFactory)) {
			return 0, canton.Err(canton.CodeContractNotFound, "transfer factory %s not found or not active; get the current one from the registry's transfer-factory endpoint", factory)
		} else if err != nil {
			return 0, err
		}
	}
	var arg transferArg
	if err := decodeArg(raw, &arg); err != nil {
		return 0, err
	}
	tr := arg.Transfer
	if tr == nil {
		return 0, canton.Err(canton.CodeMissingField, "choiceArgument.transfer: the transfer is required")
	}
	dso := string(s.l.DSO())
	if arg.ExpectedAdmin != dso {
		return 0, canton.Err(canton.CodeInterpretation, "expectedAdmin %q is not the registry's admin %s", arg.ExpectedAdmin, dso)
	}
	if tr.InstrumentID.Admin != dso || tr.InstrumentID.ID != ledger.InstrumentID {
		return 0, canton.Err(canton.CodeInterpretation, "instrument %s/%s is not this registry's; it holds %s/%s", tr.InstrumentID.Admin, tr.InstrumentID.ID, dso, ledger.InstrumentID)
	}
	sender, err := canton.ParseParty("transfer.sender", tr.Sender)
	if err != nil {
		return 0, err
	}
	if !slices.Contains(actAs, sender) {
		return 0, canton.Err(canton.CodeAuthorization, "the transfer's sender %s must be among actAs %v", sender, actAs)
	}
	receiver, err := canton.ParseParty("transfer.receiver", tr.Receiver)
	if err != nil {
		return 0, err
	}
	requested, err := time.Parse(time.RFC3339Nano, tr.RequestedAt)
	if err != nil {
		return 0, canton.InvalidArgument("transfer.requestedAt: want an ISO 8601 timestamp, not %q", tr.RequestedAt)
	}
	if requested.After(s.l.Now()) {
		return 0, canton.Err(canton.CodeInterpretation, "transfer.requestedAt %s is in the future", tr.RequestedAt)
	}
	before, err := time.Parse(time.RFC3339Nano, tr.ExecuteBefore)
	if err != nil {
		return 0, canton.InvalidArgument("transfer.executeBefore: want an ISO 8601 timestamp, not %q", tr.ExecuteBefore)
	}
	if receiver == sender {
		return s.runSelfTransfer(r, sb, &arg, sender)
	}
	inputs, err := parseInputHoldings(tr.InputHoldingCids)
	if err != nil {
		return 0, err
	}
	res, err := s.l.Instructions().Create(r.Context(), ledger.TransferInstructionRequest{
		Sender: sender, Receiver: receiver, Amount: tr.Amount, Description: tr.Meta.Values[ledger.MetaReason],
		ExecuteBefore: before, TrackingID: cmd.Key, Completion: cmd.Completion, InputHoldings: inputs,
	})
	if err != nil {
		return 0, err
	}
	if res.UpdateID != "" {
		// A one-step send knows its update: no reads needed.
		sb.updateID = res.UpdateID
		return res.Offset, nil
	}
	// The instruction (pending) or the receiver's new holding (direct)
	// was created by the command's update.
	made := res.InstructionCID
	if made == "" && len(res.ReceiverHoldingCIDs) > 0 {
		made = res.ReceiverHoldingCIDs[0]
	}
	return s.offsetOf(r, made)
}

// preapprovalSend is TransferPreapproval_Send: the sender (an actAs
// party) sends to the preapproval's receiver in one step.
func (s *Server) preapprovalSend(r *http.Request, actAs []coin.PartyID, cid coin.ContractID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), cid)
	if errors.Is(err, fault.ErrNotFound) || err == nil && (ct.ArchivedOffset != 0 || ct.TemplateID != ledger.TemplateTransferPreapproval) {
		return 0, canton.Err(canton.CodeContractNotFound, "transfer preapproval %s not found or not active; look the receiver's current one up", cid)
	} else if err != nil {
		return 0, err
	}
	var arg struct {
		Context     json.RawMessage `json:"context"`
		Inputs      json.RawMessage `json:"inputs"`
		Amount      coin.Amount     `json:"amount"`
		Sender      string          `json:"sender"`
		Description *string         `json:"description"`
	}
	if err := decodeArg(raw, &arg); err != nil {
		return 0, err
	}
	sender, err := canton.ParseParty("choiceArgument.sender", arg.Sender)
	if err != nil {
		return 0, err
	}
	if !slices.Contains(actAs, sender) {
		return 0, canton.Err(canton.CodeAuthorization, "the sender %s must be among actAs %v", sender, actAs)
	}
	var pre struct {
		Receiver coin.PartyID `json:"receiver"`
	}
	if err := jsonv1.Unmarshal(ct.Payload, &pre); err != nil {
		return 0, fmt.Errorf("preapproval %s: %w", cid, err)
	}
	send := ledger.PreapprovalSend{Sender: sender, Receiver: pre.Receiver, Amount: arg.Amount, DeduplicationID: cmd.Key, Completion: cmd.Completion}
	if arg.Description != nil {
		send.Description = *arg.Description
	}
	res, err := s.l.Preapprovals().Send(r.Context(), send)
	if err != nil {
		return 0, err
	}
	if len(res.Outputs) == 0 {
		return 0, fmt.Errorf("preapproved send to %s made no holding", pre.Receiver)
	}
	return s.offsetOf(r, res.Outputs[0])
}

// instructionMove is TransferInstruction_Accept or _Reject (by the
// receiver) or _Withdraw (by the sender).
func (s *Server) instructionMove(r *http.Request, actAs []coin.PartyID, cid coin.ContractID, move ledger.InstructionMove, cmd commands.Command) (int64, error) {
	if _, err := s.l.Instructions().MoveOnce(r.Context(), actAs[0], cid, move, cmd); errors.Is(err, fault.ErrNotFound) {
		return 0, canton.Err(canton.CodeContractNotFound, "transfer instruction %s not found, not visible to %s, or no longer pending", cid, actAs[0])
	} else if err != nil {
		return 0, err
	}
	// The move's update is the one that archived the instruction.
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), cid)
	if err != nil {
		return 0, err
	}
	if ct.ArchivedOffset == 0 {
		return 0, fmt.Errorf("transfer instruction %s still active after %s", cid, move)
	}
	return ct.ArchivedOffset, nil
}

func (s *Server) offsetOf(r *http.Request, cid coin.ContractID) (int64, error) {
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), cid)
	if err != nil {
		return 0, err
	}
	return ct.CreatedOffset, nil
}

// submitAndWait is POST /v2/commands/submit-and-wait.
func (s *Server) submitAndWait(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	var cmds jsCommands
	if err := canton.Decode(r, &cmds); err != nil {
		return err
	}
	sub, err := s.submit(r, c, &cmds)
	if err != nil {
		return err
	}
	id := sub.updateID
	if id == "" {
		if id, _, err = s.w.APIRead.UpdateAt(r.Context(), sub.offset); err != nil {
			return err
		}
	}
	return canton.WriteJSON(w, map[string]any{"updateId": id, "completionOffset": sub.offset})
}

// submitAndWaitForTransaction is POST
// /v2/commands/submit-and-wait-for-transaction: the transaction as the
// transactionFormat (by default: every event of the actAs parties) sees it.
func (s *Server) submitAndWaitForTransaction(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	var req struct {
		Commands          *jsCommands            `json:"commands"`
		TransactionFormat *transactionFormatJSON `json:"transactionFormat"`
	}
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	if req.Commands == nil {
		return canton.Err(canton.CodeMissingField, "commands: the commands to submit are required")
	}
	var ef *eventFormat
	if req.TransactionFormat != nil {
		var err error
		if ef, err = transactionFormat("transactionFormat", req.TransactionFormat, c); err != nil {
			return err
		}
	}
	sub, err := s.submit(r, c, req.Commands)
	if err != nil {
		return err
	}
	if ef == nil {
		ef = wildcardFormat(sub.actAs)
	}
	ups, _, err := s.w.APIRead.Updates(r.Context(), ef.ledgerFilter(), sub.offset-1, sub.offset, 1)
	if err != nil {
		return err
	}
	for _, u := range ups {
		if tx, ok := s.transactionOf(u, ef); ok && u.Offset == sub.offset {
			tx.CommandID = req.Commands.CommandID
			return canton.WriteJSON(w, map[string]jsTransaction{"transaction": tx})
		}
	}
	// The format sees nothing of it: an empty transaction, as Canton.
	id, at, err := s.w.APIRead.UpdateAt(r.Context(), sub.offset)
	if err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string]jsTransaction{"transaction": {
		UpdateID: id, CommandID: req.Commands.CommandID, EffectiveAt: canton.FormatTime(at), Events: []map[string]any{},
		Offset: sub.offset, SynchronizerID: s.l.SynchronizerID(), RecordTime: canton.FormatTime(at),
	}})
}
