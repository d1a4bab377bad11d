// Package selftransfer owns the self-transfer on the core: a token-standard
// transfer whose receiver is its sender (transfer kind self), how a
// wallet merges or splits its holdings (the wallet SDK's
// mergeHoldingUtxos), as the Ledger API's TransferFactory_Transfer runs it
// (Run) and its prepare checks it before anything is signed (Check): the
// request's bounds, the choice of inputs, the tracking id's deduplication
// (the key space of Instructions().Create's), the history row and the
// answer. The money it moves is the core's rule, Tx.SelfTransfer: the
// inputs spent and one holding (and the change) given back, with no
// transfer fee and the inputs' holding fees burned.
package selftransfer

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Service is the self-transfers of one ledger.
type Service struct {
	l *ledger.Ledger
}

// New builds the self-transfers on l.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// Request is a token-standard transfer whose receiver is its sender.
type Request struct {
	Owner  coin.PartyID
	Amount coin.Amount
	// Inputs are the holdings to spend (the transfer's inputHoldingCids);
	// none means the owner's unlocked holdings, up to MaxNumInputs.
	Inputs        []coin.ContractID
	Description   string
	ExecuteBefore time.Time
	// TrackingID makes the request idempotent, as for
	// Instructions().Create.
	TrackingID string
	// Completion is the Ledger API's completion of the command the
	// request runs for (commands.Completing; TrackingID is its key),
	// written with its success; nil elsewhere.
	Completion *commands.Completion
}

// Check is Run's rule without the change: the refusal Run would give
// now, or nil. Interactive submission calls it at prepare, so a refusal
// comes before anything is signed.
func (s *Service) Check(ctx context.Context, req Request) error {
	_, err := s.plan(ctx, s.l.DB(), req, s.l.Now())
	return err
}

// plan checks req and picks its inputs at time now.
func (s *Service) plan(ctx context.Context, db bun.IDB, req Request, now time.Time) ([]store.Holding, error) {
	rules := s.l.Rules()
	if err := bounds.CheckAmount("amount", req.Amount); err != nil {
		return nil, err
	}
	if err := bounds.CheckExpiry("executeBefore", req.ExecuteBefore, now); err != nil {
		return nil, err
	}
	if err := bounds.CheckText("description", req.Description); err != nil {
		return nil, err
	}
	if err := bounds.CheckID("tracking_id", req.TrackingID); err != nil {
		return nil, err
	}
	if len(req.Inputs) > rules.MaxNumInputs {
		return nil, fault.Invalid("inputHoldingCids", "at most %d inputs a transfer, got %d", rules.MaxNumInputs, len(req.Inputs))
	}
	r, err := store.LatestRound(ctx, db)
	if err != nil {
		return nil, err
	}
	var hs []store.Holding
	if len(req.Inputs) == 0 {
		hs, err = store.HoldingsByOwner(ctx, db, req.Owner)
	} else {
		hs, err = store.HoldingsByIDs(ctx, db, req.Inputs)
	}
	if err != nil {
		return nil, err
	}
	if len(req.Inputs) > 0 && len(hs) != len(req.Inputs) {
		return nil, fmt.Errorf("%w: an input holding is not active (spent or never existed)", fault.ErrRequirement)
	}
	var picked []store.Holding
	sum, initial := coin.Zero, coin.Zero
	for _, h := range hs {
		if h.Owner != req.Owner || h.LockHolder != "" {
			if len(req.Inputs) == 0 {
				continue
			}
			return nil, fmt.Errorf("%w: input %s is not an unlocked holding of %s", fault.ErrRequirement, h.ContractID, req.Owner)
		}
		if len(picked) == rules.MaxNumInputs {
			break
		}
		picked = append(picked, h)
		sum = sum.Add(ledger.EffectiveAmount(h.Amount, h.Rate, h.CreatedRound, r.Number))
		initial = initial.Add(h.Amount)
	}
	// A self-transfer pays no transfer fee; what the inputs are worth
	// after their holding fees is what it can move. Asking for their
	// initial amounts (the Holding views' amounts, as the SDK's merge
	// sums them) moves all of it.
	if len(picked) == 0 || req.Amount.Cmp(initial) > 0 {
		return nil, fmt.Errorf("%w: the inputs hold %s (worth %s after holding fees), less than %s", fault.ErrInsufficientFunds, initial, sum, req.Amount)
	}
	return picked, nil
}

// Run runs a self-transfer: it spends the inputs and gives the owner one
// holding of the amount (all the inputs are worth when the amount is
// between that and their initial amounts) and the change, in one update,
// with no transfer fee; the inputs' holding fees are charged.
func (s *Service) Run(ctx context.Context, req Request) (*ledger.InstructionResult, error) {
	l := s.l
	if err := l.KnownParty(ctx, req.Owner); err != nil {
		return nil, err
	}
	var cmd commands.Command // none without a tracking id
	if req.TrackingID != "" {
		cmd = commands.Command{Key: ledger.TransferCommandKey(req.Owner, req.TrackingID), Completion: req.Completion}
	}
	var res *ledger.InstructionResult
	err := l.Change(ctx, func(ctx context.Context, x *ledger.Tx) error {
		if cmd.Key != "" {
			prev, err := x.ClaimCommand(ctx, cmd.Key)
			if err != nil {
				return err
			}
			if prev != nil {
				return fmt.Errorf("%w: tracking id %q was already used for transfer %s", fault.ErrDuplicate, req.TrackingID, prev.Result)
			}
		}
		if err := x.LockParties(ctx, req.Owner); err != nil {
			return err
		}
		hs, err := s.plan(ctx, x.DB(), req, l.Now())
		if err != nil {
			return err
		}
		if err := x.Begin(ctx, "self-transfer"); err != nil {
			return err
		}
		tr, err := x.SelfTransfer(ctx, req.Owner, hs, req.Amount)
		if err != nil {
			return err
		}
		res = &ledger.InstructionResult{Status: ledger.InstructionCompleted, ReceiverHoldingCIDs: []coin.ContractID{}, SenderChangeCIDs: []coin.ContractID{}, Meta: map[string]string{}}
		res.ReceiverHoldingCIDs = append(res.ReceiverHoldingCIDs, tr.Outputs...)
		if tr.Change != "" {
			res.SenderChangeCIDs = append(res.SenderChangeCIDs, tr.Change)
		}
		x.Record(req.Owner, ledger.HistoryTransfer, "SelfTransfer", req.Owner, tr.HoldingFees.Neg(), tr.HoldingFees,
			fmt.Sprintf("self-transfer of %d holdings", len(tr.Inputs)), ledger.HistoryDetails{Provider: l.Operator(), HoldingFees: tr.HoldingFees, TrackingID: req.TrackingID})
		if cmd.Key != "" {
			made := ""
			if len(tr.Outputs) > 0 {
				made = string(tr.Outputs[0])
			}
			x.SaveCommand(cmd, req.Owner, "self-transfer", made)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("self-transfer of %s: %w", req.Owner, err)
	}
	return res, nil
}
