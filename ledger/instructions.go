package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// Token-standard templates of the transfer-instruction workflow.
const (
	TemplateTransferInstruction = "#splice-amulet:Splice.AmuletTransferInstruction:AmuletTransferInstruction"
	// InstrumentID is the coin's instrument id in the token standard.
	InstrumentID = "Amulet"
	// MetaReason is the token-standard metadata key of a transfer's
	// description.
	MetaReason = "splice.lfdecentralizedtrust.org/reason"
)

// InstructionStatus is the state of a transfer instruction.
type InstructionStatus string

// The states of a transfer instruction. Only pending is live; the others
// are final.
const (
	InstructionPending   InstructionStatus = "pending"
	InstructionCompleted InstructionStatus = "completed"
	InstructionRejected  InstructionStatus = "rejected"
	InstructionWithdrawn InstructionStatus = "withdrawn"
	InstructionExpired   InstructionStatus = "expired"
)

// InstructionMove is something that happens to a transfer instruction.
type InstructionMove string

// The moves of a transfer instruction (mission section 3).
const (
	MoveAccept   InstructionMove = "accept"
	MoveReject   InstructionMove = "reject"
	MoveWithdraw InstructionMove = "withdraw"
	MoveExpire   InstructionMove = "expire"
)

// instructionActor says who may make a move.
type instructionActor int

const (
	actorReceiver instructionActor = iota
	actorSender
	// actorAnyone: the expiry automation, on nobody's behalf.
	actorAnyone
)

// deadlineRule says when, relative to executeBefore, a move is allowed.
type deadlineRule int

const (
	anytime deadlineRule = iota
	beforeDeadline
	afterDeadline
)

// instructionRule is one allowed move: who makes it, when, and the state it
// leads to.
type instructionRule struct {
	actor    instructionActor
	deadline deadlineRule
	to       InstructionStatus
}

// instructionTransitions is the state machine, as data: state x move ->
// rule. A move missing here is refused. Reject and withdraw stay allowed
// after the deadline because they only give the sender's coin back, as the
// Daml choices do (they unlock with expire-lock); accept is refused after
// it, and expiry is only possible after it.
var instructionTransitions = map[InstructionStatus]map[InstructionMove]instructionRule{
	InstructionPending: {
		MoveAccept:   {actor: actorReceiver, deadline: beforeDeadline, to: InstructionCompleted},
		MoveReject:   {actor: actorReceiver, deadline: anytime, to: InstructionRejected},
		MoveWithdraw: {actor: actorSender, deadline: anytime, to: InstructionWithdrawn},
		MoveExpire:   {actor: actorAnyone, deadline: afterDeadline, to: InstructionExpired},
	},
	InstructionCompleted: {},
	InstructionRejected:  {},
	InstructionWithdrawn: {},
	InstructionExpired:   {},
}

// ErrInstructionFinished is returned for a move on an instruction that has
// already left the pending state: the instruction contract is archived, so
// like the real ledger it is not found any more.
var ErrInstructionFinished = fmt.Errorf("transfer instruction is no longer pending: %w", fault.ErrNotFound)

// TransferCommandKey is the deduplication key of sender's token-standard
// transfer with trackingID: one key space for the instructions and the
// self-transfers (ledger/selftransfer) of a sender.
func TransferCommandKey(sender coin.PartyID, trackingID string) string {
	return "token-transfer:" + string(sender) + ":" + trackingID
}

// NextInstructionStatus applies the transition table: it returns the state
// move leads to from from, made by actor (the sender, the receiver, or ""
// for the automation) at now, or the error that refuses it.
func NextInstructionStatus(from InstructionStatus, move InstructionMove, actor, sender, receiver coin.PartyID, now, executeBefore time.Time) (InstructionStatus, error) {
	moves, ok := instructionTransitions[from]
	if !ok {
		return "", fmt.Errorf("unknown transfer instruction status %q", from)
	}
	rule, ok := moves[move]
	if !ok {
		if len(moves) == 0 {
			return "", &fault.Problem{Err: ErrInstructionFinished, Msg: fmt.Sprintf("this transfer instruction is %s already, so it cannot be %s; reload the list", from, pastTense(move))}
		}
		return "", fault.Invalid("move", "unknown move %q", move)
	}
	switch rule.actor {
	case actorReceiver:
		if actor != receiver {
			return "", fmt.Errorf("%w: only the receiver %s may %s a transfer instruction", fault.ErrForbidden, receiver, move)
		}
	case actorSender:
		if actor != sender {
			return "", fmt.Errorf("%w: only the sender %s may %s a transfer instruction", fault.ErrForbidden, sender, move)
		}
	}
	switch rule.deadline {
	case beforeDeadline:
		if !now.Before(executeBefore) {
			// No longer open for acceptance: not found, as the spec's
			// only error for accept says.
			return "", &fault.Problem{Err: fmt.Errorf("%w (%w)", fault.ErrExpired, fault.ErrNotFound),
				Msg: fmt.Sprintf("this transfer instruction had to be accepted before %s and can no longer be; ask the sender to send again", FormatTime(executeBefore))}
		}
	case afterDeadline:
		if now.Before(executeBefore) {
			return "", fmt.Errorf("%w: the transfer instruction does not expire before %s", fault.ErrConflict, FormatTime(executeBefore))
		}
	}
	return rule.to, nil
}

func pastTense(m InstructionMove) string {
	switch m {
	case MoveAccept:
		return "accepted"
	case MoveExpire:
		return "expired"
	case MoveReject:
		return "rejected"
	case MoveWithdraw:
		return "withdrawn"
	}
	return string(m)
}

// Instructions are the core's token-standard transfer instructions
// (Amulet's AmuletTransferInstruction): their creation (or the one-step
// send through the receiver's preapproval), their moves by the transition
// table and their expiry.
type Instructions struct{ l *Ledger }

// Instructions returns l's transfer instructions.
func (l *Ledger) Instructions() Instructions { return Instructions{l} }

// TransferInstruction is the read model of a transfer instruction.
type TransferInstruction struct {
	ContractID       coin.ContractID
	Sender           coin.PartyID
	Receiver         coin.PartyID
	Amount           coin.Amount
	Description      string
	LockedHoldingCID coin.ContractID
	RequestedAt      time.Time
	ExecuteBefore    time.Time
	Status           InstructionStatus
	TrackingID       string
	// ResultCIDs are the receiver's holdings (completed) or the sender's
	// returned holding (rejected, withdrawn, expired).
	ResultCIDs []coin.ContractID
	Contract   Contract
}

// InstructionResult is the token standard's TransferInstructionResult.
type InstructionResult struct {
	Status InstructionStatus
	// InstructionCID is set for a pending result (the new instruction).
	InstructionCID coin.ContractID
	// ReceiverHoldingCIDs is set for a completed result.
	ReceiverHoldingCIDs []coin.ContractID
	// SenderChangeCIDs are the sender's new holdings: the change of the
	// locking transfer, or the coin given back when the lock is released.
	SenderChangeCIDs []coin.ContractID
	Meta             map[string]string
	// Offset and UpdateID are the update of a transfer that completed as
	// a one-step send, so its caller need not look them up; zero and ""
	// otherwise.
	Offset   int64
	UpdateID string
}

// TransferInstructionRequest creates a transfer instruction.
type TransferInstructionRequest struct {
	Sender        coin.PartyID
	Receiver      coin.PartyID
	Amount        coin.Amount
	Description   string
	ExecuteBefore time.Time
	// TrackingID, when set, makes the request idempotent: a second request
	// with the same id fails with fault.ErrDuplicate (or fault.ErrInFlight while the
	// first runs) and creates nothing.
	TrackingID string
	// Completion is the Ledger API's completion of the command the
	// request runs for (commands.Completing; TrackingID is its key),
	// written with its success; nil elsewhere.
	Completion *commands.Completion
	// InputHoldings are the holdings the sender names as inputs (the
	// token standard's inputHoldingCids): each must be the sender's live
	// holding (checkInputHoldings).
	InputHoldings []coin.ContractID
}

// InstrumentRef is the token standard's InstrumentId.
type InstrumentRef struct {
	Admin coin.PartyID `json:"admin"`
	ID    string       `json:"id"`
}

// Metadata is the token standard's Metadata.
type Metadata struct {
	Values map[string]string `json:"values"`
}

// TransferPayload is the token standard's Transfer.
type TransferPayload struct {
	Sender           coin.PartyID      `json:"sender"`
	Receiver         coin.PartyID      `json:"receiver"`
	Amount           coin.Amount       `json:"amount"`
	InstrumentID     InstrumentRef     `json:"instrumentId"`
	RequestedAt      string            `json:"requestedAt"`
	ExecuteBefore    string            `json:"executeBefore"`
	InputHoldingCIDs []coin.ContractID `json:"inputHoldingCids"`
	Meta             Metadata          `json:"meta"`
}

// TransferInstructionPayload is Splice's AmuletTransferInstruction.
type TransferInstructionPayload struct {
	LockedAmulet coin.ContractID `json:"lockedAmulet"`
	Transfer     TransferPayload `json:"transfer"`
}

// createWithID is t.create with a contract ID chosen beforehand, for
// contracts that must be named before they exist (a lock's holder).
func (t *changes) createWithID(cid coin.ContractID, templateID string, payload any, stakeholders ...coin.PartyID) {
	t.created = append(t.created, t.l.contract(cid, templateID, payload, t.now, stakeholders...))
	switch templateID {
	case TemplateOpenMiningRound, TemplateFeaturedAppRight, TemplateTransferPreapproval:
		t.reference = true
	}
}

// Create is the token standard's transfer, of the kind
// Route says (as the transfer factory answers): to a receiver with
// a valid preapproval it completes in one step, as a preapproval send;
// otherwise it locks the sender's coin for receiver and creates the
// AmuletTransferInstruction holding the lock, in one transaction. The lock
// is the amount plus its fee reserve (TransferLockReserve, as Splice locks
// it), so its holding fees until the deadline never eat into the amount;
// no fees are charged, only the accrued holding fees of the spent inputs
// are burned, and an accept gives the unused reserve back.
func (in Instructions) Create(ctx context.Context, req TransferInstructionRequest) (*InstructionResult, error) {
	l := in.l
	now := l.Now()
	if err := bounds.CheckAmount("amount", req.Amount); err != nil {
		return nil, err
	}
	if err := bounds.CheckExpiry("expires_at", req.ExecuteBefore, now); err != nil {
		return nil, err
	}
	if req.Receiver == req.Sender {
		return nil, fault.Invalid("receiver_party_id", "must differ from the sender")
	}
	if err := bounds.CheckText("description", req.Description); err != nil {
		return nil, err
	}
	if err := bounds.CheckID("tracking_id", req.TrackingID); err != nil {
		return nil, err
	}
	if err := l.KnownParty(ctx, req.Receiver); err != nil {
		return nil, err
	}
	if err := l.checkInputHoldings(ctx, req.Sender, req.InputHoldings); err != nil {
		return nil, err
	}
	executeBefore := req.ExecuteBefore.UTC().Truncate(time.Microsecond)
	var cmd commands.Command // none without a tracking id
	if req.TrackingID != "" {
		cmd = commands.Command{Key: TransferCommandKey(req.Sender, req.TrackingID), Completion: req.Completion}
		// The common case first: to a receiver with a valid preapproval
		// the transfer is a one-step send, and runs as one (grouped with
		// concurrent sends on Postgres); with none it falls through.
		// A replay falls through too (fault.ErrDuplicate): the instruction
		// path's claim gives every replay of the id the same answer,
		// whichever path the first request took.
		res, err := in.transferDirectBatched(ctx, req, cmd)
		if !errors.Is(err, errNoPreapproval) && !errors.Is(err, fault.ErrDuplicate) {
			if err != nil {
				return nil, fmt.Errorf("create transfer instruction from %s to %s: %w", req.Sender, req.Receiver, err)
			}
			return res, nil
		}
	}
	var res *InstructionResult
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		if cmd.Key != "" {
			prev, err := l.claimCommand(ctx, tx, cmd.Key)
			if err != nil {
				return err
			}
			if prev != nil {
				return fmt.Errorf("%w: tracking id %q was already used for transfer %s", fault.ErrDuplicate, req.TrackingID, prev.Result)
			}
		}
		if err := l.LockParties(ctx, tx, req.Sender); err != nil {
			return err
		}
		kind, pre, err := l.Instructions().Route(ctx, tx, req.Sender, req.Receiver)
		if err != nil {
			return err
		}
		if kind == TransferDirect {
			res, err = in.transferDirect(ctx, c, req, pre, cmd)
			return err
		}
		t, err := c.begin(ctx, "create-transfer-instruction")
		if err != nil {
			return err
		}
		if err := t.usingRules(ctx); err != nil {
			return err
		}
		cid := coin.NewContractID()
		lock := req.Amount.Add(l.rules.TransferLockReserve(req.Amount, t.round.Price, executeBefore.Sub(t.now)))
		tr, err := t.transfer(ctx, req.Sender, []Output{{Receiver: req.Sender, Amount: lock, Lock: &Lock{
			Holder: string(cid), ExpiresAt: executeBefore, Context: fmt.Sprintf("transfer to '%s'", req.Receiver),
		}}})
		if err != nil {
			return err
		}
		locked := tr.Outputs[0]
		meta := map[string]string{}
		if req.Description != "" {
			meta[MetaReason] = req.Description
		}
		t.createWithID(cid, TemplateTransferInstruction, TransferInstructionPayload{LockedAmulet: locked, Transfer: TransferPayload{
			Sender: req.Sender, Receiver: req.Receiver, Amount: req.Amount, InstrumentID: InstrumentRef{Admin: l.dso, ID: InstrumentID},
			RequestedAt: FormatTime(t.now), ExecuteBefore: FormatTime(executeBefore),
			InputHoldingCIDs: []coin.ContractID{locked}, Meta: Metadata{Values: meta},
		}}, l.dso, req.Sender, req.Receiver)
		// The locked coin leaves the sender's available balance now.
		t.record(req.Sender, HistoryTransfer, "CreateTokenStandardTransferInstruction", req.Receiver, tr.Cost(lock).Neg(), tr.Fees.Add(tr.HoldingFees), req.Description, HistoryDetails{
			Provider: l.operator, HoldingFees: tr.HoldingFees, Fees: tr.Fees, ContractID: cid, TrackingID: req.TrackingID, Instructed: &req.Amount,
		})
		t.afterCommit(func(ctx context.Context) error {
			if err := store.InsertTransferInstruction(ctx, tx, &store.TransferInstruction{
				ContractID: cid, Sender: req.Sender, Receiver: req.Receiver, Amount: req.Amount, Description: req.Description,
				LockedHoldingCID: locked, RequestedAt: t.now, ExecuteBefore: executeBefore, Status: string(InstructionPending),
				TrackingID: req.TrackingID, CreatedOffset: t.offset,
			}); err != nil || cmd.Key == "" {
				return err
			}
			return l.saveCommand(ctx, t, cmd, req.Sender, "create-transfer-instruction", string(cid))
		})
		res = &InstructionResult{Status: InstructionPending, InstructionCID: cid, SenderChangeCIDs: []coin.ContractID{}, Meta: map[string]string{}}
		if tr.Change != "" {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, tr.Change)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("create transfer instruction from %s to %s: %w", req.Sender, req.Receiver, err)
	}
	return res, nil
}

// transferDirect is Create's direct kind, in its
// change c: the transfer through the receiver's preapproval p, completed
// at once. cmd, when it has a key, records the tracking id with the
// receiver's new holding, and its completion.
func (in Instructions) transferDirect(ctx context.Context, c *change, req TransferInstructionRequest, p *store.TransferPreapproval, cmd commands.Command) (*InstructionResult, error) {
	l := in.l
	t, err := c.begin(ctx, "transfer-preapproval-send")
	if err != nil {
		return nil, err
	}
	tr, err := t.sendThrough(ctx, req.Sender, p, req.Amount, req.Description)
	if err != nil {
		return nil, err
	}
	if cmd.Key != "" {
		t.afterCommit(func(ctx context.Context) error {
			return l.saveCommand(ctx, t, cmd, req.Sender, "create-transfer-instruction", string(tr.Outputs[0]))
		})
	}
	res := &InstructionResult{Status: InstructionCompleted, ReceiverHoldingCIDs: tr.Outputs, SenderChangeCIDs: []coin.ContractID{}, Meta: map[string]string{}}
	if tr.Change != "" {
		res.SenderChangeCIDs = append(res.SenderChangeCIDs, tr.Change)
	}
	return res, nil
}

// errNoPreapproval is a token-standard transfer's one-step send finding
// no valid preapproval of its receiver: it becomes an instruction.
var errNoPreapproval = errors.New("the receiver has no valid transfer preapproval")

// transferDirectBatched is transferDirect as a one-step send of cmd (the
// request's deduplication key and completion), in a batch
// of Preapprovals().Send's (sendbatch.go): the same rule, one transaction
// for the whole batch's claims, locks and reads and one for its writes.
// It fails with errNoPreapproval, having changed nothing, when the
// receiver has no valid preapproval.
func (in Instructions) transferDirectBatched(ctx context.Context, req TransferInstructionRequest, cmd commands.Command) (*InstructionResult, error) {
	l := in.l
	if err := l.Reassignments().refuseSend(ctx, req.Receiver); err != nil {
		return nil, err
	}
	s := PreapprovalSend{Sender: req.Sender, Receiver: req.Receiver, Amount: req.Amount, Description: req.Description, DeduplicationID: req.TrackingID}
	r := l.sends.sendOne(l, &sendCall{ctx: ctx, s: s, cmd: cmd, token: true})
	if r.err != nil {
		return nil, r.err
	}
	res := &InstructionResult{Status: InstructionCompleted, ReceiverHoldingCIDs: r.res.Outputs, SenderChangeCIDs: []coin.ContractID{}, Meta: map[string]string{},
		Offset: r.offset, UpdateID: r.update}
	if r.res.Change != "" {
		res.SenderChangeCIDs = append(res.SenderChangeCIDs, r.res.Change)
	}
	return res, nil
}

// Accept completes the transfer: the lock is spent and
// the receiver gets the coin. Only the receiver may accept, and only
// before the instruction's deadline.
func (in Instructions) Accept(ctx context.Context, actor coin.PartyID, cid coin.ContractID) (*InstructionResult, error) {
	return in.Move(ctx, actor, cid, MoveAccept)
}

// Reject closes the instruction without transfer; the
// locked coin goes back to the sender. Only the receiver may reject.
func (in Instructions) Reject(ctx context.Context, actor coin.PartyID, cid coin.ContractID) (*InstructionResult, error) {
	return in.Move(ctx, actor, cid, MoveReject)
}

// Withdraw closes the instruction before acceptance;
// the sender reclaims the locked coin. Only the sender may withdraw.
func (in Instructions) Withdraw(ctx context.Context, actor coin.PartyID, cid coin.ContractID) (*InstructionResult, error) {
	return in.Move(ctx, actor, cid, MoveWithdraw)
}

// Move makes move on the instruction cid on behalf of
// actor ("" for the expiry automation), following the transition table.
// A refused move changes nothing.
func (in Instructions) Move(ctx context.Context, actor coin.PartyID, cid coin.ContractID, move InstructionMove) (*InstructionResult, error) {
	return in.move(ctx, actor, cid, move, commands.Command{})
}

// MoveOnce is Move deduplicated by cmd's key (the Ledger API's change
// id): a key used before fails with fault.ErrDuplicate and moves nothing; the
// key, cmd's completion and the move commit together.
func (in Instructions) MoveOnce(ctx context.Context, actor coin.PartyID, cid coin.ContractID, move InstructionMove, cmd commands.Command) (*InstructionResult, error) {
	if err := bounds.CheckID("commandId", cmd.Key); err != nil {
		return nil, err
	}
	cmd.Key = "instruction-move:" + cmd.Key
	return in.move(ctx, actor, cid, move, cmd)
}

func (in Instructions) move(ctx context.Context, actor coin.PartyID, cid coin.ContractID, move InstructionMove, cmd commands.Command) (*InstructionResult, error) {
	l := in.l
	var res *InstructionResult
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		if cmd.Key != "" {
			prev, err := l.claimCommand(ctx, tx, cmd.Key)
			if err != nil {
				return err
			}
			if prev != nil {
				return fmt.Errorf("%w: the command was already executed at offset %d", fault.ErrDuplicate, *prev.OffsetID)
			}
		}
		ti, err := store.TransferInstructionByID(ctx, tx, cid)
		if err != nil {
			return fmt.Errorf("transfer instruction %s: %w", cid, err)
		}
		if actor != "" && actor != ti.Sender && actor != ti.Receiver {
			// Not a stakeholder: the instruction is invisible to it.
			return fmt.Errorf("transfer instruction %s: %w", cid, fault.ErrNotFound)
		}
		if err := l.LockParties(ctx, tx, ti.Sender, ti.Receiver); err != nil {
			return err
		}
		// Re-read under the parties' locks: a concurrent move may have won.
		if ti, err = store.TransferInstructionByID(ctx, tx, cid); err != nil {
			return err
		}
		t, err := c.begin(ctx, string(move)+"-transfer-instruction")
		if err != nil {
			return err
		}
		to, err := NextInstructionStatus(InstructionStatus(ti.Status), move, actor, ti.Sender, ti.Receiver, t.now, ti.ExecuteBefore)
		if err != nil {
			return fmt.Errorf("transfer instruction %s: %w", cid, err)
		}
		if res, err = t.finishInstruction(ctx, ti, move, to); err != nil || cmd.Key == "" {
			return err
		}
		t.afterCommit(func(ctx context.Context) error {
			return l.saveCommand(ctx, t, cmd, actor, string(move)+"-transfer-instruction", string(cid))
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s transfer instruction: %w", move, err)
	}
	return res, nil
}

// finishInstruction carries out an allowed move inside t; the
// instruction's row follows once t commits.
func (t *txn) finishInstruction(ctx context.Context, ti *store.TransferInstruction, move InstructionMove, to InstructionStatus) (*InstructionResult, error) {
	res := &InstructionResult{Status: to, ReceiverHoldingCIDs: []coin.ContractID{}, SenderChangeCIDs: []coin.ContractID{}, Meta: map[string]string{}}
	value, fee, locked, err := t.releaseLock(ctx, ti.LockedHoldingCID, ti.ContractID)
	if err != nil {
		return nil, err
	}
	if !locked && move == MoveAccept {
		return nil, fault.NotFoundf("LockedAmulet '%s' not found for AmuletTransferInstruction '%s', which expires on %s",
			ti.LockedHoldingCID, ti.ContractID, FormatTime(ti.ExecuteBefore))
	}
	if err := t.l.Reassignments().refuse(ctx, t.tx, t.l.Instructions().Uses(ti, locked, t.round.ContractID)...); err != nil {
		return nil, fmt.Errorf("transfer instruction %s: %w", ti.ContractID, err)
	}
	t.archive(ti.ContractID)
	var results []coin.ContractID
	subtype := "TransferInstruction_" + strings.ToUpper(string(move[:1])) + string(move[1:])
	switch {
	case move == MoveAccept:
		// The receiver gets exactly the amount, never less; the rest of
		// the lock (its unused fee reserve) goes back to the sender.
		if value.Cmp(ti.Amount) < 0 {
			return nil, lockShortfall(value, ti.Amount)
		}
		results = append(results, t.newHolding(ti.Receiver, ti.Amount, nil))
		res.ReceiverHoldingCIDs = results
		change := value.Sub(ti.Amount)
		if change.IsPositive() {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, t.newHolding(ti.Sender, change, nil))
		}
		d := HistoryDetails{Provider: t.l.operator, HoldingFees: fee, ContractID: ti.ContractID, TrackingID: ti.TrackingID}
		// The locked coin left the sender's available balance when it was
		// locked; the reserve left over comes back, the receiver's grows.
		t.recordPair(ti.Sender, ti.Receiver, HistoryTransfer, subtype, change, fee, ti.Amount, coin.Zero, ti.Description, d)
	default:
		if value.IsPositive() {
			results = append(results, t.newHolding(ti.Sender, value, nil))
		}
		res.SenderChangeCIDs = results
		// The unlocked coin returns to the sender's available balance.
		t.record(ti.Sender, HistoryBalanceChange, subtype, ti.Receiver, value, fee, ti.Description, HistoryDetails{
			HoldingFees: fee, ContractID: ti.ContractID, TrackingID: ti.TrackingID,
		})
		if move != MoveExpire {
			t.record(ti.Receiver, HistoryNotification, subtype, ti.Sender, coin.Zero, coin.Zero, ti.Description, HistoryDetails{
				ContractID: ti.ContractID, Notification: fmt.Sprintf("transfer instruction %s %s", ti.ContractID, to),
			})
		}
	}
	ids := make([]string, len(results))
	for i, c := range results {
		ids[i] = string(c)
	}
	t.afterCommit(func(ctx context.Context) error {
		return store.FinishTransferInstruction(ctx, t.tx, ti.ContractID, string(InstructionPending), string(to), strings.Join(ids, ","), t.offset, t.now)
	})
	return res, nil
}

// View is a stored transfer instruction as the wallet shows it, with its
// contract c (nil: without).
func (in Instructions) View(ti *store.TransferInstruction, c *store.Contract) TransferInstruction {
	l := in.l
	v := TransferInstruction{
		ContractID: ti.ContractID, Sender: ti.Sender, Receiver: ti.Receiver, Amount: ti.Amount, Description: ti.Description,
		LockedHoldingCID: ti.LockedHoldingCID, RequestedAt: ti.RequestedAt.UTC(), ExecuteBefore: ti.ExecuteBefore.UTC(),
		Status: InstructionStatus(ti.Status), TrackingID: ti.TrackingID, ResultCIDs: []coin.ContractID{},
	}
	if ti.ResultCIDs != "" {
		for _, s := range strings.Split(ti.ResultCIDs, ",") {
			v.ResultCIDs = append(v.ResultCIDs, coin.ContractID(s))
		}
	}
	if c != nil {
		v.Contract = l.ContractView(c)
	}
	return v
}
